// File: preflight_view.h
// What every pre-flight probe starts from, read once per probe in one
// place: the job's environment, the RDMA devices this namespace sees, and
// whether the job uses RDMA (job_view.h's RdmaUseOf with the profile's
// preflight.expect_rdma).
#pragma once

#include <vector>

#include "probes/common/job_view.h"
#include "probes/common/rdma_view.h"
#include "probes/framework/probe.h"

namespace nodeprobe::preflight {

struct View {
  job::Env env;
  std::vector<rdma_view::Device> devices;
  job::RdmaUse rdma;
};

View ViewOf(const ProbeContext& ctx);

}  // namespace nodeprobe::preflight
