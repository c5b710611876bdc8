// File: shm_probe.h
// Pre-flight probe `shm`: free space in /dev/shm against the segments NCCL
// creates between a node's local ranks: the profile's preflight.shm_min_mb,
// else local ranks x channels x one connection's buffers (job_view.h). A
// container's 64 MiB default fails NCCL with "failed to extend
// /dev/shm/nccl-..." (tests/fixtures/pod-rdma).
//   SHM_TOO_SMALL  FAIL  no /dev/shm, or less free than the need
#pragma once

#include <cstdint>
#include <string>

#include "probes/framework/probe.h"

namespace nodeprobe {

class ShmProbe : public Probe {
 public:
  std::string_view name() const override { return "shm"; }
  std::vector<v1::Stage> stages() const override { return {v1::PREFLIGHT}; }
  std::string_view purpose() const override {
    return "free space in /dev/shm against NCCL's segments between local ranks";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

namespace preflight {
void JudgeShm(uint64_t size, uint64_t free_bytes, uint64_t need, const std::string& need_why,
              v1::ProbeResult* result);
}  // namespace preflight

}  // namespace nodeprobe
