#include "coordinator/stages/cluster/cluster_findings.h"

namespace nodeprobe {

std::vector<FindingCode> ClusterStageFindings() {
  return {findings::kSuspectNode, findings::kSuspectRail, findings::kSuspectLink,
          findings::kClusterIncomplete};
}

}  // namespace nodeprobe
