// File: hardware_bound.h
// What the hardware could carry: the ceiling a collective's busbw is held
// against when the profile sets no bar. busbw is normalised by nccl-tests
// so that it compares with the bandwidth of the slowest link a rank's data
// crosses (nccl-tests doc/PERFORMANCE.md, "Bus bandwidth"), so the bound is
// that link's rate per direction:
//   one node, every GPU on NVLink: the fewest active links x GB/s per link
//   one node otherwise:             the slowest GPU's PCIe payload rate
//   across nodes:                   per node, slowest rail x rails (Gb/s / 8);
//                                   the smallest node's
// That is the ring's bound (all_reduce, all_gather, reduce_scatter,
// broadcast, reduce). Across nodes the others differ (CollectiveBound):
//   alltoall: each rank sends (n-G)/n of its data off its node of G ranks,
//             through the node's R rails of B each: algbw <= n.R.B/(G(n-G)),
//             busbw = algbw (n-1)/n <= R.B (n-1)/(G (n-G)) (~ R.B/G at
//             scale; nccl-tests AlltoAllGetBw and doc/PERFORMANCE.md);
//   sendrecv: rank r sends to r+1, so one rank pair crosses each node
//             boundary over one rail: busbw <= B;
// and the ranks' hops inside a node (NVLink, or PCIe on nodes without it)
// bound every collective too: the bound is the lower of the two.
// A bound, not an expectation: a healthy fabric reaches most of it at the
// largest sizes, and the judge warns below a fraction of it (the profile's
// nccl.hardware_min_fraction).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/pcie/pcie_link.h"

namespace nodeprobe::nccl {

struct HardwareBound {
  double gbps = 0;    // GB/s per direction; 0: unknown, no bar
  std::string basis;  // how it was derived, with the numbers
  // RailBound only: the slowest rail of the node with the least, GB/s
  // (what one rank pair crossing nodes can use).
  double rail_gbps = 0;
};

// NVLink GB/s per link and direction by NVML's NVLink version: 1 (P100) 20;
// 2 (V100), 3 (A100), 4 (H100, H200) 25; 5 (B200) 50 -- NVIDIA's
// per-GPU totals (160, 300, 600, 900, 1800 GB/s both ways over 4, 6, 12,
// 18, 18 links) halved and divided by the links. 0 when unknown.
double NvlinkLinkGBps(uint32_t version);

struct GpuPath {
  std::string bus_id;
  uint32_t nvlinks_active = 0;
  uint32_t nvlink_version = 0;
  std::optional<pcie::PcieLink> pcie;  // its current link
};
// The bound for ranks on one node's GPUs; gbps 0 when neither NVLink nor
// every GPU's PCIe link is known.
HardwareBound LocalBound(const std::vector<GpuPath>& gpus);

struct NodeRails {
  std::string node;
  // Each rail's goodput, Gb/s (0: unknown): the line's data rate times the
  // per-packet share the transfer bar uses (transfer::RailGoodputGbps).
  std::vector<double> rate_gbits;
  std::string rate_basis;  // how a rail's figure was derived, for the basis
};
// The ring's bound for ranks spread over these nodes; gbps 0 when a node
// has no rail with a known rate.
HardwareBound RailBound(const std::vector<NodeRails>& nodes);

// Where the ranks of a run sit and what their links carry.
struct RunShape {
  uint32_t nodes = 1;
  uint32_t ranks_per_node = 0;  // G: the most ranks on one node
  HardwareBound intra;          // the ranks' hops inside a node (LocalBound)
  HardwareBound rails;          // across nodes (RailBound); unused on one node
};
// The bound for `collective` over `nranks` ranks laid out as `shape`: on
// one node the intra-node bound; across nodes the collective's own formula
// (above) over the rails, no higher than the intra-node bound where known.
// gbps 0: unknown (or a collective without a formula here).
HardwareBound CollectiveBound(const std::string& collective, uint32_t nranks,
                              const RunShape& shape);

}  // namespace nodeprobe::nccl
