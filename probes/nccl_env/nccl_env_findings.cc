#include "probes/nccl_env/nccl_env_findings.h"

namespace nodeprobe {

std::vector<FindingCode> NcclEnvFindings() {
  return {findings::kNcclEnvIgnored, findings::kNcclSocketLoopbackOnly, findings::kNcclEnvInvalid};
}

}  // namespace nodeprobe
