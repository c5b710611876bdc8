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
  np::nccl::NcclLogContext c;
  c.rdma_expected = size % 2;
  c.rails["0000:07:00.0"] = {"mlx5_0"};
  np::v1::ProbeResult j = np::nccl::JudgeNcclLog(r, c);
  for (const np::v1::Finding& f : j.findings()) {
    if (!np::IsKnownFindingCode(f.code())) __builtin_trap();
  }
  return 0;
}
