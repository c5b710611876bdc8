#include "probes/shm/shm_findings.h"

namespace nodeprobe {

std::vector<FindingCode> ShmFindings() { return {findings::kShmNotUsable, findings::kShmTooSmall}; }

}  // namespace nodeprobe
