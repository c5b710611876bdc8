#include "probes/gpu/gpu_findings.h"

namespace nodeprobe {

std::vector<FindingCode> GpuFindings() {
  return {findings::kGpuUnreadable,          findings::kGpuRowRemapFailed,
          findings::kGpuRemapPending,        findings::kGpuEccUncorrected,
          findings::kGpuEccDisabled,         findings::kGpuThrottled,
          findings::kGpuNvlinkDown,          findings::kGpuBusy,
          findings::kGpuPcieBwBelowExpected, findings::kGpuCopyFailed};
}

}  // namespace nodeprobe
