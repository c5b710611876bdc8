#include "probes/kernel_events/kernel_events_findings.h"

namespace nodeprobe {

std::vector<FindingCode> KernelEventsFindings() {
  return {findings::kGpuXid,           findings::kGpuFellOffBus,  findings::kGpuResetRequired,
          findings::kNvswitchSxid,     findings::kNicModuleEvent, findings::kPcieAerUncorrected,
          findings::kPcieAerCorrected, findings::kRdmaLinkFlapped};
}

}  // namespace nodeprobe
