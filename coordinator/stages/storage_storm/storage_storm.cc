#include "coordinator/stages/storage_storm/storage_storm.h"

#include <algorithm>
#include <optional>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/agent_tasks.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/stages/congestion/congestion_profile.h"
#include "coordinator/stages/storage_storm/storage_storm_findings.h"
#include "platform/bounded_for.h"
#include "probes/framework/result_util.h"
#include "probes/storage/storage_arguments.h"
#include "probes/storage/storage_findings.h"
#include "probes/storage/storage_profile.h"

namespace nodeprobe::coordinator {
namespace {

// The storage probe's figures for the first profile path in a node's
// answer; error set when there are none.
v1::StoragePath PathOf(const absl::StatusOr<v1::AgentMessage>& reply, const std::string& path) {
  v1::StoragePath p;
  p.set_path(path);
  if (!reply.ok()) {
    p.set_error(std::string(reply.status().message()));
    return p;
  }
  for (const v1::ProbeResult& r : reply->result().report().results()) {
    if (r.probe() != "storage") continue;
    if (r.storage().paths_size() > 0) return r.storage().paths(0);
    p.set_error(r.reason().empty() ? "the storage probe measured nothing" : r.reason());
    return p;
  }
  p.set_error(reply->result().result().reason().empty() ? "no storage result in the node's answer"
                                                        : reply->result().result().reason());
  return p;
}

absl::StatusOr<v1::AgentMessage> AskStorage(AgentSession& node, bool force, absl::Time deadline,
                                            const v1::AcceptanceProfile& profile,
                                            int writers_nodes = 1) {
  v1::Task task;
  task.set_task_id(NewTaskId());
  task.mutable_run_probes()->set_stage(v1::SINGLE_NODE);
  task.mutable_run_probes()->add_probes("storage");
  task.mutable_run_probes()->set_force(force);
  (*task.mutable_run_probes()->mutable_arguments())[std::string(storage::kWritersNodes.name)] =
      std::to_string(writers_nodes);
  return Ask(node, task, deadline, profile);
}

}  // namespace

bool SharedFilesystem(const std::string& type) {
  static const char* const kShared[] = {"nfs",    "nfs4",   "lustre",    "gpfs", "beegfs",
                                        "ceph",   "cephfs", "glusterfs", "cifs", "smb3",
                                        "wekafs", "9p",     "virtiofs"};
  for (const char* t : kShared) {
    if (type == t) return true;
  }
  return absl::StartsWith(type, "fuse.");
}

void JudgeStorageStorm(const std::string& alone_node, const v1::StoragePath& alone,
                       const std::vector<std::pair<std::string, v1::StoragePath>>& storm,
                       const Profile& profile, v1::StageRun* run) {
  v1::StorageStormReport* s = run->mutable_storage_storm();
  s->set_path(alone.path());
  s->set_alone_node(alone_node);
  s->set_alone_checkpoint_s(alone.checkpoint_s());
  s->set_alone_write_gbps(alone.write_gbps());
  absl::Time first = absl::InfiniteFuture(), last = absl::InfinitePast();
  double bytes = 0;
  for (const auto& [node, p] : storm) {
    v1::StorageStormNode* n = s->add_nodes();
    n->set_node(node);
    if (!p.error().empty()) {
      n->set_error(p.error());
      AddFinding(run->mutable_findings(), findings::kStorageNotMeasured.code,
                 absl::StrCat(node, " ", p.path()),
                 absl::StrCat(node, " wrote no checkpoint in the storm: ", p.error()));
      continue;
    }
    n->set_write_gbps(p.write_gbps());
    n->set_checkpoint_s(p.checkpoint_s());
    n->set_read_seq_gbps(p.read_seq_gbps());
    *n->mutable_write_started() = p.write_started();
    const absl::Time start = TimeOf(p.write_started());
    first = std::min(first, start);
    last = std::max(last, start + absl::Seconds(p.checkpoint_s()));
    bytes += static_cast<double>(p.shard_bytes()) * p.writers();
    s->set_aggregate_read_gbps(s->aggregate_read_gbps() + p.read_seq_gbps());
    if (p.checkpoint_s() > s->slowest_checkpoint_s()) {
      s->set_slowest_node(node);
      s->set_slowest_checkpoint_s(p.checkpoint_s());
    }
  }
  if (last <= first) return;  // no node measured
  s->set_storm_s(absl::ToDoubleSeconds(last - first));
  s->set_aggregate_write_gbps(bytes * 8 / 1e9 / s->storm_s());
  if (alone.error().empty() && alone.checkpoint_s() > 0) {
    s->set_slowdown(s->slowest_checkpoint_s() / alone.checkpoint_s());
  }
  const double ratio = profile.Section<CongestionRules>().max_latency_ratio;
  if (s->idle_latency().p99_us() > 0 && s->storm_latency().p99_us() > 0 &&
      s->storm_latency().p99_us() > ratio * s->idle_latency().p99_us()) {
    AddFinding(run->mutable_findings(), findings::kStorageStormLatency.code,
               absl::StrCat(s->latency_from(), " -> ", s->latency_to()),
               absl::StrFormat("p99 latency from %s to %s rose from %.1f us idle to %.1f us "
                               "while every node checkpointed (above %.0fx, "
                               "congestion.max_latency_ratio)",
                               s->latency_from(), s->latency_to(), s->idle_latency().p99_us(),
                               s->storm_latency().p99_us(), ratio));
  }
  const double bar = profile.Section<StorageRules>().checkpoint_max_s;
  if (bar > 0 && s->storm_s() > bar) {
    AddFinding(
        run->mutable_findings(), findings::kStorageStormSlow.code, s->path(),
        absl::StrFormat("%d nodes checkpointing at once took %.1f s to the last fsync, "
                        "above storage.checkpoint_max_s %.1f s (slowest %s: %.1f s, %.1fx "
                        "its time alone; aggregate %.2f Gb/s)",
                        s->nodes_size(), s->storm_s(), bar, s->slowest_node(),
                        s->slowest_checkpoint_s(), s->slowdown(), s->aggregate_write_gbps()));
  }
}

void RunStorageStorm(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                     const std::vector<bool>& usable, bool force, const Profile& profile,
                     absl::Time deadline, const ProgressFn& progress) {
  std::vector<std::shared_ptr<AgentSession>> live;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (usable[i] && nodes[i]->alive()) live.push_back(nodes[i]);
  }
  if (live.empty()) return;
  const std::string path = profile.Section<StorageRules>().paths.front();
  progress(absl::StrCat("storage storm: ", live[0]->node(), " alone on ", path));
  const v1::StoragePath alone = PathOf(AskStorage(*live[0], force, deadline, run->profile()), path);
  // Latency-sensitive traffic between two of the nodes, before and during.
  v1::StorageStormReport* report = run->mutable_storage_storm();
  std::optional<v1::LatencyStats> idle;
  if (live.size() >= 2) {
    report->set_latency_from(live[1]->node());
    report->set_latency_to(live[0]->node());
    idle = LatencyProbe(run, *live[1], *live[0], 1, deadline);
    if (idle) *report->mutable_idle_latency() = *idle;
  }
  progress(absl::StrCat("storage storm: ", live.size(), " nodes at once on ", path));
  std::vector<absl::StatusOr<v1::AgentMessage>> replies(live.size(),
                                                        absl::UnknownError("not asked"));
  std::optional<v1::LatencyStats> during;
  std::thread prober;
  if (idle) {
    // As long as one checkpoint alone took: the storm lasts at least that.
    const double seconds = std::clamp(alone.checkpoint_s(), 1.0, 60.0);
    prober =
        // `seconds` by value: this block ends while the thread still runs.
        std::thread([&during, run, &live, seconds, deadline] {
          during = LatencyProbe(run, *live[1], *live[0], seconds, deadline);
        });
  }
  // Every node's task sent at once (no bound below the fleet's waits).
  // On a shared filesystem every node's checkpoint lands in the same
  // space: each node checks room for all of them before writing.
  const int writers_nodes =
      SharedFilesystem(alone.filesystem()) ? static_cast<int>(live.size()) : 1;
  platform::BoundedFor(live.size(), kMaxConcurrentAsks, [&](size_t i) {
    replies[i] = AskStorage(*live[i], force, deadline, run->profile(), writers_nodes);
  });
  if (prober.joinable()) prober.join();
  if (during) *report->mutable_storm_latency() = *during;
  std::vector<std::pair<std::string, v1::StoragePath>> storm;
  for (size_t i = 0; i < live.size(); ++i) {
    if (replies[i].ok()) storm.emplace_back(live[i]->node(), PathOf(replies[i], path));
  }
  JudgeStorageStorm(live[0]->node(), alone, storm, profile, run);
  // A node lost or late is said once, as such (AGENT_LOST, TASK_TIMEOUT).
  for (size_t i = 0; i < live.size(); ++i) {
    if (replies[i].ok()) continue;
    NodeFailed(run, live[i]->node(), replies[i].status(), "the storage storm");
    v1::StorageStormNode* n = run->mutable_storage_storm()->add_nodes();
    n->set_node(live[i]->node());
    n->set_error(std::string(replies[i].status().message()));
  }
}

absl::Status StorageStormStage::CheckRequest(const v1::RunStageRequest&, size_t,
                                             const Profile& profile) const {
  if (!profile.Section<StorageRules>().paths.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "--storage-storm needs the shared checkpoint path in the profile (storage.paths; the first "
      "is used)");
}

void StorageStormStage::Measure(const StageContext& c) {
  RunStorageStorm(c.run, c.nodes, c.usable, c.request.force(), c.profile, c.deadline, c.progress);
}

}  // namespace nodeprobe::coordinator
