#include "platform/node_busy.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/nvml.h"

namespace nodeprobe::platform {
namespace {

// A process's command line with its NULs as spaces ("" when unreadable).
std::string CommandLine(const FileTree& proc, const std::string& pid) {
  absl::StatusOr<std::string> raw = proc.ReadBytes(pid + "/cmdline", 4096);
  if (!raw.ok()) return "";
  std::string s = *raw;
  for (char& c : s) {
    if (c == '\0') c = ' ';
  }
  return std::string(absl::StripAsciiWhitespace(s));
}

// One look: Slurm's job steps, then the GPUs' compute processes.
std::vector<std::string> SeenOnce(const FileTree& proc) {
  std::vector<std::string> out = SlurmJobsRunning(proc);
  if (absl::StatusOr<v1::GpuReport> gpus = ReadNvmlGpus(); gpus.ok()) {
    for (std::string& p : GpuProcessesRunning(*gpus, proc)) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<std::string> SlurmJobsRunning(const FileTree& proc) {
  std::vector<std::string> out;
  absl::StatusOr<std::vector<std::string>> entries = proc.ListDir("");
  if (!entries.ok()) return out;
  std::set<std::string> jobs;
  for (const std::string& pid : *entries) {
    uint32_t n = 0;
    if (!absl::SimpleAtoi(pid, &n)) continue;
    absl::StatusOr<std::string> comm = proc.ReadValue(pid + "/comm");
    if (!comm.ok() || *comm != "slurmstepd") continue;
    // "slurmstepd: [1234.batch]", "slurmstepd: [1234.extern]", "[1234.0]".
    const std::string title = CommandLine(proc, pid);
    std::string job = "?";
    if (size_t open = title.find('['); open != std::string_view::npos) {
      std::string_view id = std::string_view(title).substr(open + 1);
      id = id.substr(0, id.find_first_of(".]"));
      if (!id.empty()) job = std::string(id);
    }
    if (jobs.insert(job).second) {
      out.push_back(absl::StrCat("Slurm job ", job, " (slurmstepd pid ", pid, ")"));
    }
  }
  return out;
}

std::vector<std::string> GpuProcessesRunning(const v1::GpuReport& gpus, const FileTree& proc) {
  std::vector<std::string> out;
  for (const v1::GpuInfo& g : gpus.gpus()) {
    if (g.compute_pids_size() == 0 && g.compute_processes() > 0) {
      out.push_back(absl::StrCat("GPU ", g.bus_id(), ": ", g.compute_processes(),
                                 " compute process(es)"));
    }
    for (uint32_t pid : g.compute_pids()) {
      absl::StatusOr<std::string> comm = proc.ReadValue(absl::StrCat(pid, "/comm"));
      out.push_back(absl::StrCat("GPU ", g.bus_id(), ": pid ", pid,
                                 comm.ok() ? absl::StrCat(" (", *comm, ")") : ""));
    }
  }
  return out;
}

std::vector<std::string> WhatKeepsNodeBusy(const HostPaths& host, absl::Duration confirm) {
  if (host.IsCaptured()) return {};
  const FileTree proc(host.proc_root);
  std::vector<std::string> first = SeenOnce(proc);
  if (first.empty()) return first;
  absl::SleepFor(confirm);
  const std::vector<std::string> again = SeenOnce(proc);
  std::vector<std::string> out;
  for (std::string& s : first) {
    if (std::find(again.begin(), again.end(), s) != again.end()) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace nodeprobe::platform
