// File: memlock_probe.h
// Pre-flight probe `memlock`: the job's RLIMIT_MEMLOCK against what its
// RDMA will lock, when it uses RDMA (job_view.h RdmaUseOf). The need is the
// profile's preflight.memlock_min_mb, else NCCL's buffers: local ranks x
// channels x 2 (send, receive) x one connection's buffers. A container's
// default of 64 KiB fails the first ibv_create_qp (the pyxis capture in
// tests/fixtures/pod-rdma).
//   (its findings, with severity and remedy: probes/memlock/memlock_findings.h)
#pragma once

#include <cstdint>
#include <string>

#include "probes/common/job_arguments.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class MemlockProbe : public Probe {
 public:
  std::string_view name() const override { return "memlock"; }
  std::vector<v1::Stage> stages() const override { return {v1::PREFLIGHT}; }
  std::vector<const ProbeArgument*> arguments() const override { return {&job::kGpusGranted}; }
  std::string_view purpose() const override {
    return "the job's locked-memory limit against what its RDMA registers";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

namespace preflight {
// `limit` in bytes (UINT64_MAX: unlimited); `need_why` says how the need
// was found, `uses_why` why RDMA is used.
void JudgeMemlock(uint64_t limit, uint64_t need, const std::string& need_why,
                  const std::string& uses_why, v1::ProbeResult* result);
}  // namespace preflight

}  // namespace nodeprobe
