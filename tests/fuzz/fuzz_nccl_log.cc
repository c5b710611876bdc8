// libFuzzer: the NCCL debug-log parser and its judge, on any bytes (logs
// come from any job, operators pipe them in). Never a crash; what it
// reports stays consistent with what it read and within its bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probes/framework/finding_codes.h"
#include "probes/nccl/nccl_log.h"
#include "probes/nccl/nccl_log_judge.h"

namespace np = nodeprobe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  np::v1::NcclLogReport r = np::nccl::ParseNcclLog(text);
  if (r.nccl_lines() > r.lines()) __builtin_trap();
  if (r.hosts_size() > 4096 || r.ranks_size() > 4096 || r.warnings_size() > 20) __builtin_trap();
  // The line splitter: the same bytes in pieces (cut where the input's own
  // bytes say) read as the same lines, whatever the line endings.
  np::nccl::NcclLogParser pieces;
  for (size_t at = 0; at < text.size();) {
    const size_t n = 1 + static_cast<uint8_t>(text[at]) % 13;
    pieces.AddText(text.substr(at, n));
    at += n;
  }
  pieces.Flush();
  const np::v1::NcclLogReport again = pieces.Report();
  if (again.lines() != r.lines() || again.nccl_lines() != r.nccl_lines() ||
      again.events_size() != r.events_size()) {
    __builtin_trap();
  }
  if (r.events_size() > 512) __builtin_trap();
  np::nccl::NcclLogContext c;
  c.rdma_expected = size % 2;
  c.rails["0000:07:00.0"] = {"mlx5_0"};
  np::v1::ProbeResult j = np::nccl::JudgeNcclLog(r, c);
  for (const np::v1::Finding& f : j.findings()) {
    if (!np::IsKnownFindingCode(f.code())) __builtin_trap();
  }
  return 0;
}
