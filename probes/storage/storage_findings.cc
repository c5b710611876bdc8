#include "probes/storage/storage_findings.h"

namespace nodeprobe {

std::vector<FindingCode> StorageFindings() {
  return {findings::kStoragePathUnusable, findings::kStorageNotMeasured,
          findings::kStorageWriteSlow,    findings::kStorageCheckpointSlow,
          findings::kStorageReadSlow,     findings::kStorageMetadataSlow};
}

}  // namespace nodeprobe
