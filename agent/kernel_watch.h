// File: kernel_watch.h
// The agent's eye on the kernel log: it follows /dev/kmsg (or a FIFO or a
// file given as --kmsg, for tests and captures), keeps the hardware events
// (probes/kernel_events/kernel_log.h: Xid, SXid, off the bus, AER, NIC link
// flaps) in a bounded ring stamped with when they happened, and answers
// "what happened in the last N seconds" judged exactly as `nodeprobe
// kernel-log` judges a file: the coordinator asks that at the end of every
// stage, so a stage during which a GPU threw an Xid is not PASS.
//
// Some events last longer than any window: a GPU off the bus or one whose
// Xid needs a reset stays unusable until it is reset. Those stay in every
// answer until their PCI function is seen gone from and back in
// /sys/bus/pci/devices (remove and rescan, a reset, NVIDIA's recovery for
// Xid 79) or the node reboots (the ring starts again from /dev/kmsg's
// records, which begin at boot): cleared by the rule, not by time.
//
// Beside the log, the PCIe AER counters (probes/kernel_events/
// aer_counters.h) and the RDMA ports' link and symbol error counters
// (port_counters.h) are sampled every minute, and each answer judges their
// growth over the window too: the counters see what a rate-limited or
// rotated log misses, and flaps between transfers.
//
// Bounded whatever the kernel says: kMaxEvents lines of kMaxLineBytes, and
// kMaxSamples counter snapshots (kept only when they changed).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/gpu.pb.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/mutex.h"
#include "platform/stop_signal.h"
#include "probes/framework/profile.h"
#include "probes/kernel_events/aer_counters.h"
#include "probes/kernel_events/port_counters.h"

namespace nodeprobe::agent {

// A /dev/kmsg record ("6,1234,5140900,-;NVRM: Xid ...") as a dmesg line
// ("[    5.140900] NVRM: Xid ..."), with the record's monotonic time in
// microseconds; other lines come back as they are, with no time. A kmsg
// dictionary line (" SUBSYSTEM=pci") is "" (nothing to read).
struct KmsgLine {
  std::string line;
  int64_t monotonic_us = -1;  // -1: not a kmsg record
};
KmsgLine FromKmsgRecord(absl::string_view record);

class KernelWatch {
 public:
  static constexpr size_t kMaxEvents = 4000;
  static constexpr size_t kMaxLineBytes = 1024;
  static constexpr size_t kMaxSamples = 64;

  struct Options {
    std::string path = "/dev/kmsg";
    // Where the PCI functions are (bus/pci/devices: a sticky event's GPU,
    // the AER counters); tests: a tree. "" reads no counters.
    std::string sys_root = "/sys";
    absl::Duration sample_every = absl::Seconds(60);
    // Every recognised event as it arrives (the agent's /metrics).
    std::function<void(const v1::KernelEvent&)> on_event;
    // The GPUs' NVLink error counters, sampled with the others: NVML as a
    // worker reads it (the agent never loads NVML); nullopt: none here.
    std::function<std::optional<v1::GpuReport>()> read_gpus;
  };

  // Opens `options.path` and follows it on a thread of its own until the
  // watch is destroyed. NOT_FOUND / PERMISSION_DENIED when it cannot read.
  static absl::StatusOr<std::unique_ptr<KernelWatch>> Start(Options options);
  // A watch fed only through AddLine (tests).
  explicit KernelWatch(Options options);
  ~KernelWatch();

  // One line as if read at `at`.
  void AddLine(absl::string_view line, absl::Time at);

  // Probe "kernel-events": the events of the last `window` and those still
  // waiting for a reset, judged (kernel_log_judge.h), and the AER counters'
  // growth since the window began (from the newest snapshot at or before
  // its start, else the oldest kept); verdict left to FinalizeResult.
  v1::ProbeResult Window(absl::Duration window, const Profile& profile = Profile());

  // Reads the counters now and keeps them if they changed.
  void SampleCounters();

 private:
  // The hardware's error counters at one moment.
  struct Counters {
    kernel::AerSnapshot aer;
    kernel::PortSnapshot ports;
    // Each GPU's bus id and NVLink error counters, nothing else (so that
    // equal counters compare equal).
    std::optional<v1::GpuReport> gpus;
    bool operator==(const Counters& o) const {
      return aer == o.aer && ports == o.ports && gpus.has_value() == o.gpus.has_value() &&
             (!gpus || gpus->SerializeAsString() == o.gpus->SerializeAsString());
    }
  };
  // Whether there are counters to sample at all.
  bool Samples() const { return !options_.sys_root.empty() || options_.read_gpus != nullptr; }
  Counters ReadCounters(bool with_gpus = true) const;
  struct Seen {
    absl::Time at;
    std::string line;
  };
  struct Sticky {
    Seen first;
    bool gone = false;  // its PCI function was missing at a look
  };
  void Follow();
  // Follow() ended on an error: said on stderr and in every answer.
  void Stopped(const std::string& why);
  // Drops the sticky events whose device came back (see above).
  void ClearReappeared() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Keep(absl::Time at, Counters snapshot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Options options_;
  int fd_ = -1;
  platform::StopSignal stop_;  // raised once to end Follow()
  std::thread reader_;
  platform::Mutex mu_;
  std::deque<Seen> ring_ ABSL_GUARDED_BY(mu_);
  uint64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  std::string stopped_ ABSL_GUARDED_BY(mu_);  // why Follow() ended early ("" it did not)
  std::map<std::string, Sticky> sticky_ ABSL_GUARDED_BY(mu_);  // by device
  std::deque<std::pair<absl::Time, Counters>> samples_ ABSL_GUARDED_BY(mu_);
};

}  // namespace nodeprobe::agent
