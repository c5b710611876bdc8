#include "probes/pcie/pcie_findings.h"

namespace nodeprobe {

std::vector<FindingCode> PcieFindings() {
  return {findings::kPcieLinkSpeedUnknown, findings::kPcieLinkWidthDegraded,
          findings::kPcieLinkSpeedDegraded};
}

}  // namespace nodeprobe
