// A node class: the nodes whose figures are comparable, keyed by what the
// run already records of each (its inventory and GPU probes) and the
// profile that judged it. A version change (driver, firmware, CUDA, NCCL)
// starts a new class, so a baseline never mixes before and after an
// upgrade; the key's parts are kept for the evidence.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::baseline {

struct NodeClass {
  // ("gpu", "NVIDIA H200"), ("nic", "MT_0000000838 fw 28.39.1002"),
  // ("driver", ...), ("cuda", ...), ("nccl", ...), ("profile", ...), in
  // that order; "none" for a part the node does not have or did not say.
  std::vector<std::pair<std::string, std::string>> parts;
  // "gpu=NVIDIA H200; nic=...; ...": equal keys, one class.
  std::string Key() const;
  // The parts that differ from `other`'s ("driver 535.161.08 -> 550.54.15").
  std::vector<std::string> ChangesFrom(const NodeClass& other) const;
};

// The class of the node whose single-node report is `node`, judged by the
// profile named `profile`.
NodeClass ClassOf(const v1::StageReport& node, const std::string& profile);

}  // namespace nodeprobe::baseline
