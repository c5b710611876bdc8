// File: host_paths.h
// Where nodeprobe reads the host from. Tests and offline analysis point these
// at a captured tree (--sysfs-root, --procfs-root); the defaults are the live
// host.
#pragma once

#include <unistd.h>

#include <string>

namespace nodeprobe::platform {

struct HostPaths {
  std::string sys_root = "/sys";
  std::string proc_root = "/proc";
  std::string etc_root = "/etc";
  // hwloc XML export to use instead of discovering the live machine.
  std::string topology_xml;
  // Captured dcbnl replies (IF.ieee, IF.dcbx: raw netlink messages, as
  // hwtests/roce_config.sh saves them); "" on the live host: ask the kernel.
  std::string dcbnl_root;

  // True when nothing was redirected: live-only sources (libibverbs queries,
  // uname) are consulted only then, so a captured tree is never mixed with
  // the machine that happens to analyse it.
  bool IsLiveSysfs() const { return sys_root == "/sys"; }
  // True when any root points at a capture: then what is not in the
  // capture (a root left at its live default, the loaded libraries) is
  // "not captured", never read from this machine.
  bool IsCaptured() const {
    return sys_root != "/sys" || proc_root != "/proc" || etc_root != "/etc";
  }
  // A root still at its live default during a captured run.
  bool NotCaptured(const std::string& root, const char* live_default) const {
    return IsCaptured() && root == live_default;
  }
  // Points every root into a captured node DIR (sys/, proc/, etc/, present
  // or not: a part the capture lacks reads as missing there, not as this
  // machine's), and at DIR/topology.xml when it exists and no topology was
  // given.
  void UseCapture(const std::string& dir) {
    sys_root = dir + "/sys";
    proc_root = dir + "/proc";
    etc_root = dir + "/etc";
    dcbnl_root = dir + "/dcbnl";
    if (topology_xml.empty() && access((dir + "/topology.xml").c_str(), R_OK) == 0) {
      topology_xml = dir + "/topology.xml";
    }
  }
};

}  // namespace nodeprobe::platform
