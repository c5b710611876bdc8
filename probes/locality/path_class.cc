#include "probes/locality/path_class.h"

namespace nodeprobe::locality {

PathClass ClassifyPath(const platform::TopoPciDevice& a,
                       const platform::TopoPciDevice& b) {
  for (size_t i = 0; i < a.ancestors.size(); ++i) {
    for (size_t j = 0; j < b.ancestors.size(); ++j) {
      if (a.ancestors[i].id != b.ancestors[j].id) continue;
      // i and j: objects strictly between each device and the common one.
      switch (a.ancestors[i].kind) {
        case platform::AncestorKind::kPciBridge:
          return i <= 1 && j <= 1 ? PathClass::kPix : PathClass::kPxb;
        case platform::AncestorKind::kHostBridge:
          return PathClass::kPhb;
        case platform::AncestorKind::kOther:
          // A package, group or NUMA-level object: same socket, even when
          // sub-NUMA clustering splits it into several NUMA nodes.
          return PathClass::kNode;
        case platform::AncestorKind::kMachine:
          // Only the machine joins them: the path crosses the socket
          // interconnect, unless both hang off one NUMA node's objects.
          return !a.nodeset.empty() && a.nodeset == b.nodeset ? PathClass::kNode
                                                              : PathClass::kSys;
      }
    }
  }
  return PathClass::kSys;  // no common ancestor: different machines in one XML
}

const char* PathClassName(PathClass c) {
  switch (c) {
    case PathClass::kPix: return "PIX";
    case PathClass::kPxb: return "PXB";
    case PathClass::kPhb: return "PHB";
    case PathClass::kNode: return "NODE";
    case PathClass::kSys: return "SYS";
  }
  return "SYS";
}

}  // namespace nodeprobe::locality
