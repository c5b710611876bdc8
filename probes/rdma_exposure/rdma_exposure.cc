#include "probes/rdma_exposure/rdma_exposure.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"
#include "probes/rdma_exposure/rdma_exposure_findings.h"

namespace nodeprobe::rdma_exposure {
namespace {

// Why `d` is not usable, or "" when it is.
std::string Unusable(const rdma_view::Device& d, const std::vector<Uverbs>& uverbs) {
  const Uverbs* node = nullptr;
  for (const Uverbs& u : uverbs) {
    if (u.device == d.name) node = &u;
  }
  // Without the sysfs link from node to device (older kernels), any
  // openable node stands for it.
  if (node == nullptr) {
    for (const Uverbs& u : uverbs) {
      if (u.device.empty() && u.openable) node = &u;
    }
  }
  if (node == nullptr)
    return "no /dev/infiniband/uverbs node for it (not exposed to the container)";
  if (!node->openable) return absl::StrCat("/dev/infiniband/", node->node, ": ", node->error);
  bool active = false, roce_ok = false, roce = false;
  for (const rdma_view::Port& p : d.ports) {
    if (!p.active) continue;
    active = true;
    if (!p.ethernet) return "";
    roce = true;
    for (const rdma_view::Gid& g : p.gids) roce_ok |= g.roce_v2 && g.ipv4;
  }
  if (!active) return "no ACTIVE port";
  if (roce && !roce_ok) {
    return "no RoCE v2 GID with an IPv4 address (no address on its interface in this namespace)";
  }
  return "";
}

}  // namespace

std::vector<Uverbs> ReadUverbs(const std::string& dev_dir, const platform::FileTree& sys) {
  std::vector<Uverbs> out;
  DIR* d = opendir(dev_dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind("uverbs", 0) != 0) continue;
    Uverbs u;
    u.node = name;
    u.device = sys.ReadValue("class/infiniband_verbs/" + name + "/ibdev").value_or("");
    const int fd = open((dev_dir + "/" + name).c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
      u.openable = true;
      close(fd);
    } else {
      u.error = std::strerror(errno);
      if (errno == EPERM || errno == EACCES) {
        absl::StrAppend(&u.error, " (the device cgroup or its permissions deny it)");
      }
    }
    out.push_back(std::move(u));
  }
  closedir(d);
  std::sort(out.begin(), out.end(),
            [](const Uverbs& a, const Uverbs& b) { return a.node < b.node; });
  return out;
}

void Judge(const std::vector<rdma_view::Device>& devices, const std::vector<Uverbs>& uverbs,
           bool expected, const std::string& why, v1::ProbeResult* r,
           const std::string& netns_mode) {
  std::vector<std::string> usable, problems;
  for (const rdma_view::Device& d : devices) {
    const std::string bad = Unusable(d, uverbs);
    AddEvidence(r, "rdma." + d.name, bad.empty() ? "usable" : bad);
    if (bad.empty()) {
      usable.push_back(d.name);
    } else {
      problems.push_back(absl::StrCat(d.name, ": ", bad));
    }
  }
  for (const Uverbs& u : uverbs) {
    AddEvidence(
        r, "/dev/infiniband/" + u.node,
        absl::StrCat(u.device.empty() ? "?" : u.device, u.openable ? ", opens" : ", ", u.error));
  }
  AddMeasurement(r, "preflight.rdma_devices_usable", static_cast<double>(usable.size()), "");
  if (!expected || !usable.empty()) return;
  std::string seen = absl::StrCat("none usable: ", absl::StrJoin(problems, "; "));
  if (devices.empty() && netns_mode == "exclusive") {
    seen =
        "no RDMA device in this network namespace: the host's `rdma system` netns mode is "
        "exclusive and none was moved into it (the SR-IOV or RDMA CNI does that)";
  } else if (devices.empty() && netns_mode == "shared") {
    seen =
        "no RDMA device in /sys/class/infiniband although the netns mode is shared: none is "
        "on this host, or its driver is not loaded";
  } else if (devices.empty()) {
    seen =
        "no RDMA device in /sys/class/infiniband (none given to this container, or the "
        "kernel's `rdma system` netns mode is exclusive and none was moved into this "
        "namespace)";
  }
  AddFinding(r, findings::kRdmaDeviceNotVisible.code, "",
             absl::StrCat("the job expects RDMA (", why, ") and ", seen));
}

void JudgePkey(const std::vector<rdma_view::Device>& devices, int pkey, v1::ProbeResult* r) {
  const std::string want = absl::StrFormat("0x%04x", pkey);
  for (const rdma_view::Device& d : devices) {
    for (const rdma_view::Port& p : d.ports) {
      if (!p.active || p.ethernet) continue;
      std::vector<std::string> held;
      bool found = false;
      for (int k : p.pkeys) {
        held.push_back(absl::StrFormat("0x%04x", k));
        found |= (k & 0x7fff) == pkey;
      }
      const std::string port = absl::StrCat(d.name, "/", p.port);
      AddEvidence(r, "pkeys." + port, held.empty() ? "none" : absl::StrJoin(held, ","));
      if (found) continue;
      AddFinding(r, findings::kRdmaPkeyMissing.code, port,
                 absl::StrCat(d.name, " port ", p.port, " does not hold the job's partition ", want,
                              " (its table: ", held.empty() ? "empty" : absl::StrJoin(held, ","),
                              "): NCCL's QPs on it cannot reach the partition's members"));
    }
  }
}

}  // namespace nodeprobe::rdma_exposure
