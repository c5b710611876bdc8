#include "probes/gpudirect/gpudirect_findings.h"

namespace nodeprobe {

std::vector<FindingCode> GpudirectFindings() {
  return {findings::kGdrNotAvailable, findings::kAcsEnabledOnGpuNicPath,
          findings::kGdrStateNotCaptured, findings::kAcsStateUnknown,
          findings::kIommuTranslationEnabled};
}

}  // namespace nodeprobe
