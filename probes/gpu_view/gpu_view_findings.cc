#include "probes/gpu_view/gpu_view_findings.h"

namespace nodeprobe {

std::vector<FindingCode> GpuViewFindings() {
  return {findings::kGpuGrantNotVisible, findings::kGpuGrantExceeded,
          findings::kGpuNearestNicNotVisible, findings::kNcclGdrLevelExcludesNic};
}

}  // namespace nodeprobe
