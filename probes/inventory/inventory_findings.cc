#include "probes/inventory/inventory_findings.h"

namespace nodeprobe {

std::vector<FindingCode> InventoryFindings() {
  return {findings::kVersionMismatch, findings::kVersionNotCaptured};
}

}  // namespace nodeprobe
