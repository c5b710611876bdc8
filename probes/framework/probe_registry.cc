#include "probes/framework/probe_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace nodeprobe {

absl::Status ProbeRegistry::Register(std::unique_ptr<Probe> probe) {
  std::string name(probe->name());
  if (probes_.count(name) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("probe '", name, "' is registered twice"));
  }
  probes_.emplace(std::move(name), std::move(probe));
  return absl::OkStatus();
}

Probe* ProbeRegistry::Find(std::string_view name) const {
  auto it = probes_.find(name);
  return it == probes_.end() ? nullptr : it->second.get();
}

std::vector<Probe*> ProbeRegistry::List() const {
  std::vector<Probe*> out;
  for (const auto& [name, probe] : probes_) out.push_back(probe.get());
  return out;
}

std::vector<Probe*> ProbeRegistry::ForStage(v1::Stage stage) const {
  std::vector<Probe*> out;
  for (Probe* probe : List()) {
    std::vector<v1::Stage> stages = probe->stages();
    if (std::find(stages.begin(), stages.end(), stage) != stages.end()) {
      out.push_back(probe);
    }
  }
  return out;
}

std::vector<std::string> ProbeRegistry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, probe] : probes_) out.push_back(name);
  return out;
}

}  // namespace nodeprobe
