// File: kernel_log_command.cc
#include "cli/kernel_log_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/json_output.h"
#include "cli/log_input.h"
#include "cli/safe_text.h"
#include "cli/table_renderer.h"
#include "controlplane/exit_codes.h"
#include "probes/framework/profile.h"
#include "probes/framework/stage_runner.h"
#include "probes/kernel_events/kernel_log.h"
#include "probes/kernel_events/kernel_log_judge.h"

namespace nodeprobe::cli {
namespace {

struct KernelLogOptions {
  std::string file;
  std::string format = "table";
  std::string profile_path;
};

// One row per device and kind: how often, the codes or bits, the first time.
std::string RenderKernelLog(const kernel::KernelLogReader& reader, const v1::ProbeResult& r) {
  const v1::KernelLogReport& k = reader.report();
  std::string out = absl::StrCat(
      " ", k.lines(), " lines, ", k.events_size() + k.events_dropped(), " hardware events",
      k.lines_too_long() ? absl::StrCat(", ", k.lines_too_long(), " lines cut at 64 KiB") : "",
      "\n");
  if (!reader.tallies().empty()) {
    absl::StrAppend(&out, absl::StrFormat("  %-18s %-14s %-8s %7s  %s\n", "device", "event", "code",
                                          "count", "first"));
  }
  for (const auto& [key, t] : reader.tallies()) {
    const auto& [kind, device, code] = key;
    std::string what = kind == "aer" ? t.first.severity() : std::to_string(code);
    if (kind != "xid" && kind != "sxid" && kind != "aer") what = "-";
    std::vector<std::string> bits;
    for (const auto& [bit, n] : t.bits) bits.push_back(absl::StrCat(bit, " x", n));
    absl::StrAppend(
        &out, absl::StrFormat("  %-18s %-14s %-8s %7d  line %d%s%s\n", device, kind, what, t.count,
                              t.first.line(), t.first.when().empty() ? "" : " " + t.first.when(),
                              bits.empty() ? "" : " (" + absl::StrJoin(bits, ", ") + ")"));
  }
  return TerminalSafe(out + RenderVerdictAndFindings(r));
}

int RunKernelLog(const KernelLogOptions& o) {
  absl::StatusOr<Profile> profile = LoadProfileWarning(o.profile_path);
  if (!profile.ok()) return controlplane::StatusExit(profile.status());
  kernel::KernelLogReader reader;
  if (absl::Status read = ReadLogInput(o.file, ", e.g. `dmesg | nodeprobe kernel-log -`",
                                       [&](std::istream& in) { reader.AddStream(in); });
      !read.ok()) {
    return controlplane::StatusExit(read);
  }
  v1::ProbeResult result = kernel::JudgeKernelLog(reader, FaultRulesOf(*profile));
  FinalizeResult(*profile, &result);
  if (!PrintAs(o.format, result, [&] { return RenderKernelLog(reader, result); }))
    return controlplane::kExitCouldNotRun;
  return controlplane::ExitCodeForVerdict(result.verdict());
}

}  // namespace

std::function<int()> AddKernelLogCommand(CLI::App& app) {
  auto o = std::make_shared<KernelLogOptions>();
  CLI::App* cmd = app.add_subcommand(
      "kernel-log",
      "Read the hardware events in a kernel log (dmesg, dmesg -T or --time-format=iso, "
      "journal, syslog, /dev/kmsg): NVIDIA Xid and SXid with the code's meaning and action, "
      "GPUs off the bus or needing a reset, PCIe AER errors with their bits, NIC link flaps. "
      "Exit 0 clean, 1 FAIL, 2 bad input, 3 nothing to judge.");
  cmd->add_option("file", o->file, "The log file, or - for stdin")->required();
  cmd->add_option("--format", o->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--profile", o->profile_path,
                  "Acceptance profile: its exceptions apply to the findings, and "
                  "faults.aer_corrected_max_per_hour to corrected PCIe errors");
  return [=]() -> int { return cmd->parsed() ? RunKernelLog(*o) : -1; };
}

}  // namespace nodeprobe::cli
