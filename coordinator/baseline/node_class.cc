#include "coordinator/baseline/node_class.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace nodeprobe::baseline {
namespace {

// Distinct values, sorted and joined: a node with eight H200s is "NVIDIA
// H200", one with two models names both.
std::string Joined(const std::set<std::string>& values) {
  return values.empty() ? "none" : absl::StrJoin(values, ", ");
}

std::string BoardOf(const std::string& detail) {
  // The inventory's "pci 0000:17:00.0, board MT_0000000838, node_guid ..."
  const size_t at = detail.find("board ");
  if (at == std::string::npos) return "";
  const size_t end = detail.find(',', at);
  return detail.substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6);
}

}  // namespace

std::string NodeClass::Key() const {
  std::vector<std::string> out;
  for (const auto& [part, value] : parts) out.push_back(absl::StrCat(part, "=", value));
  return absl::StrJoin(out, "; ");
}

std::vector<std::string> NodeClass::ChangesFrom(const NodeClass& other) const {
  std::vector<std::string> out;
  for (const auto& [part, value] : parts) {
    for (const auto& [o_part, o_value] : other.parts) {
      if (part == o_part && value != o_value) {
        out.push_back(absl::StrCat(part, " ", o_value, " -> ", value));
      }
    }
  }
  return out;
}

NodeClass ClassOf(const v1::StageReport& node, const std::string& profile) {
  std::set<std::string> gpus, nics, driver, cuda, nccl;
  for (const v1::ProbeResult& r : node.results()) {
    for (const v1::GpuInfo& g : r.gpu().gpus()) {
      if (!g.name().empty()) gpus.insert(g.name());
    }
    for (const v1::Component& c : r.inventory().components()) {
      if (!c.present() || c.version().empty()) continue;
      if (c.name() == "hca_firmware") {
        const std::string board = BoardOf(c.detail());
        nics.insert(absl::StrCat(board.empty() ? "unknown board" : board, " fw ", c.version()));
      } else if (c.name() == "nvidia_driver") {
        driver.insert(c.version());
      } else if (c.name() == "cuda_driver") {
        cuda.insert(c.version());
      } else if (c.name() == "nccl") {
        nccl.insert(c.version());
      }
    }
  }
  return {.parts = {{"gpu", Joined(gpus)},
                    {"nic", Joined(nics)},
                    {"driver", Joined(driver)},
                    {"cuda", Joined(cuda)},
                    {"nccl", Joined(nccl)},
                    {"profile", profile.empty() ? "none" : profile}}};
}

}  // namespace nodeprobe::baseline
