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
  std::vector<double> rate_gbits;  // each rail's link rate, Gb/s (0: unknown)
};
// The bound for ranks spread over these nodes; gbps 0 when a node has no
// rail with a known rate.
HardwareBound RailBound(const std::vector<NodeRails>& nodes);

}  // namespace nodeprobe::nccl
