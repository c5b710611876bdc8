#include "probes/storage/storage_judge.h"

#include "absl/strings/str_format.h"
#include "probes/framework/result_util.h"
#include "probes/storage/storage_findings.h"

namespace nodeprobe::storage {
namespace {

// Gb/s with the GB/s storage people quote beside it.
std::string Rate(double gbps) { return absl::StrFormat("%.2f Gb/s (%.3f GB/s)", gbps, gbps / 8); }

}  // namespace

void JudgeStoragePath(const v1::StoragePath& p, const StorageRules& rules,
                      v1::ProbeResult* result) {
  if (!p.error().empty()) return;  // not measured: said as STORAGE_NOT_MEASURED
  const std::string& where = p.path();
  const std::string shape =
      absl::StrFormat("%d writers x %.0f MiB, %s", p.writers(),
                      static_cast<double>(p.shard_bytes()) / (1 << 20), p.io_mode());
  if (rules.checkpoint_write_min_gbps > 0 && p.write_gbps() < rules.checkpoint_write_min_gbps) {
    AddFinding(result, findings::kStorageWriteSlow.code, where,
               absl::StrFormat("checkpoint written at %s, below the profile's %s (%s)",
                               Rate(p.write_gbps()), Rate(rules.checkpoint_write_min_gbps), shape));
  }
  if (rules.checkpoint_max_s > 0 && p.checkpoint_s() > rules.checkpoint_max_s) {
    AddFinding(result, findings::kStorageCheckpointSlow.code, where,
               absl::StrFormat("the checkpoint took %.1f s to the slowest writer's fsync, "
                               "above the profile's %.1f s (%s)",
                               p.checkpoint_s(), rules.checkpoint_max_s, shape));
  }
  if (rules.read_min_gbps > 0) {
    for (const auto& [name, gbps] : {std::pair<const char*, double>{"in order", p.read_seq_gbps()},
                                     {"in random order", p.read_random_gbps()}}) {
      if (gbps >= rules.read_min_gbps) continue;
      AddFinding(result, findings::kStorageReadSlow.code, where,
                 absl::StrFormat("shards read back %s at %s, below the profile's %s (%s)", name,
                                 Rate(gbps), Rate(rules.read_min_gbps), p.cache()));
    }
  }
  if (rules.metadata_p99_max_ms > 0) {
    for (const v1::StorageMetadataOp& m : p.metadata()) {
      if (m.p99_ms() <= rules.metadata_p99_max_ms) continue;
      AddFinding(result, findings::kStorageMetadataSlow.code, where,
                 absl::StrFormat("%s (%s, %d files): p99 %.2f ms, above the profile's %.2f ms "
                                 "(%.0f operations/s)",
                                 m.op(), m.layout(), m.count(), m.p99_ms(),
                                 rules.metadata_p99_max_ms, m.ops_per_s()));
    }
  }
}

}  // namespace nodeprobe::storage
