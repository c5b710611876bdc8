#include "coordinator/stages/storage_storm/storage_storm_findings.h"

namespace nodeprobe {

std::vector<FindingCode> StorageStormStageFindings() {
  return {findings::kStorageStormSlow, findings::kStorageStormLatency};
}

}  // namespace nodeprobe
