#include "probes/fault_counters/fault_counters_probe.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "platform/file_tree.h"
#include "platform/nvml.h"
#include "probes/fault_counters/counter_baseline.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/transfer/transfer_profile.h"

namespace nodeprobe {

absl::StatusOr<v1::ProbeResult> FaultCountersProbe::Run(const ProbeContext& ctx) {
  if (ctx.host.IsCaptured()) {
    return SkipResult("fault-counters", "counters over time are read on the live node");
  }
  const platform::FileTree sys(ctx.host.sys_root);
  const std::string boot_id =
      platform::FileTree(ctx.host.proc_root).ReadValue("sys/kernel/random/boot_id").value_or("");
  absl::StatusOr<v1::GpuReport> gpus = platform::ReadNvmlGpus();
  const absl::Time now = absl::Now();
  const v1::CounterBaseline after =
      counters::MakeBaseline(now, boot_id, kernel::ReadAerCounters(sys),
                             kernel::ReadPortErrorCounters(sys), gpus.ok() ? &*gpus : nullptr);
  if (after.aer_size() == 0 && after.ports_size() == 0 && after.gpus_size() == 0) {
    return SkipResult(
        "fault-counters",
        absl::StrCat("no error counters on this node: no PCIe AER counters in sysfs, "
                     "no RDMA port, no GPU with NVLink",
                     gpus.ok() ? "" : absl::StrCat(" (NVML: ", gpus.status().message(), ")")));
  }
  v1::ProbeResult r;
  r.set_probe("fault-counters");
  AddEvidence(
      &r, "fault-counters.read",
      absl::StrFormat("%d PCIe functions with AER counters, %d RDMA ports, %d GPUs with "
                      "NVLink error counters%s",
                      after.aer_size(), after.ports_size(), after.gpus_size(),
                      gpus.ok() ? "" : absl::StrCat(" (NVML: ", gpus.status().message(), ")")));
  const std::string dir = counters::StateDir();
  if (dir.empty()) {
    AddEvidence(&r, "fault-counters.window",
                "no state directory (NODEPROBE_STATE_DIR, systemd's StateDirectory= or "
                "/var/lib/nodeprobe-sweep): growth is judged by the agent during stages only");
    return r;
  }
  const std::string path = dir + "/fault-counters.json";
  absl::StatusOr<v1::CounterBaseline> before = counters::LoadBaseline(path);
  if (!before.ok()) {
    AddEvidence(&r, "fault-counters.window",
                absl::StrCat(before.status().message(), "; this reading is the baseline"));
  } else if (before->boot_id() != boot_id || TimeOf(before->taken()) >= now) {
    AddEvidence(&r, "fault-counters.window",
                "the last reading is from another boot: this reading is the baseline");
  } else {
    const absl::Duration over = now - TimeOf(before->taken());
    const FaultRules& rules = ctx.profile->Section<FaultRules>();
    kernel::JudgeAerGrowth(counters::AerOf(*before), counters::AerOf(after), over, rules, &r);
    kernel::JudgePortGrowth(counters::PortsOf(*before), counters::PortsOf(after), over,
                            ctx.profile->Section<TransferBars>().error_counters_grew, &r);
    counters::JudgeNvlinkGrowth(*before, after, over, rules, &r);
    AddEvidence(
        &r, "fault-counters.window",
        absl::StrFormat("growth since %s (%.1f h)", absl::FormatTime(TimeOf(before->taken())),
                        absl::ToDoubleHours(over)));
  }
  if (absl::Status saved = counters::SaveBaseline(path, after); !saved.ok()) {
    AddEvidence(&r, "fault-counters.saved", absl::StrCat("not kept: ", saved.message()));
  }
  return r;
}

}  // namespace nodeprobe
