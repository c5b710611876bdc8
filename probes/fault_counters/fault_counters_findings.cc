#include "probes/fault_counters/fault_counters_findings.h"

namespace nodeprobe {

std::vector<FindingCode> FaultCountersFindings() { return {findings::kGpuNvlinkErrors}; }

}  // namespace nodeprobe
