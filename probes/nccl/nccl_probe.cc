// File: nccl_probe.cc
#include "probes/nccl/nccl_probe.h"

#include <map>

#include "absl/strings/ascii.h"
#include "absl/time/clock.h"
#include "platform/file_tree.h"
#include "platform/nccl_api.h"
#include "platform/nvml.h"
#include "platform/task_process.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/collective_math.h"
#include "probes/nccl/hardware_bound.h"
#include "probes/nccl/local_collectives.h"
#include "probes/pcie/pcie_link.h"

namespace nodeprobe {
namespace {

// What this node's GPUs could carry between them: NVLink as NVML reports
// it, else each GPU's PCIe link from sysfs (the ranks' bus ids).
nccl::HardwareBound LocalHardware(const std::vector<nccl::RankAnswer>& answers,
                                  const platform::HostPaths& host) {
  std::map<std::string, v1::GpuInfo> nvml;  // by bus id
  if (absl::StatusOr<v1::GpuReport> gpus = platform::ReadNvmlGpus(); gpus.ok()) {
    for (const v1::GpuInfo& g : gpus->gpus()) nvml[absl::AsciiStrToLower(g.bus_id())] = g;
  }
  const platform::FileTree sys(host.sys_root);
  std::vector<nccl::GpuPath> paths;
  for (const nccl::RankAnswer& a : answers) {
    if (!a.result.has_value() || !a.result->has_collective() ||
        a.result->collective().ranks_size() == 0 ||
        a.result->collective().ranks(0).bus_id().empty()) {
      return {};  // a GPU we cannot place: no bound
    }
    nccl::GpuPath& p = paths.emplace_back();
    p.bus_id = absl::AsciiStrToLower(a.result->collective().ranks(0).bus_id());
    if (auto it = nvml.find(p.bus_id); it != nvml.end()) {
      p.nvlinks_active = it->second.nvlinks_active();
      p.nvlink_version = it->second.nvlink_version();
    }
    p.pcie = pcie::ReadCurrentLink(sys, "bus/pci/devices/" + p.bus_id);
  }
  return nccl::LocalBound(paths);
}

}  // namespace

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
  v1::CollectiveOptions options = ctx.profile->nccl_run;
  const v1::CollectiveOptions& flags = ctx.nccl_options;
  if (flags.collectives_size() > 0) options.clear_collectives();
  if (flags.sizes_size() > 0 || flags.min_bytes() > 0 || flags.max_bytes() > 0) {
    options.clear_sizes();
  }
  options.MergeFrom(flags);
  run.options = nccl::WithDefaults(options);
  if (absl::Status v = nccl::ValidateOptions(run.options); !v.ok()) return v;
  run.gpus = gpus;
  run.env = ctx.profile->nccl_env;
  run.node = ctx.node_name;
  run.deadline = std::min(ctx.deadline, absl::Now() + absl::Minutes(30));
  const std::vector<nccl::RankAnswer> answers = nccl::RunLocalRanks(run);
  nccl::NcclLogContext log_context;
  log_context.busbw_min_gbps = ctx.profile->nccl_busbw_min_gbps;
  log_context.profile_source = ctx.profile->source;
  // One rank crosses no link: the bound (NVML, sysfs) is read only for more.
  if (answers.size() > 1) log_context.run_shape.intra = LocalHardware(answers, ctx.host);
  log_context.hardware_min_fraction = ctx.profile->nccl_hardware_min_fraction;
  return nccl::JudgeCollectiveRun(answers, log_context, nccl::kLocalRankOrder);
}

}  // namespace nodeprobe
