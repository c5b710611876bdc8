#include "agent/kernel_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <optional>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "probes/fault_counters/counter_baseline.h"
#include "probes/framework/result_util.h"
#include "probes/kernel_events/kernel_log.h"
#include "probes/kernel_events/kernel_log_judge.h"
#include "probes/kernel_events/xid_catalog.h"
#include "probes/transfer/transfer_profile.h"

namespace nodeprobe::agent {
namespace {

// Events that outlast any window: the GPU is unusable until it is reset.
bool LastsUntilReset(const v1::KernelEvent& e) {
  if (e.kind() == "fell_off_bus" || e.kind() == "reset_required") return true;
  return e.kind() == "xid" && kernel::LookupXid(e.code()).needs_reset;
}

int64_t MonotonicMicros() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace

KmsgLine FromKmsgRecord(absl::string_view record) {
  KmsgLine out;
  if (!record.empty() && record.front() == ' ') return out;  // a dictionary line
  // "PRI,SEQ,USEC,FLAGS[,...];MESSAGE" (the kernel's Documentation/ABI
  // dev-kmsg): anything else is a line as it came.
  const size_t semi = record.find(';');
  const size_t first_space = record.find(' ');
  if (semi != absl::string_view::npos &&
      (first_space == absl::string_view::npos || semi < first_space)) {
    std::vector<absl::string_view> head = absl::StrSplit(record.substr(0, semi), ',');
    int64_t number = 0, usec = 0;  // priority and sequence: numbers, not kept
    if (head.size() >= 3 && absl::SimpleAtoi(head[0], &number) &&
        absl::SimpleAtoi(head[1], &number) && absl::SimpleAtoi(head[2], &usec) && usec >= 0) {
      out.monotonic_us = usec;
      out.line =
          absl::StrFormat("[%5d.%06d] %s", usec / 1000000, usec % 1000000, record.substr(semi + 1));
      return out;
    }
  }
  out.line = std::string(record);
  return out;
}

KernelWatch::KernelWatch(Options options) : options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<KernelWatch>> KernelWatch::Start(Options options) {
  int fd = open(options.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
    // Held open for writing too, so writers coming and going never end it.
    close(fd);
    fd = open(options.path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  }
  if (fd < 0) {
    const int err = errno;
    const std::string why =
        absl::StrCat("cannot read the kernel log ", options.path, ": ", strerror(err));
    if (err == EACCES || err == EPERM) {
      return absl::PermissionDeniedError(
          absl::StrCat(why, " (the agent needs root or CAP_SYSLOG for /dev/kmsg)"));
    }
    return absl::NotFoundError(why);
  }
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(options.path, " is a directory: --kmsg takes /dev/kmsg, a FIFO or a file"));
  }
  auto w = std::make_unique<KernelWatch>(std::move(options));
  w->fd_ = fd;  // closed by the watch from here on
  if (!w->stop_.ok()) return absl::InternalError(absl::StrCat("eventfd: ", strerror(errno)));
  // The baseline for the first stage: sysfs now; the GPUs' (a worker that
  // may take seconds to load NVML) first thing on the reader's thread.
  if (!w->options_.sys_root.empty()) {
    platform::MutexLock l(&w->mu_);
    w->Keep(absl::Now(), w->ReadCounters(/*with_gpus=*/false));
  }
  w->reader_ = std::thread([p = w.get()] {
    if (p->options_.read_gpus) p->SampleCounters();
    p->Follow();
  });
  return w;
}

KernelWatch::~KernelWatch() {
  stop_.Raise();
  if (reader_.joinable()) reader_.join();
  if (fd_ >= 0) close(fd_);
}

void KernelWatch::Follow() {
  std::string pending;  // a line so far; past kMaxLineBytes the rest is dropped
  char buf[8192];       // more than one kmsg record (a read gives one, whole)
  auto line_done = [&] {
    const KmsgLine k = FromKmsgRecord(pending);
    pending.clear();
    if (k.line.empty()) return;
    const absl::Time at =
        k.monotonic_us < 0 ? absl::Now()
                           : absl::Now() - absl::Microseconds(MonotonicMicros() - k.monotonic_us);
    AddLine(k.line, at);
  };
  absl::Time sampled = absl::Now();
  while (true) {
    const platform::StopSignal::Woken woken = stop_.WaitReadable(fd_, 1000);
    if (woken == platform::StopSignal::Woken::kFailed) {
      return Stopped(absl::StrCat("poll: ", strerror(errno)));
    }
    if (woken == platform::StopSignal::Woken::kStopped) {
      if (!pending.empty()) line_done();  // a last line without its newline
      return;
    }
    if (absl::Now() - sampled >= options_.sample_every) {
      SampleCounters();
      sampled = absl::Now();
    }
    if (woken == platform::StopSignal::Woken::kTimedOut) {  // quiet: look for reset GPUs
      // A writer quiet for a second after a line without its newline (a
      // FIFO's last line): that line is whole.
      if (!pending.empty()) line_done();
      platform::MutexLock l(&mu_);
      ClearReappeared();
      continue;
    }
    const ssize_t got = read(fd_, buf, sizeof(buf));
    if (got < 0) {
      // EPIPE: kmsg overwrote records before we read them; go on.
      if (errno == EAGAIN || errno == EINTR || errno == EPIPE) continue;
      return Stopped(absl::StrCat("read: ", strerror(errno)));
    }
    if (got == 0) {  // a file's end: look again in a second, like tail -f
      if (!pending.empty()) line_done();  // its last line, without a newline
      if (stop_.WaitRaised(1000)) return;
      continue;
    }
    for (ssize_t i = 0; i < got; ++i) {
      if (buf[i] == '\n') {
        line_done();
      } else if (pending.size() < kMaxLineBytes) {
        pending.push_back(buf[i]);
      }
    }
  }
}

void KernelWatch::Stopped(const std::string& why) {
  // Said once here and in every answer after: never a silent gap.
  std::cerr << "nodeprobe agent: stopped following " << options_.path << " (" << why
            << "); stages will not see kernel events until the agent restarts\n";
  platform::MutexLock l(&mu_);
  stopped_ = why;
}

void KernelWatch::AddLine(absl::string_view line, absl::Time at) {
  if (line.size() > kMaxLineBytes) line = line.substr(0, kMaxLineBytes);
  const v1::KernelEvent e = kernel::ParseKernelLine(line);
  if (e.kind().empty()) return;
  {
    platform::MutexLock l(&mu_);
    ring_.push_back(Seen{at, std::string(line)});
    if (ring_.size() > kMaxEvents) {
      ring_.pop_front();
      ++dropped_;
    }
    if (LastsUntilReset(e) && sticky_.count(e.device()) == 0) {
      sticky_.emplace(e.device(), Sticky{Seen{at, std::string(line)}, false});
    }
  }
  if (e.kind() != "aer_bit" && options_.on_event) options_.on_event(e);
}

KernelWatch::Counters KernelWatch::ReadCounters(bool with_gpus) const {
  Counters c;
  if (!options_.sys_root.empty()) {
    const platform::FileTree sys(options_.sys_root);
    c.aer = kernel::ReadAerCounters(sys);
    c.ports = kernel::ReadPortErrorCounters(sys);
  }
  std::optional<v1::GpuReport> read;
  if (with_gpus && options_.read_gpus) read = options_.read_gpus();
  if (read) {
    c.gpus.emplace();
    for (const v1::GpuInfo& g : read->gpus()) {
      v1::GpuInfo* kept = c.gpus->add_gpus();
      kept->set_bus_id(g.bus_id());
      *kept->mutable_nvlink_errors() = g.nvlink_errors();
    }
  }
  return c;
}

void KernelWatch::SampleCounters() {
  if (!Samples()) return;  // nothing to sample
  Counters now = ReadCounters();
  platform::MutexLock l(&mu_);
  Keep(absl::Now(), std::move(now));
}

void KernelWatch::Keep(absl::Time at, Counters snapshot) {
  if (!samples_.empty() && samples_.back().second == snapshot) return;
  samples_.emplace_back(at, std::move(snapshot));
  if (samples_.size() > kMaxSamples) samples_.pop_front();
}

void KernelWatch::ClearReappeared() {
  for (auto it = sticky_.begin(); it != sticky_.end();) {
    // Xid lines name the GPU without its function ("0000:cb:00").
    const std::string& dev = it->first;
    const bool present = platform::FileTree(options_.sys_root)
                             .Exists(absl::StrCat("bus/pci/devices/", dev,
                                                  dev.size() == 10 ? ".0" : ""));
    if (!present) {
      it->second.gone = true;
    } else if (it->second.gone) {
      it = sticky_.erase(it);
      continue;
    }
    ++it;
  }
}

v1::ProbeResult KernelWatch::Window(absl::Duration window, const Profile& profile) {
  const absl::Time now = absl::Now();
  const absl::Time since = now - window;
  kernel::KernelLogReader reader;
  std::vector<std::string> waiting;
  uint64_t dropped = 0;
  const Counters counters = ReadCounters();
  std::optional<std::pair<absl::Time, Counters>> baseline;
  std::string stopped;
  {
    platform::MutexLock l(&mu_);
    // The counters as they stood when the window began: the newest
    // snapshot at or before it, else the oldest kept.
    for (const auto& s : samples_) {
      if (!baseline || s.first <= since) baseline = s;
      if (s.first > since) break;
    }
    if (Samples()) Keep(now, counters);
    ClearReappeared();
    for (const auto& [device, s] : sticky_) {
      if (s.first.at >= since) continue;  // in the window anyway
      reader.AddLine(s.first.line);
      waiting.push_back(absl::StrCat(device, " since ", absl::FormatTime(s.first.at)));
    }
    for (const Seen& s : ring_) {
      if (s.at >= since) reader.AddLine(s.line);
    }
    dropped = dropped_;
    stopped = stopped_;
  }
  v1::ProbeResult r = kernel::JudgeKernelLog(reader, profile.Section<FaultRules>());
  r.set_probe("kernel-events");
  if (!stopped.empty()) {
    (*r.mutable_evidence())["kernel-events.stopped"] =
        absl::StrCat("the agent stopped following ", options_.path, " (", stopped,
                     "): events after that are not here");
  }
  if (baseline) {
    const absl::Duration over = now - baseline->first;
    kernel::JudgeAerGrowth(baseline->second.aer, counters.aer, over, profile.Section<FaultRules>(),
                           &r);
    kernel::JudgePortGrowth(baseline->second.ports, counters.ports, over,
                            profile.Section<TransferBars>().error_counters_grew, &r);
    int links = 0;
    if (counters.gpus) {
      for (const v1::GpuInfo& g : counters.gpus->gpus()) links += g.nvlink_errors_size();
    }
    // NVLink growth once a reading before the window exists (the first is
    // taken on the reader's thread, moments after the agent starts).
    if (baseline->second.gpus && counters.gpus) {
      counters::JudgeNvlinkGrowth(
          counters::MakeBaseline(baseline->first, "", {}, {}, &*baseline->second.gpus),
          counters::MakeBaseline(now, "", {}, {}, &*counters.gpus), over,
          profile.Section<FaultRules>(), &r);
    }
    (*r.mutable_evidence())["kernel-events.counters"] = absl::StrFormat(
        "%d PCIe functions with AER counters, %d RDMA ports and %d NVLinks, growth over the last "
        "%.0f s",
        counters.aer.size(), counters.ports.size(), links, absl::ToDoubleSeconds(over));
  }
  (*r.mutable_evidence())["kernel-events.source"] = options_.path;
  (*r.mutable_evidence())["kernel-events.window"] =
      absl::StrFormat("the last %.0f s", absl::ToDoubleSeconds(window));
  if (!waiting.empty()) {
    (*r.mutable_evidence())["kernel-events.waiting_for_reset"] = absl::StrJoin(waiting, "; ");
  }
  if (dropped > 0) {
    (*r.mutable_evidence())["kernel-events.ring_dropped"] = absl::StrCat(dropped);
  }
  if (reader.report().lines() == 0) {  // not "nothing to judge": a quiet window
    r.set_verdict(v1::PASS);           // (FinalizeResult: the counters' findings decide)
    r.set_reason(r.findings_size() > 0
                     ? ""
                     : absl::StrFormat("no hardware event in the kernel log in the last %.0f s",
                                       absl::ToDoubleSeconds(window)));
  }
  return r;
}

}  // namespace nodeprobe::agent
