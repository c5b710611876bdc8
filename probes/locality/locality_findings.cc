#include "probes/locality/locality_findings.h"

namespace nodeprobe {

std::vector<FindingCode> LocalityFindings() {
  return {findings::kGpuNicNotLocal,       findings::kGpuNicNumaMismatch,
          findings::kNicSharedByGpus,      findings::kNoRdmaNicForGpu,
          findings::kNcclTopoFileMismatch, findings::kPcieVmLinkArtifact,
          findings::kGpuIndexMismatch};
}

}  // namespace nodeprobe
