// File: gpu_view.h
// The GPUs from the job's side: how many it sees (NVML inside the
// container, else its /dev/nvidiaN nodes), how many CUDA_VISIBLE_DEVICES
// lets it use, against what the scheduler granted (--gpus, Slurm's
// SLURM_STEP_GPUS / SLURM_GPUS_ON_NODE); and for each visible GPU its
// nearest RDMA NIC among the devices this container sees, against the
// host's nearest (the PCI tree in sysfs shows the whole host, while
// class/infiniband shows what was given to the container).
//   (its findings, with severity and remedy: probes/gpu_view/gpu_view_findings.h)
#pragma once

#include <set>
#include <string>

#include "nodeprobe/v1/result.pb.h"
#include "platform/hwloc_topology.h"
#include "probes/common/job_view.h"

namespace nodeprobe::gpu_view {

struct Seen {
  int count = 0;
  std::string source;  // "NVML" or "/dev/nvidiaN"
};

// The scheduler's grant (count -1 when nothing states one): job_view.h.
using job::GrantOf;

// Counts judged; evidence gpu.seen / gpu.usable / gpu.granted.
void JudgeGrant(const job::Env& env, const job::LocalRanks& grant, const Seen& seen,
                v1::ProbeResult* result);

// Per GPU of `topology` (only those in `gpus`, PCI bus ids as NVML's
// inventory gives them, "0000:19:00.0", when not empty): its nearest NIC among `visible_rdma` and
// the host's nearest.
void JudgeRails(const platform::PciTopology& topology, const std::set<std::string>& gpus,
                const std::set<std::string>& visible_rdma, bool uses_rdma, const job::Env& env,
                v1::ProbeResult* result);

}  // namespace nodeprobe::gpu_view
