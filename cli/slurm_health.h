// File: slurm_health.h
// `nodeprobe slurm-health`: Slurm's HealthCheckProgram (and a prolog or
// epilog). Runs the quick single-node checks on this node as a sweep (no
// intrusive probe unless the profile says so) and tells slurmctld:
//   FAIL          -> drain the node, the reason "nodeprobe: CODE,CODE ..."
//   PASS or WARN  -> resume it if it was drained by us (our reason), else
//                    leave it as it is (an operator's drain is theirs)
//   SKIP or ERROR -> change nothing: a check that could not judge is no
//                    reason to take a node from the users
// through `scontrol update` (argv, no shell), never anything a remote asks.
#pragma once

#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "nodeprobe/v1/result.pb.h"

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// What `scontrol show node NAME --oneliner` says of the node.
struct SlurmNode {
  bool found = false;
  bool drained = false;  // DRAIN in its state (DRAINING or DRAINED)
  std::string reason;    // Reason=..., without slurmctld's "[user@time]"
};
SlurmNode ParseScontrolShowNode(absl::string_view oneliner);

// Reasons we set begin with this; only those are ours to resume.
inline constexpr absl::string_view kSlurmReasonPrefix = "nodeprobe: ";

struct SlurmAction {
  enum Kind { kNone, kDrain, kResume } kind = kNone;
  std::string reason;  // for kDrain
  std::string why;     // one line for the log
};
SlurmAction DecideSlurmAction(const v1::StageReport& report, const SlurmNode& node);

std::function<int()> AddSlurmHealthCommand(CLI::App& app);

}  // namespace nodeprobe::cli
