#include "probes/framework/framework_findings.h"

namespace nodeprobe {

std::vector<FindingCode> FrameworkFindings() {
  return {findings::kProbeCouldNotRun,
          findings::kProbeDeadlineExceeded,
          findings::kTaskTimeout,
          findings::kUnknownTask,
          findings::kProfileInvalid,
          findings::kSysfsValueInvalid,
          findings::kRocePauseStorm,
          findings::kNcclStopped,
          findings::kNodeBusy,
          findings::kTransferServeFailed,
          findings::kRdmaErrorCountersGrew,
          findings::kFailureRefused,
          findings::kSoakUnstable,
          findings::kSoakDrift,
          findings::kFailureNotRestored};
}

}  // namespace nodeprobe
