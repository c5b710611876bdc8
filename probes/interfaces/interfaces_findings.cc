#include "probes/interfaces/interfaces_findings.h"

namespace nodeprobe {

std::vector<FindingCode> InterfacesFindings() {
  return {findings::kSecondaryInterfaceDown, findings::kSecondaryInterfaceMtu,
          findings::kSecondaryInterfaceNotRdma};
}

}  // namespace nodeprobe
