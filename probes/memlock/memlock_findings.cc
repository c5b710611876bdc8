#include "probes/memlock/memlock_findings.h"

namespace nodeprobe {

std::vector<FindingCode> MemlockFindings() { return {findings::kMemlockTooLow}; }

}  // namespace nodeprobe
