#include "cli/kernel_log_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "agent/kernel_watch.h"
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

// What a character device may give before it is cut off (/dev/zero never
// ends; /dev/kmsg's ring is at most a few MiB).
constexpr size_t kMaxDeviceBytes = 64 << 20;

// /dev/kmsg, or any character device: read without blocking to its end, as
// dmesg does (each read() of /dev/kmsg is one record, turned into a dmesg
// line), at most kMaxDeviceBytes. nullopt when `file` is not one.
std::optional<absl::Status> ReadKernelDevice(const std::string& file,
                                             kernel::KernelLogReader* reader) {
  if (file == "/proc/kmsg") {
    return absl::InvalidArgumentError(
        "/proc/kmsg: reading it takes the messages away from syslog and blocks; pass /dev/kmsg "
        "(needs CAP_SYSLOG) or `dmesg | nodeprobe kernel-log -`");
  }
  struct stat st;
  if (file == "-" || stat(file.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return std::nullopt;
  const int fd = open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        file, ": cannot be read (", strerror(errno),
        errno == EPERM || errno == EACCES ? "; /dev/kmsg needs root or CAP_SYSLOG" : "",
        "); or pipe it: `dmesg | nodeprobe kernel-log -`"));
  }
  std::vector<char> buf(64 * 1024);
  size_t total = 0;
  while (total < kMaxDeviceBytes) {
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) continue;  // a record overwritten while we read: skip it
    if (n <= 0) break;                      // EAGAIN: the end of the ring; 0: end of file
    total += static_cast<size_t>(n);
    absl::string_view chunk(buf.data(), static_cast<size_t>(n));
    for (absl::string_view record : absl::StrSplit(chunk, '\n', absl::SkipEmpty())) {
      const agent::KmsgLine line = agent::FromKmsgRecord(record);
      if (!line.line.empty()) reader->AddLine(line.line);
    }
  }
  close(fd);
  return absl::OkStatus();
}

int RunKernelLog(const KernelLogOptions& o) {
  absl::StatusOr<Profile> profile = LoadProfileWarning(o.profile_path);
  if (!profile.ok()) return controlplane::StatusExit(profile.status());
  kernel::KernelLogReader reader;
  if (std::optional<absl::Status> device = ReadKernelDevice(o.file, &reader)) {
    if (!device->ok()) return controlplane::StatusExit(*device);
  } else if (absl::Status read = ReadLogInput(o.file, ", e.g. `dmesg | nodeprobe kernel-log -`",
                                              [&](std::istream& in) { reader.AddStream(in); });
             !read.ok()) {
    return controlplane::StatusExit(read);
  }
  v1::ProbeResult result = kernel::JudgeKernelLog(reader, profile->Section<FaultRules>());
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
  cmd->add_option("file", o->file,
                  "The log file, - for stdin (`dmesg | nodeprobe kernel-log -`, `journalctl -k "
                  "| ...`), or /dev/kmsg (read to its end, needs CAP_SYSLOG)")
      ->required();
  cmd->add_option("--format", o->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--profile", o->profile_path,
                  "Acceptance profile: its exceptions apply to the findings, and "
                  "faults.aer_corrected_max_per_hour to corrected PCIe errors");
  return [=]() -> int { return cmd->parsed() ? RunKernelLog(*o) : -1; };
}

}  // namespace nodeprobe::cli
