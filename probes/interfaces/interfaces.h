// File: interfaces.h
// The job's secondary network interfaces (Multus attachments, SR-IOV VFs,
// IPoIB), read from sysfs as this network namespace sees them: every
// interface but loopback and the one holding the IPv4 default route (the
// pod's primary network). For each: administratively up and with carrier,
// its MTU, the RDMA devices behind it (device/infiniband), whether it is an
// SR-IOV VF (device/physfn) and its PF's MTU when the PF's netdev is
// visible here.
//   (its findings, with severity and remedy: probes/interfaces/interfaces_findings.h)
// Only what a job's network is made of is judged: an interface with an
// RDMA device behind it, an SR-IOV VF, or a veth/macvlan/ipvlan/macvtap/
// ipoib link (what CNIs attach). A bridge without ports (docker0), a tun,
// or a host's plain spare port without RDMA is evidence only: their
// carrier says nothing about the job. One left administratively down and
// without RDMA is evidence too: a CNI always sets its own up.
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "platform/file_tree.h"

namespace nodeprobe::interfaces {

struct Interface {
  std::string name;
  std::string kind;  // rtnetlink's IFLA_INFO_KIND ("veth", "macvlan", ...); "" physical or unknown
  bool admin_up = false;  // IFF_UP in class/net/<name>/flags
  std::string operstate;  // "up", "down", "lowerlayerdown", "unknown", ...
  int mtu = 0;
  std::vector<std::string> rdma;  // RDMA devices of its PCI function
  bool vf = false;                // an SR-IOV virtual function
  std::string pf;                 // the PF's netdev, when visible here
  int pf_mtu = 0;
  std::vector<std::string> ipv4;  // filled by the caller (live only)
};

// Every interface under class/net except lo, sorted by name.
std::vector<Interface> ReadInterfaces(const platform::FileTree& sys);

// The interface of the IPv4 default route in /proc/net/route's text
// (Destination and Mask 00000000); "" when there is none.
std::string DefaultRouteInterface(const std::string& route_table);

struct Rules {
  int mtu = 0;  // preflight.interface_mtu; 0: not judged
  bool rdma_expected = false;
  std::string rdma_why;
  bool addresses_known = false;  // ipv4 was read (not a captured tree)
};

// Evidence per interface, and the findings above for the secondaries
// (every interface but `primary`).
void Judge(const std::vector<Interface>& all, const std::string& primary, const Rules& rules,
           v1::ProbeResult* result);

}  // namespace nodeprobe::interfaces
