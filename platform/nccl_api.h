// File: nccl_api.h
// The CUDA runtime and NCCL, loaded with dlopen by the collective worker
// only (never the agent, never the probe stage's own process): nothing in
// nodeprobe links CUDA or NCCL, and a host without them gets a SKIP that
// says which one is missing.
//
// The few entry points used are declared here with their ABI, as in
// cuda_runtime_api.h (CUDA 11+) and nccl.h (NCCL 2.12+, the first with
// ncclCommGetAsyncError and ncclRemoteError); tests/symbols checks these
// numbers against the real headers where /usr/local/cuda has them.
//
// Where they are loaded from: $NODEPROBE_CUDART_LIBRARY and
// $NODEPROBE_NCCL_LIBRARY when set (tests point both at
// tests/fakes/fake_nccl.cc), else the loader's path, else /usr/local/cuda.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

// cudaError_t / ncclResult_t are ints; streams, events and communicators
// are opaque pointers.
using CudaStream = void*;
using CudaEvent = void*;
using NcclComm = void*;

// ncclUniqueId: 128 opaque bytes, passed by value to ncclCommInitRank.
inline constexpr int kNcclUniqueIdBytes = 128;
struct NcclUniqueId {
  char internal[kNcclUniqueIdBytes];
};

// cuda_runtime_api.h / driver_types.h
inline constexpr int kCudaSuccess = 0;
inline constexpr int kCudaErrorNotReady = 600;
inline constexpr int kCudaMemcpyHostToDevice = 1;
inline constexpr int kCudaMemcpyDeviceToHost = 2;
// nccl.h
inline constexpr int kNcclSuccess = 0;
inline constexpr int kNcclInProgress = 7;
inline constexpr int kNcclFloat32 = 7;  // ncclFloat32
inline constexpr int kNcclSum = 0;      // ncclSum

struct NcclApi {
  std::string cudart_path;
  std::string nccl_path;
  // CUDA runtime
  int (*cudaGetDeviceCount)(int*) = nullptr;
  int (*cudaSetDevice)(int) = nullptr;
  int (*cudaDeviceGetPCIBusId)(char*, int, int) = nullptr;
  int (*cudaMalloc)(void**, size_t) = nullptr;
  int (*cudaFree)(void*) = nullptr;
  int (*cudaMemcpy)(void*, const void*, size_t, int) = nullptr;
  int (*cudaStreamCreate)(CudaStream*) = nullptr;
  int (*cudaStreamQuery)(CudaStream) = nullptr;
  int (*cudaStreamDestroy)(CudaStream) = nullptr;
  int (*cudaEventCreate)(CudaEvent*) = nullptr;
  int (*cudaEventRecord)(CudaEvent, CudaStream) = nullptr;
  int (*cudaEventElapsedTime)(float*, CudaEvent, CudaEvent) = nullptr;
  int (*cudaEventDestroy)(CudaEvent) = nullptr;
  const char* (*cudaGetErrorString)(int) = nullptr;
  // NCCL
  int (*ncclGetVersion)(int*) = nullptr;
  int (*ncclGetUniqueId)(NcclUniqueId*) = nullptr;
  int (*ncclCommInitRank)(NcclComm*, int, NcclUniqueId, int) = nullptr;
  int (*ncclCommAbort)(NcclComm) = nullptr;
  int (*ncclCommDestroy)(NcclComm) = nullptr;
  int (*ncclCommGetAsyncError)(NcclComm, int*) = nullptr;
  const char* (*ncclGetErrorString)(int) = nullptr;
  int (*ncclAllReduce)(const void*, void*, size_t, int, int, NcclComm, CudaStream) = nullptr;
  int (*ncclAllGather)(const void*, void*, size_t, int, NcclComm, CudaStream) = nullptr;
  int (*ncclReduceScatter)(const void*, void*, size_t, int, int, NcclComm, CudaStream) = nullptr;
  int (*ncclBroadcast)(const void*, void*, size_t, int, int, NcclComm, CudaStream) = nullptr;
  int (*ncclReduce)(const void*, void*, size_t, int, int, int, NcclComm, CudaStream) = nullptr;
  int (*ncclSend)(const void*, size_t, int, int, NcclComm, CudaStream) = nullptr;
  int (*ncclRecv)(void*, size_t, int, int, NcclComm, CudaStream) = nullptr;
  int (*ncclGroupStart)() = nullptr;
  int (*ncclGroupEnd)() = nullptr;
};

// Loads both once per process (left loaded: CUDA's destructors misbehave on
// dlclose). FAILED_PRECONDITION naming what is missing: the caller's SKIP.
absl::StatusOr<const NcclApi*> LoadNcclApi();

// Why cudaGetDeviceCount's `rc` means no GPU can be used, for people: "no
// NVIDIA driver" when the runtime says the driver is insufficient because
// there is none at all (libcuda.so.1 cannot be loaded), else "no usable
// GPU: " and the runtime's own words.
std::string NoGpuReason(const NcclApi& api, int rc);

// "2.28.9" from ncclGetVersion's code (2.9+: major*10000 + minor*100 + patch;
// older: major*1000 + minor*100 + patch).
std::string NcclVersionString(int code);

}  // namespace nodeprobe::platform
