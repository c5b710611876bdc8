// File: rdma_loopback_probe.h
// Probe `rdma-loopback`: for every ACTIVE RDMA port, a short write_bw and
// write_lat between two QPs on that port (ib_write_bw with server and
// client on one host), judged like a transfer (the port rate capped by the
// NIC's PCIe link, or the profile's bars); and, when a GPU's nearest NIC is
// this one, write_bw from that GPU's memory (GPUDirect RDMA). The check a
// nightly sweep runs on each HCA without a peer. Needs the live HCA: a
// captured tree is SKIP, with the ports it would test as evidence.
#pragma once

#include "probes/transfer/gid_select.h"

#include <map>
#include <string>
#include <vector>

#include "platform/file_tree.h"
#include "platform/route.h"
#include "probes/framework/probe.h"
#include "probes/transfer/expectations.h"
#include "probes/transfer/rdma_loopback.h"

namespace nodeprobe {

class RdmaLoopbackProbe : public Probe {
 public:
  std::string_view name() const override { return "rdma-loopback"; }
  bool intrusive() const override { return true; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "write_bw/write_lat through each ACTIVE RDMA port to itself (and from the nearest "
           "GPU's memory), judged against the port";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// A port to loop through, as the route-free choice sees it: its netdev and
// addresses (RoCE picks its GID from them), and the PCI address of the GPU
// whose nearest NIC it is ("" when none).
struct LoopbackTarget {
  std::string device;
  uint32_t port = 0;
  std::string link_layer;
  platform::Egress egress;  // netdev and its IPv4 addresses; no route
  std::string gpu_pci;
  std::vector<transfer::GidCandidate> gids;  // the port's GID table
};

// The ACTIVE ports of `sys` (ports that are not ACTIVE are the
// rdma-devices probe's to judge, and are listed in `not_active`).
// An unreadable class/infiniband is the error, not "no device".
absl::StatusOr<std::vector<LoopbackTarget>> LoopbackTargets(const platform::FileTree& sys,
                                                            std::vector<std::string>* not_active);

// Adds one port's outcome to `result`: measurements labelled with the
// port, TRANSFER_BELOW_EXPECTED / LATENCY_ABOVE_EXPECTED from the shared
// transfer judge, RDMA_LOOPBACK_FAILED (FAIL) when the data path broke.
void JudgeLoopback(const transfer::LoopbackOutcome& outcome, const transfer::LinkFacts& facts,
                   const Profile& profile, bool gpu, v1::ProbeResult* result);

}  // namespace nodeprobe
