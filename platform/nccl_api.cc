// File: nccl_api.cc
#include "platform/nccl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace nodeprobe::platform {
namespace {

// The first library of `names` that loads; `tried` collects the errors.
void* OpenFirst(const char* env, const std::vector<std::string>& names, std::string* path,
                std::vector<std::string>* tried) {
  std::vector<std::string> candidates;
  if (const char* forced = getenv(env); forced != nullptr && *forced != '\0') {
    candidates.push_back(forced);  // only it: a test must never get the real one by accident
  } else {
    candidates = names;
  }
  for (const std::string& name : candidates) {
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      *path = name;
      return lib;
    }
    const char* err = dlerror();
    tried->push_back(err != nullptr ? err : name);
  }
  return nullptr;
}

template <typename Fn>
bool Bind(void* lib, const char* name, Fn* fn, std::vector<std::string>* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*fn == nullptr) missing->push_back(name);
  return *fn != nullptr;
}

absl::StatusOr<const NcclApi*> Load() {
  auto api = std::make_unique<NcclApi>();
  std::vector<std::string> tried;
  void* cudart = OpenFirst("NODEPROBE_CUDART_LIBRARY",
                           {"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                            "libcudart.so.11.0", "/usr/local/cuda/lib64/libcudart.so"},
                           &api->cudart_path, &tried);
  if (cudart == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no CUDA runtime (libcudart) on this host: ", absl::StrJoin(tried, "; ")));
  }
  tried.clear();
  void* nccl = OpenFirst("NODEPROBE_NCCL_LIBRARY",
                         {"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"},
                         &api->nccl_path, &tried);
  if (nccl == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("no NCCL (libnccl.so.2) on this host: ", absl::StrJoin(tried, "; ")));
  }
  std::vector<std::string> missing;
  NcclApi& a = *api;
  Bind(cudart, "cudaGetDeviceCount", &a.cudaGetDeviceCount, &missing);
  Bind(cudart, "cudaSetDevice", &a.cudaSetDevice, &missing);
  Bind(cudart, "cudaDeviceGetPCIBusId", &a.cudaDeviceGetPCIBusId, &missing);
  Bind(cudart, "cudaMalloc", &a.cudaMalloc, &missing);
  Bind(cudart, "cudaFree", &a.cudaFree, &missing);
  Bind(cudart, "cudaMemcpy", &a.cudaMemcpy, &missing);
  Bind(cudart, "cudaStreamCreate", &a.cudaStreamCreate, &missing);
  Bind(cudart, "cudaStreamQuery", &a.cudaStreamQuery, &missing);
  Bind(cudart, "cudaStreamDestroy", &a.cudaStreamDestroy, &missing);
  Bind(cudart, "cudaEventCreate", &a.cudaEventCreate, &missing);
  Bind(cudart, "cudaEventRecord", &a.cudaEventRecord, &missing);
  Bind(cudart, "cudaEventElapsedTime", &a.cudaEventElapsedTime, &missing);
  Bind(cudart, "cudaEventDestroy", &a.cudaEventDestroy, &missing);
  Bind(cudart, "cudaGetErrorString", &a.cudaGetErrorString, &missing);
  Bind(nccl, "ncclGetVersion", &a.ncclGetVersion, &missing);
  Bind(nccl, "ncclGetUniqueId", &a.ncclGetUniqueId, &missing);
  Bind(nccl, "ncclCommInitRank", &a.ncclCommInitRank, &missing);
  Bind(nccl, "ncclCommAbort", &a.ncclCommAbort, &missing);
  Bind(nccl, "ncclCommDestroy", &a.ncclCommDestroy, &missing);
  Bind(nccl, "ncclCommGetAsyncError", &a.ncclCommGetAsyncError, &missing);
  Bind(nccl, "ncclGetErrorString", &a.ncclGetErrorString, &missing);
  Bind(nccl, "ncclAllReduce", &a.ncclAllReduce, &missing);
  Bind(nccl, "ncclAllGather", &a.ncclAllGather, &missing);
  Bind(nccl, "ncclReduceScatter", &a.ncclReduceScatter, &missing);
  Bind(nccl, "ncclBroadcast", &a.ncclBroadcast, &missing);
  Bind(nccl, "ncclReduce", &a.ncclReduce, &missing);
  Bind(nccl, "ncclSend", &a.ncclSend, &missing);
  Bind(nccl, "ncclRecv", &a.ncclRecv, &missing);
  Bind(nccl, "ncclGroupStart", &a.ncclGroupStart, &missing);
  Bind(nccl, "ncclGroupEnd", &a.ncclGroupEnd, &missing);
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
