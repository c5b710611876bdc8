#include "probes/host_config/host_config_findings.h"

namespace nodeprobe {

std::vector<FindingCode> HostConfigFindings() {
  return {findings::kHostSettingMismatch, findings::kHostSettingNotReadable};
}

}  // namespace nodeprobe
