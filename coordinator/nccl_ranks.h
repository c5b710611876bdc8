// What the stages that run NCCL ranks on the nodes share (the collective
// stage's nccl-tests-style run, the workload stage's replay): how many
// GPUs a node's own nccl probe ran over, and the NCCL_* settings its rails
// call for.
#pragma once

#include <map>
#include <string>

#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// GPUs the node's own nccl probe ran over in `run` (0: it skipped, or did
// not run).
int GpusOf(const v1::StageRun& run, const std::string& node);

// The NCCL_* settings derived from a node's rails (NCCL_IB_HCA from its
// RDMA rails, NCCL_SOCKET_IFNAME from their netdevs), then the profile's
// nccl.env over them.
std::map<std::string, std::string> NcclEnvFor(const v1::Registration& reg, const Profile& profile);

}  // namespace nodeprobe::coordinator
