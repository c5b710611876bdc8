#include "probes/nccl/nccl_findings.h"

namespace nodeprobe {

std::vector<FindingCode> NcclFindings() {
  return {findings::kTaskFailed,
          findings::kNcclFellBackToSockets,
          findings::kNcclGdrOff,
          findings::kNcclHcaMismatch,
          findings::kNcclLogEmpty,
          findings::kNcclMemoryRegistrationFailed,
          findings::kNcclShmFailed,
          findings::kNcclTransportFailed,
          findings::kNcclJobTimeout,
          findings::kNcclJobError,
          findings::kNcclJobKilled,
          findings::kNcclLogWarnings,
          findings::kNcclTestsFigureInvalid,
          findings::kNcclVersionsDiffer,
          findings::kBarNotApplied,
          findings::kNcclWrongResult,
          findings::kNcclBusbwBelowExpected,
          findings::kNcclBusbwBelowHardware,
          findings::kNcclTimeout,
          findings::kNcclAsyncError,
          findings::kNcclInitFailed};
}

}  // namespace nodeprobe
