#include "probes/nccl/hardware_bound.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace nodeprobe::nccl {

double NvlinkLinkGBps(uint32_t version) {
  if (version == 1) return 20;
  if (version >= 2 && version <= 4) return 25;
  if (version == 5) return 50;
  return 0;
}

HardwareBound LocalBound(const std::vector<GpuPath>& gpus) {
  HardwareBound out;
  if (gpus.empty()) return out;
  const bool nvlink = std::all_of(gpus.begin(), gpus.end(), [](const GpuPath& g) {
    return g.nvlinks_active > 0 && NvlinkLinkGBps(g.nvlink_version) > 0;
  });
  if (nvlink) {
    const GpuPath* least = &gpus[0];
    for (const GpuPath& g : gpus) {
      if (g.nvlinks_active * NvlinkLinkGBps(g.nvlink_version) <
          least->nvlinks_active * NvlinkLinkGBps(least->nvlink_version)) {
        least = &g;
      }
    }
    const double per_link = NvlinkLinkGBps(least->nvlink_version);
    out.gbps = least->nvlinks_active * per_link;
    out.basis = absl::StrFormat("NVLink %u: %u active links x %.0f GB/s on GPU %s = %.0f GB/s "
                                "per direction (the GPU with the fewest)",
                                least->nvlink_version, least->nvlinks_active, per_link,
                                least->bus_id, out.gbps);
    return out;
  }
  const GpuPath* slowest = nullptr;
  for (const GpuPath& g : gpus) {
    if (!g.pcie.has_value()) return out;  // one unknown link: no bound
    if (slowest == nullptr ||
        pcie::PciePayloadGBps(g.pcie->gts, g.pcie->width) <
            pcie::PciePayloadGBps(slowest->pcie->gts, slowest->pcie->width)) {
      slowest = &g;
    }
  }
  out.gbps = pcie::PciePayloadGBps(slowest->pcie->gts, slowest->pcie->width);
  out.basis = absl::StrFormat("PCIe: %.0f GT/s x%d on GPU %s (the slowest GPU link; no NVLink) "
                              "x encoding x 256/(256+24) = %.1f GB/s per direction",
                              slowest->pcie->gts, slowest->pcie->width, slowest->bus_id, out.gbps);
  return out;
}

HardwareBound RailBound(const std::vector<NodeRails>& nodes) {
  HardwareBound out;
  const NodeRails* least = nullptr;
  double least_gbps = 0, least_rail = 0;
  for (const NodeRails& n : nodes) {
    if (n.rate_gbits.empty()) return out;
    const double slowest = *std::min_element(n.rate_gbits.begin(), n.rate_gbits.end());
    if (slowest <= 0) return out;  // a rail of unknown rate: no bound
    const double gbps = slowest / 8 * static_cast<double>(n.rate_gbits.size());
    if (least == nullptr || gbps < least_gbps) {
      least = &n;
      least_gbps = gbps;
      least_rail = slowest;
    }
  }
  if (least == nullptr) return out;
  out.gbps = least_gbps;
  out.rail_gbps = least_rail / 8;
  out.basis = absl::StrFormat("rails: %zu x %.1f Gb/s (the slowest rail%s) on %s = %.1f GB/s per "
                              "direction (the node with the least)",
                              least->rate_gbits.size(), least_rail,
                              least->rate_basis.empty() ? "" : ", " + least->rate_basis,
                              least->node, out.gbps);
  return out;
}

HardwareBound CollectiveBound(const std::string& collective, uint32_t nranks,
                              const RunShape& shape) {
  if (shape.nodes <= 1) return shape.intra;
  const HardwareBound& rails = shape.rails;
  HardwareBound out;
  if (rails.gbps <= 0) return out;
  const double n = nranks, g = shape.ranks_per_node;
  if (collective == "all_reduce" || collective == "all_gather" ||
      collective == "reduce_scatter" || collective == "broadcast" || collective == "reduce") {
    out.gbps = rails.gbps;
    out.basis = absl::StrCat("ring across nodes: ", rails.basis);
  } else if (collective == "alltoall") {
    if (g <= 0 || n <= g) return out;
    out.gbps = rails.gbps * (n - 1) / (g * (n - g));
    out.basis = absl::StrFormat(
        "alltoall across nodes: R.B.(n-1)/(G.(n-G)) = %.1f GB/s x %.0f / (%.0f x %.0f) = %.1f "
        "GB/s (n %.0f ranks, G %.0f per node; nccl-tests AlltoAllGetBw); %s",
        rails.gbps, n - 1, g, n - g, out.gbps, n, g, rails.basis);
  } else if (collective == "sendrecv") {
    out.gbps = rails.rail_gbps;
    out.basis = absl::StrFormat(
        "sendrecv across nodes: one rank pair crosses each node boundary over one rail: %.1f "
        "GB/s (the slowest rail of %s)",
        out.gbps, rails.basis);
  } else {
    return out;
  }
  if (shape.intra.gbps > 0 && shape.intra.gbps < out.gbps) {
    const double across = out.gbps;
    out.gbps = shape.intra.gbps;
    out.basis = absl::StrFormat("the ranks' hops inside a node: %s (below %.1f GB/s across "
                                "nodes)",
                                shape.intra.basis, across);
  }
  return out;
}

}  // namespace nodeprobe::nccl
