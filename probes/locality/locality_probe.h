// File: locality_probe.h
// Probe `locality`: the GPU x NIC matrix with NCCL's path classes, each
// GPU's rail (its nearest RDMA NICs), NUMA placement, and whether NCCL would
// use GPUDirect RDMA by default.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "platform/hwloc_topology.h"
#include "probes/framework/probe.h"
#include "probes/locality/path_class.h"

namespace nodeprobe {

class LocalityProbe : public Probe {
 public:
  std::string_view name() const override { return "locality"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "GPU x NIC path classes (PIX/PXB/PHB/NODE/SYS), rails, NUMA "
           "placement, GPUDirect eligibility";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

v1::ProbeResult JudgeLocality(const platform::PciTopology& topology,
                              const Profile& profile);

// hwloc devices the probe treats as GPUs and NICs.
bool IsNvidiaGpu(const platform::TopoPciDevice& dev);
// A GPU's rail: the RDMA device names at its best path class, and whether
// NCCL's default (NCCL_NET_GDR_LEVEL=PXB) uses GPUDirect RDMA over it.
struct RdmaRail {
  std::set<std::string> nics;
  bool gdr_by_default = false;
  std::optional<locality::PathClass> path;  // to those NICs; none without a rail NIC
};
// GPU bus id -> its rail.
std::map<std::string, RdmaRail> RdmaRails(const platform::PciTopology& topology);
// GPU bus id -> the RDMA device names at the GPU's best path class.
std::map<std::string, std::set<std::string>> NearestRdmaNics(const platform::PciTopology& topology);
// NCCL_TOPO_FILE_MISMATCH (FAIL) for each GPU whose nearest NICs in the
// file differ from the live topology's, or that only one of them has.
void CompareNcclTopoFile(const platform::PciTopology& live, const platform::PciTopology& file,
                         const std::string& path, v1::ProbeResult* result);
bool IsNic(const platform::TopoPciDevice& dev);
// Where hwloc reads this host from: --topology-xml, a capture's root (the
// directory holding its sys/), or the live machine; NOT_FOUND saying why
// for a captured sysfs root that is not inside a capture.
absl::StatusOr<platform::TopologySource> TopologySourceOf(const platform::HostPaths& host);
// NCCL_TOPO_FILE `path` read and compared with `live`: NCCL_TOPO_FILE_MISMATCH
// (ERROR when it does not parse), and the file named in the evidence.
void CheckNcclTopoFile(const platform::PciTopology& live, const std::string& path,
                       v1::ProbeResult* result);

}  // namespace nodeprobe
