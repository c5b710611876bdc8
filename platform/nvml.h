// File: nvml.h
// The GPUs through NVML, loaded with dlopen (NVML headers are not packaged
// here, and the daemon must not depend on the driver): inventory and health
// of every GPU in NVML order. Only the task worker loads it, never the
// agent. The library is libnvidia-ml.so.1 from the driver; the toolkit's
// stub under /usr/local/cuda is never used (it answers every call with an
// error). NODEPROBE_NVML_LIBRARY names another library: tests point it at
// their fake (tests/fakes/fake_nvml.cc).
#pragma once

#include "absl/status/statusor.h"
#include "nodeprobe/v1/gpu.pb.h"

namespace nodeprobe::platform {

// FAILED_PRECONDITION when there is no driver (the library is missing or
// nvmlInit fails, e.g. no kernel module): the caller's SKIP reason. A GPU
// whose query is not supported leaves that field at its default.
absl::StatusOr<v1::GpuReport> ReadNvmlGpus();

}  // namespace nodeprobe::platform
