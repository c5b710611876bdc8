#include "probes/nccl/nccl_probe.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "platform/nccl_api.h"
#include "platform/task_process.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/collective_judge.h"
#include "probes/nccl/collective_math.h"
#include "probes/nccl/local_collectives.h"
#include "probes/nccl/nccl_profile.h"

namespace nodeprobe {

absl::StatusOr<v1::ProbeResult> NcclProbe::Run(const ProbeContext& ctx) {
  if (ctx.host.IsCaptured() || !ctx.host.topology_xml.empty()) {
    return SkipResult("nccl", "collectives run on the live host only");
  }
  absl::StatusOr<const platform::NcclApi*> api = platform::LoadNcclApi();
  if (!api.ok()) return SkipResult("nccl", std::string(api.status().message()));
  int gpus = 0;
  if (int rc = (*api)->cudaGetDeviceCount(&gpus); rc != platform::kCudaSuccess || gpus == 0) {
    return SkipResult("nccl", rc != platform::kCudaSuccess
                                  ? platform::NoGpuReason(**api, rc)
                                  : std::string("the CUDA runtime reports no GPU"));
  }
  nccl::LocalRun run;
  run.worker_exe = platform::kSelfExe;
  // The command line's options over the profile's: a list given replaces
  // the profile's list, a sweep given replaces its sizes.
  v1::CollectiveOptions options = ctx.profile->Section<NcclRules>().run;
  const v1::CollectiveOptions& flags = ctx.nccl_options;
  if (flags.collectives_size() > 0) options.clear_collectives();
  if (flags.sizes_size() > 0 || flags.min_bytes() > 0 || flags.max_bytes() > 0) {
    options.clear_sizes();
  }
  options.MergeFrom(flags);
  run.options = nccl::WithDefaults(options);
  if (absl::Status v = nccl::ValidateOptions(run.options); !v.ok()) return v;
  run.gpus = gpus;
  run.env = ctx.profile->Section<NcclRules>().env;
  run.node = ctx.node_name;
  run.deadline = std::min(ctx.deadline, absl::Now() + absl::Minutes(30));
  const std::vector<nccl::RankAnswer> answers = nccl::RunLocalRanks(run);
  nccl::NcclLogContext log_context;
  log_context.busbw_min_gbps = ctx.profile->Section<NcclRules>().busbw_min_gbps;
  log_context.profile_source = ctx.profile->source;
  // What the GPUs' links carry, as each rank read its own (NVML, sysfs).
  log_context.run_shape = nccl::ShapeOfRun(answers, 1);
  log_context.hardware_min_fraction = ctx.profile->Section<NcclRules>().hardware_min_fraction;
  return nccl::JudgeCollectiveRun(answers, log_context, nccl::kLocalRankOrder);
}

}  // namespace nodeprobe
