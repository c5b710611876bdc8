// File: kernel_log.h
// Hardware events in a kernel log, whatever wrote it: /dev/kmsg records
// ("<6>[  14.95] ..."), dmesg ("[ 219.47] "), dmesg -T ("[Fri Aug 30 11:43:09
// 2024] "), dmesg --time-format=iso with --decode ("kern  :warn  : 2025-01-
// 21T04:41:44,283302+00:00 "), syslog and journal lines ("Dec  2 11:38:47
// host kernel: ..."). Lines are recognised by what the driver prints, not by
// the prefix:
//   NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, name=pt_main_thread, ...
//   nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, ...
//   NVRM: GPU 0000:09:00.0: GPU has fallen off the bus.
//   pcieport 0000:00:1c.5: AER: PCIe Bus Error: severity=Corrected, type=...
//   pcieport 0000:00:1c.5: AER:    [ 0] RxErr   (the error bits that follow)
//   mlx5_core 0000:41:00.0 enp65s0f0np0: Link up / Link down
//   mlx5_core 0004:01:00.0: Port module event: module 0, Cable plugged
// Memory is bounded whatever the log holds: lines past 64 KiB are cut, the
// first kMaxEvents events are kept and the rest only counted.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "absl/strings/string_view.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::kernel {

// One line's event, or none (kind empty).
// A `journalctl -o json` line: the kernel's MESSAGE (an array of bytes
// decoded), with its monotonic time as dmesg prints it; "" for another
// transport's line (a program's); nullopt when the line is not one.
std::optional<std::string> FromJournalJson(absl::string_view line);

// A line as the parsers read it: SGR colour codes (dmesg --color=always)
// removed, tabs made spaces.
std::string Normalized(absl::string_view raw);
// The program tag of an RFC 3164 syslog line ("Dec  2 11:38:47 host
// kernel: ..." is "kernel", "... host root: ..." is "root"); "" when the
// line is not one.
std::string SyslogTag(absl::string_view line);

v1::KernelEvent ParseKernelLine(absl::string_view line);

// A PCIe function's AER counters (sysfs aer_dev_correctable, _nonfatal,
// _fatal: "Receiver Error 2" per line, then "TOTAL_ERR_COR 2") as name ->
// count; lines that are not "NAME COUNT" are skipped.
std::map<std::string, uint64_t> ParseAerCounters(absl::string_view text);

// A `when` (KernelEvent.when) in seconds on the log's own clock: since
// boot for dmesg/kmsg ("219.470994"), since the epoch for dmesg -T ("Fri
// Aug 30 11:43:09 2024") and ISO ("2025-01-21T04:41:44,283302+00:00"), and
// within an unnamed year for syslog ("Dec  2 11:38:47 host"). Only
// differences within one log mean anything; nullopt when it does not parse.
std::optional<double> WhenSeconds(absl::string_view when);

class KernelLogReader {
 public:
  static constexpr size_t kMaxEvents = 1000;
  static constexpr size_t kMaxLine = 64 * 1024;
  static constexpr size_t kMaxTallies = 10000;

  void AddLine(absl::string_view line);
  void AddStream(std::istream& in);

  // How often each (kind, device, code) happened, with the first of them.
  struct Tally {
    uint64_t count = 0;
    v1::KernelEvent first;
    std::map<std::string, uint64_t> bits;  // AER: error bit -> times
    // WhenSeconds of the earliest and latest event; -1 when no event had a
    // time that parses.
    double first_s = -1;
    double last_s = -1;
  };
  using Key = std::tuple<std::string, std::string, int32_t>;
  const std::map<Key, Tally>& tallies() const { return tallies_; }
  const v1::KernelLogReport& report() const { return report_; }

 private:
  void Record(v1::KernelEvent event);

  v1::KernelLogReport report_;
  std::map<Key, Tally> tallies_;
  // The AER event whose bit lines may follow, by device.
  std::map<std::string, Key> open_aer_;
  std::string xid_head_;  // an Xid line cut before its code, awaiting the rest
  int open_aer_event_ = -1;  // its index in report_.events, -1 none kept
};

}  // namespace nodeprobe::kernel
