#include "probes/gpu_diag/gpu_diag_findings.h"

namespace nodeprobe {

std::vector<FindingCode> GpuDiagFindings() {
  return {findings::kGpuDiagFailed,        findings::kGpuDiagWarned,
          findings::kGpuDiagNotRun,        findings::kGpuMemoryTestErrors,
          findings::kGpuHbmBandwidthLow,   findings::kGpuGemmBelowExpected,
          findings::kGpuThrottledUnderLoad};
}

}  // namespace nodeprobe
