// File: shm_probe.h
// Pre-flight probe `shm`: free space in /dev/shm against the segments NCCL
// creates between a node's local ranks: the profile's preflight.shm_min_mb,
// else local ranks x channels x one connection's buffers (job_view.h). A
// container's 64 MiB default fails NCCL with "failed to extend
// /dev/shm/nccl-..." (tests/fixtures/pod-rdma).
// Room is not enough: NCCL creates, posix_fallocate()s and later removes a
// segment per connection as the job's user, so the probe does the same
// with one segment (read-only, not writable by this user, no free inode:
// NCCL fails the same way).
//   (its findings, with severity and remedy: probes/shm/shm_findings.h)
#pragma once

#include <cstdint>
#include <string>

#include "probes/common/job_arguments.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class ShmProbe : public Probe {
 public:
  std::string_view name() const override { return "shm"; }
  std::vector<v1::Stage> stages() const override { return {v1::PREFLIGHT}; }
  std::vector<const ProbeArgument*> arguments() const override { return {&job::kGpusGranted}; }
  std::string_view purpose() const override {
    return "free space in /dev/shm against NCCL's segments between local ranks";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

namespace preflight {
void JudgeShm(uint64_t size, uint64_t free_bytes, uint64_t need, const std::string& need_why,
              v1::ProbeResult* result);
// Creates a segment of `bytes` in `dir` as this process's user (O_EXCL,
// 0600), posix_fallocate()s it and removes it, as NCCL's shmOpen does; the
// error names the step and errno. Nothing is left behind.
absl::Status TrySegment(const std::string& dir, uint64_t bytes);
// SHM_NOT_USABLE from TrySegment's answer and the free inodes (f_favail).
void JudgeShmUse(const absl::Status& segment, uint64_t free_inodes, v1::ProbeResult* result);
}  // namespace preflight

}  // namespace nodeprobe
