// File: stage.h
// What a multi-node stage is to the orchestrator, as a probe is to the
// stage runner: a name, when it takes part in a run (its stage kind, or an
// option of one: the storage storm), the requests it refuses, what it
// measures between the nodes and its own judgement of the run. Each stage
// lives in its folder under coordinator/stages/ and is registered with one
// line in coordinator/stages/builtin_stages.cc; the orchestrator knows the
// registry, never a stage, and no stage includes another (what several
// share sits below them: pair_transfers.h, agent_tasks.h, peer_judgement.h,
// soak.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

using ProgressFn = std::function<void(const std::string&)>;
// Called with the run as it stands after each part that took long (a
// cluster round), so that the store has what was measured so far.
using CheckpointFn = std::function<void(const v1::StageRun&)>;
// A node's current session (nullptr: none): a restarted agent's new one.
using AgentFinder = std::function<std::shared_ptr<AgentSession>(const std::string&)>;

// At most this many tasks are waited on at once by one stage: every wait
// holds a thread, and a fleet's stage must not hold one per node or pair.
inline constexpr size_t kMaxConcurrentAsks = 256;

// Everything a stage measures with. `usable[i]`: node i answered its
// single-node probes and is not busy.
struct StageContext {
  v1::StageRun* run;
  const std::vector<std::shared_ptr<AgentSession>>& nodes;
  const std::vector<bool>& usable;
  const v1::RunStageRequest& request;
  const Profile& profile;
  absl::Time deadline;
  const ProgressFn& progress;
  const CheckpointFn& checkpoint;
  const AgentFinder& find;
};

class Stage {
 public:
  virtual ~Stage() = default;
  virtual std::string_view name() const = 0;
  // Whether it takes part in a run of this request.
  virtual bool Applies(const v1::RunStageRequest& request) const = 0;
  // A request it cannot run (too few nodes, a missing consent), said
  // before any node is touched.
  virtual absl::Status CheckRequest(const v1::RunStageRequest&, size_t /*nodes*/,
                                    const Profile&) const {
    return absl::OkStatus();
  }
  // What it measures, added to ctx.run; every wait ends by ctx.deadline.
  virtual void Measure(const StageContext& ctx) = 0;
  // After every stage that applies has measured: its own findings on the
  // run as a whole.
  virtual void Judge(const v1::RunStageRequest&, const Profile&, v1::StageRun*) const {}
};

class StageRegistry {
 public:
  // Stages run in the order they are registered.
  void Register(std::unique_ptr<Stage> stage) { stages_.push_back(std::move(stage)); }
  const std::vector<std::unique_ptr<Stage>>& All() const { return stages_; }

 private:
  std::vector<std::unique_ptr<Stage>> stages_;
};

// Every stage under coordinator/stages/ (builtin_stages.cc).
const StageRegistry& BuiltinStages();

}  // namespace nodeprobe::coordinator
