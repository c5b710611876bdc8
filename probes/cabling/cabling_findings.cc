#include "probes/cabling/cabling_findings.h"

namespace nodeprobe {

std::vector<FindingCode> CablingFindings() {
  return {findings::kCablingRailMismatch, findings::kCablingNoNeighbor, findings::kCablingNoLldpd};
}

}  // namespace nodeprobe
