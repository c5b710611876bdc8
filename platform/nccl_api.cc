#include "platform/nccl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/shared_library.h"

namespace nodeprobe::platform {
namespace {

absl::StatusOr<const NcclApi*> Load() {
  auto api = std::make_unique<NcclApi>();
  std::vector<std::string> tried;
  void* cudart = OpenFirstLibrary("NODEPROBE_CUDART_LIBRARY",
                                  {"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                                   "libcudart.so.11.0", "/usr/local/cuda/lib64/libcudart.so"},
                                  &api->cudart_path, &tried);
  if (cudart == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no CUDA runtime (libcudart) on this host: ", absl::StrJoin(tried, "; ")));
  }
  tried.clear();
  void* nccl = OpenFirstLibrary("NODEPROBE_NCCL_LIBRARY",
                                {"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"},
                                &api->nccl_path, &tried);
  if (nccl == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("no NCCL (libnccl.so.2) on this host: ", absl::StrJoin(tried, "; ")));
  }
  std::vector<std::string> missing;
  NcclApi& a = *api;
  BindSymbol(cudart, "cudaGetDeviceCount", &a.cudaGetDeviceCount, &missing);
  BindSymbol(cudart, "cudaSetDevice", &a.cudaSetDevice, &missing);
  BindSymbol(cudart, "cudaDeviceGetPCIBusId", &a.cudaDeviceGetPCIBusId, &missing);
  BindSymbol(cudart, "cudaMalloc", &a.cudaMalloc, &missing);
  BindSymbol(cudart, "cudaFree", &a.cudaFree, &missing);
  BindSymbol(cudart, "cudaMemcpy", &a.cudaMemcpy, &missing);
  BindSymbol(cudart, "cudaStreamCreate", &a.cudaStreamCreate, &missing);
  BindSymbol(cudart, "cudaStreamQuery", &a.cudaStreamQuery, &missing);
  BindSymbol(cudart, "cudaStreamDestroy", &a.cudaStreamDestroy, &missing);
  BindSymbol(cudart, "cudaEventCreate", &a.cudaEventCreate, &missing);
  BindSymbol(cudart, "cudaEventRecord", &a.cudaEventRecord, &missing);
  BindSymbol(cudart, "cudaEventElapsedTime", &a.cudaEventElapsedTime, &missing);
  BindSymbol(cudart, "cudaEventDestroy", &a.cudaEventDestroy, &missing);
  BindSymbol(cudart, "cudaGetErrorString", &a.cudaGetErrorString, &missing);
  BindSymbol(nccl, "ncclGetVersion", &a.ncclGetVersion, &missing);
  BindSymbol(nccl, "ncclGetUniqueId", &a.ncclGetUniqueId, &missing);
  BindSymbol(nccl, "ncclCommInitRank", &a.ncclCommInitRank, &missing);
  BindSymbol(nccl, "ncclCommAbort", &a.ncclCommAbort, &missing);
  BindSymbol(nccl, "ncclCommDestroy", &a.ncclCommDestroy, &missing);
  BindSymbol(nccl, "ncclCommGetAsyncError", &a.ncclCommGetAsyncError, &missing);
  BindSymbol(nccl, "ncclGetErrorString", &a.ncclGetErrorString, &missing);
  BindSymbol(nccl, "ncclAllReduce", &a.ncclAllReduce, &missing);
  BindSymbol(nccl, "ncclAllGather", &a.ncclAllGather, &missing);
  BindSymbol(nccl, "ncclReduceScatter", &a.ncclReduceScatter, &missing);
  BindSymbol(nccl, "ncclBroadcast", &a.ncclBroadcast, &missing);
  BindSymbol(nccl, "ncclReduce", &a.ncclReduce, &missing);
  BindSymbol(nccl, "ncclSend", &a.ncclSend, &missing);
  BindSymbol(nccl, "ncclRecv", &a.ncclRecv, &missing);
  BindSymbol(nccl, "ncclGroupStart", &a.ncclGroupStart, &missing);
  BindSymbol(nccl, "ncclGroupEnd", &a.ncclGroupEnd, &missing);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(api->cudart_path, " / ", api->nccl_path, " lack ",
                     absl::StrJoin(missing, ", "), " (NCCL older than 2.12?)"));
  }
  return api.release();
}

}  // namespace

absl::StatusOr<const NcclApi*> LoadNcclApi() {
  static const absl::StatusOr<const NcclApi*> api = Load();
  return api;
}

std::string NcclVersionString(int code) {
  if (code >= 20900) return absl::StrCat(code / 10000, ".", code % 10000 / 100, ".", code % 100);
  return absl::StrCat(code / 1000, ".", code % 1000 / 100, ".", code % 100);
}

std::string NoGpuReason(const NcclApi& api, int rc) {
  constexpr int kCudaErrorInsufficientDriver = 35;
  if (rc == kCudaErrorInsufficientDriver) {
    if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL); driver != nullptr) {
      dlclose(driver);
    } else {
      return "no NVIDIA driver: libcuda.so.1 is not installed (the CUDA runtime is, but without "
             "the driver it can reach no GPU)";
    }
  }
  return absl::StrCat("no usable GPU: ", api.cudaGetErrorString(rc));
}

}  // namespace nodeprobe::platform
