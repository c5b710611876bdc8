#include "probes/roce_config/roce_config_findings.h"

namespace nodeprobe {

std::vector<FindingCode> RoceConfigFindings() {
  return {findings::kRoceRdmaPriorityNotLossless,
          findings::kRocePfcScopeTooWide,
          findings::kRoceEcnDisabled,
          findings::kRoceTrustMismatch,
          findings::kRoceTosMismatch,
          findings::kRoceConfigNotReadable};
}

}  // namespace nodeprobe
