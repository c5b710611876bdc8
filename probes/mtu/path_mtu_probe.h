// File: path_mtu_probe.h
// Pre-flight probe `path-mtu` (intrusive: `preflight --active --mtu-peer
// HOST`): the path MTU measured from inside the job's namespace to a peer's
// responder (`nodeprobe mtu serve`, or its agent), both directions, judged
// as `nodeprobe mtu probe` judges it (JudgePath in mtu_probe.h). MTU
// validation must start where the workload's packets start.
#pragma once

#include "probes/framework/probe.h"
#include "probes/mtu/path_mtu_arguments.h"

namespace nodeprobe {

class PathMtuProbe : public Probe {
 public:
  std::string_view name() const override { return "path-mtu"; }
  std::vector<v1::Stage> stages() const override { return {v1::PREFLIGHT}; }
  std::string_view purpose() const override {
    return "path MTU from inside the job to a named peer's responder (preflight --active "
           "--mtu-peer HOST[:PORT])";
  }
  bool intrusive() const override { return true; }
  std::vector<const ProbeArgument*> arguments() const override { return {&mtu::kMtuPeer}; }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
