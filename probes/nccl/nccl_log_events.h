// File: nccl_log_events.h
// Which lines of a job's log say that NCCL (or the job around it) went
// wrong, and how. Every "NCCL WARN" is an event; so are the lines a job
// prints about NCCL without NCCL's prefix: PyTorch's watchdog timeouts,
// nccl* error names, and the launcher's termination lines. Classes:
//   memory_registration  "Unable to register memory", "ibv_reg_mr failed",
//                        "Failed to register" (RC -22, -14, ENOMEM: pinned
//                        memory, GPUDirect, or the provider)
//   shared_memory        "Error while creating shared memory segment",
//                        "failed to extend /dev/shm", posix_fallocate
//   transport_setup      ibv_create_qp/ibv_modify_qp failures, completions
//                        with an error status, refused or closed connections
//   timeout              PyTorch's "Watchdog caught collective operation
//                        timeout" (op and SeqNum kept), NCCL's own timeouts
//   error                ncclInternalError/SystemError/RemoteError/
//                        UnhandledCudaError/InvalidUsage, "NCCL error",
//                        "Cuda failure", "NCCL failure"
//   job_killed           srun/slurmstepd cancellations and kills, torchrun's
//                        ChildFailedError and closing signals, an abort
//   warning              any other NCCL WARN
// Written against the logs in tests/fixtures/nccl/, the container logs in
// ../shared/fixtures/pod-rdma/, and lines quoted in public bug reports
// (Perlmutter's NET/OFI registration failures, PyTorch watchdog timeouts).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nodeprobe::nccl {

struct LineEvent {
  std::string kind;
  std::string message;  // the part worth showing (after NCCL's prefix)
  int rank = -1;        // when the line itself says ([rankN]:, [Rank N])
  std::string op;       // watchdog timeouts
  uint64_t seq = 0;
};

// `line` is one line without its end and ANSI codes. `nccl_warn` is the
// message of an NCCL WARN line (already split from its prefix), or empty
// for any other line. Returns nothing for lines that report no problem.
std::optional<LineEvent> ClassifyNcclWarning(std::string_view nccl_warn);
std::optional<LineEvent> ClassifyJobLine(std::string_view line);

// The shape of a message, for counting repeats: numbers and hex addresses
// become '#', so "device 4" and "device 5" count as one message.
std::string MessageShape(std::string_view message);

}  // namespace nodeprobe::nccl
