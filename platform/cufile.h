// File: cufile.h
// GPUDirect Storage: a file read straight into GPU memory with NVIDIA's
// cuFile API (libcufile, loaded with dlopen: nothing links it, and only a
// task worker ever loads it). Its API is declared here from cufile.h's
// documented C interface, the few calls used: the CUDA toolkit here ships
// without GDS. GDS proper needs the nvidia-fs kernel module and a
// filesystem it supports; without them cuFile works in compatibility mode
// (POSIX reads through a bounce buffer), which the result says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nodeprobe::platform {

struct CuFileRead {
  std::string mode;  // "GDS (nvidia-fs ...)" or "compatibility mode (...)"
  uint64_t bytes = 0;
  double seconds = 0;
};

// How cuFile would move data on this host, from the nvidia-fs driver's
// presence under `proc_root` (/proc/driver/nvidia-fs).
std::string CuFileMode(const std::string& proc_root);

// Reads `path` (opened O_DIRECT) whole into GPU `device`'s memory in
// `block` sized cuFileRead calls. FAILED_PRECONDITION saying what is
// missing when libcufile, the CUDA driver or the GPU is not there.
absl::StatusOr<CuFileRead> ReadWithCuFile(const std::string& path, int device, size_t block,
                                          const std::string& proc_root, absl::Time deadline);

}  // namespace nodeprobe::platform
