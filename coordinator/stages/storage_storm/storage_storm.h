// File: storage_storm.h
// The cluster stage's storage storm (run --storage-storm): what a
// synchronous checkpoint of a whole training job does to a shared
// filesystem. One node runs the storage probe alone on the profile's
// storage path (the baseline), then every usable node runs it at the same
// moment, each in its own scratch directory there. The record
// (StageRun.storage_storm) has each node's figures, the storm's span from
// the first write to the last fsync (by the nodes' clocks, NTP-close), the
// aggregate bandwidth over it, the slowest node and its slowdown against
// the node alone. Per-node bars (storage.checkpoint_write_min_gbps) are not
// applied to a node sharing the filesystem with all the others: the storm
// is judged as one checkpoint,
//   (its findings, with severity and remedy: coordinator/coordinator_findings.h)
// and a node that measured nothing is STORAGE_NOT_MEASURED (or AGENT_LOST).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/stage.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

void RunStorageStorm(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                     const std::vector<bool>& usable, bool force, const Profile& profile,
                     absl::Time deadline, const ProgressFn& progress);

// The storm's figures from each node's storage result (node, the path's
// figures), and its findings; `alone` is the baseline node's. The latency
// probes' figures are already in run->storage_storm().
// Filesystems whose space several nodes share (network and parallel
// filesystems, FUSE), by /proc/mounts type.
bool SharedFilesystem(const std::string& type);

void JudgeStorageStorm(const std::string& alone_node, const v1::StoragePath& alone,
                       const std::vector<std::pair<std::string, v1::StoragePath>>& storm,
                       const Profile& profile, v1::StageRun* run);

// The cluster stage's storage storm (`--storage-storm`): every node writes
// its checkpoint to the shared path at once.
class StorageStormStage : public Stage {
 public:
  std::string_view name() const override { return "storage-storm"; }
  bool Applies(const v1::RunStageRequest& r) const override {
    return r.stage() == v1::CLUSTER && r.storage_storm();
  }
  absl::Status CheckRequest(const v1::RunStageRequest& request, size_t nodes,
                            const Profile& profile) const override;
  void Measure(const StageContext& ctx) override;
};

}  // namespace nodeprobe::coordinator
