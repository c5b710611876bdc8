// File: probe_registry.h
// The set of probes a binary knows, by name. Duplicate names are rejected;
// listing is sorted so `nodeprobe probes` is stable.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class ProbeRegistry {
 public:
  absl::Status Register(std::unique_ptr<Probe> probe);
  // nullptr when unknown.
  Probe* Find(std::string_view name) const;
  std::vector<Probe*> List() const;
  std::vector<Probe*> ForStage(v1::Stage stage) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, std::unique_ptr<Probe>, std::less<>> probes_;
};

}  // namespace nodeprobe
