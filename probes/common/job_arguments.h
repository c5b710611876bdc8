// The job's GPU grant (`preflight --gpus N`), declared once
// (probe_argument.h) and read by the pre-flight probes that size the job's
// ranks: memlock, shm, gpu-view.
#pragma once

#include "probes/framework/probe_argument.h"

namespace nodeprobe::job {

inline constexpr ProbeArgument kGpusGranted = {
    .name = "gpus_granted",
    .flag = "--gpus",
    .value_name = "N",
    .help =
        "GPUs (local ranks) the job was granted; default: SLURM_STEP_GPUS, "
        "SLURM_GPUS_ON_NODE, CUDA_VISIBLE_DEVICES, else the GPUs visible here",
    .min = 1,
    .max = 1024,
};

// The grant given, or 0: the scheduler's environment or the visible GPUs
// then say (job_view.h's RanksOf).
inline int GrantedGpus(const ProbeArguments& arguments) {
  return static_cast<int>(arguments.Whole(kGpusGranted, 0));
}

}  // namespace nodeprobe::job
