// libFuzzer: the kernel log reader and its judge, on any bytes (logs come
// from any host; operators pipe dmesg in). Never a crash; what it reports
// stays within its bounds and consistent with what it read.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "probes/framework/finding_codes.h"
#include "probes/kernel_events/kernel_log.h"
#include "probes/kernel_events/kernel_log_judge.h"

namespace np = nodeprobe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  np::kernel::KernelLogReader reader;
  reader.AddStream(in);
  const np::v1::KernelLogReport& r = reader.report();
  if (r.events_size() > static_cast<int>(np::kernel::KernelLogReader::kMaxEvents)) __builtin_trap();
  if (reader.tallies().size() > np::kernel::KernelLogReader::kMaxTallies) __builtin_trap();
  if (static_cast<uint64_t>(r.events_size()) + r.events_dropped() > r.lines()) __builtin_trap();
  uint64_t counted = 0;
  for (const auto& [key, t] : reader.tallies()) counted += t.count;
  if (counted != static_cast<uint64_t>(r.events_size()) + r.events_dropped()) __builtin_trap();
  const np::v1::ProbeResult j = np::kernel::JudgeKernelLog(reader);
  for (const np::v1::Finding& f : j.findings()) {
    if (!np::IsKnownFindingCode(f.code())) __builtin_trap();
  }
  (void)np::kernel::ParseAerCounters(text);
  return 0;
}
