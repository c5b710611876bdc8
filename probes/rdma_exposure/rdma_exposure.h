// File: rdma_exposure.h
// Whether the RDMA a job expects is usable from inside its container or
// VM: a device in class/infiniband (what this network namespace sees: in
// the kernel's `rdma system` exclusive mode, only the devices moved into
// it), its /dev/infiniband/uverbsN character device present and openable
// (the device cgroup, the RDMA device plugin), an ACTIVE port, and on RoCE
// a v2 GID with an IPv4 address (an address on an interface of this
// namespace). A device is usable when all hold.
// The kernel's `rdma system` netns mode (RDMA netlink) says why a device
// may be missing; a partition named by the profile must be in each visible
// InfiniBand port's PKey table.
//   (its findings, with severity and remedy: probes/rdma_exposure/rdma_exposure_findings.h)
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "platform/file_tree.h"
#include "probes/common/rdma_view.h"

namespace nodeprobe::rdma_exposure {

struct Uverbs {
  std::string node;    // uverbs0
  std::string device;  // mlx5_0 (class/infiniband_verbs/uverbs0/ibdev); "" unknown
  bool openable = false;
  std::string error;  // why not
};

// The uverbs nodes under `dev_dir` (/dev/infiniband), each opened O_RDWR
// and closed, with its device from sysfs.
std::vector<Uverbs> ReadUverbs(const std::string& dev_dir, const platform::FileTree& sys);

// Each device's state in words (evidence), and the finding when `expected`
// (with `why`) and none is usable. `netns_mode` ("shared", "exclusive", or
// "" unknown) names the likely cause when no device is seen at all.
void Judge(const std::vector<rdma_view::Device>& devices, const std::vector<Uverbs>& uverbs,
           bool expected, const std::string& why, v1::ProbeResult* result,
           const std::string& netns_mode = "");

// RDMA_PKEY_MISSING for each ACTIVE InfiniBand port whose table lacks
// `pkey` (15 bits; the membership bit is not compared). RoCE ports have no
// partitions and are not judged.
void JudgePkey(const std::vector<rdma_view::Device>& devices, int pkey, v1::ProbeResult* result);

}  // namespace nodeprobe::rdma_exposure
