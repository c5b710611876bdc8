// File: mtu_probe.h
// Probe `mtu`. Single-node part (this probe in --stage single-node): the
// interface chain of every RDMA-backed netdev and of every interface the
// profile names. Path part (`nodeprobe mtu probe`, the two-node stage): the
// measured path MTU in both directions, judged by JudgePath().
#pragma once

#include "nodeprobe/v1/result.pb.h"
#include "probes/framework/probe.h"
#include "probes/mtu/path_mtu.h"

namespace nodeprobe {

class MtuProbe : public Probe {
 public:
  std::string_view name() const override { return "mtu"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "MTU along each RDMA netdev's chain (VLAN, bond, bridge, veth, VF/PF) "
           "and against the profile";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// Findings for a measured path:
//   MTU_PATH_SMALLER_THAN_IFACE  the path carries less than the interface sends
//   MTU_PATH_BLACKHOLE           ... and larger packets vanish with no ICMP
//   MTU_PEERS_DIFFER             the two ends' interface MTUs differ
//   RDMA_MTU_MISMATCH            the two RDMA ports' active MTUs differ
void JudgePath(const v1::MtuReport& report, v1::ProbeResult* result);

// Measures the path to a peer's responder and judges it: the result of
// `nodeprobe mtu probe` and of an agent's path-MTU task alike (probe
// "mtu"; MTU_PROBE_TIMEOUT / MTU_PROBE_FAILED when it could not measure).
// The caller finalizes it with its profile.
v1::ProbeResult ProbePath(const mtu::PathProbeOptions& options);

}  // namespace nodeprobe
