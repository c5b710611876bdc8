#include "platform/library_versions.h"

#include <dlfcn.h>
#include <link.h>
#include <hwloc.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <stdlib.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nodeprobe::platform {
namespace {

constexpr const char* kCudaLibDir = "/usr/local/cuda/lib64/";

struct Loaded {
  void* handle = nullptr;
  std::string path;
};

// Tries each name through the loader's search path, then in /usr/local/cuda.
Loaded Open(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    for (const std::string& candidate : {name, kCudaLibDir + name}) {
      void* h = dlopen(candidate.c_str(), RTLD_LAZY | RTLD_LOCAL);
      if (h == nullptr) continue;
      Loaded out{h, candidate};
      link_map* map = nullptr;
      char real[PATH_MAX];
      if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
          realpath(map->l_name, real) != nullptr) {
        out.path = real;
      }
      return out;
    }
  }
  return {};
}

LibraryVersion ReadIntVersion(const std::vector<std::string>& names,
                              const char* symbol,
                              std::string (*format)(int)) {
  LibraryVersion out;
  Loaded lib = Open(names);
  if (lib.handle == nullptr) {
    out.detail = absl::StrCat("not found (looked for ", names.front(),
                              " on the loader path and in ", kCudaLibDir, ")");
    return out;
  }
  out.present = true;
  out.detail = lib.path;
  using VersionFn = int (*)(int*);
  auto fn = reinterpret_cast<VersionFn>(dlsym(lib.handle, symbol));
  int code = 0;
  if (fn == nullptr) {
    out.detail = absl::StrCat(lib.path, ": no symbol ", symbol);
  } else if (int rc = fn(&code); rc != 0) {
    out.detail = absl::StrCat(lib.path, ": ", symbol, " returned ", rc);
  } else {
    out.version = format(code);
  }
  // Left loaded on purpose: unloading CUDA libraries is known to crash in
  // their destructors, and the handle is only held by this short call.
  return out;
}

}  // namespace

std::string FormatCudaVersion(int code) {
  return absl::StrCat(code / 1000, ".", (code % 1000) / 10);
}

std::string FormatNcclVersion(int code) {
  // NCCL encodes major*10000+minor*100+patch since 2.9, major*1000+minor*100
  // +patch before (NCCL_VERSION_CODE in nccl.h).
  if (code >= 10000) {
    return absl::StrCat(code / 10000, ".", (code % 10000) / 100, ".",
                        code % 100);
  }
  return absl::StrCat(code / 1000, ".", (code % 1000) / 100, ".", code % 100);
}

std::string RdmaCoreVersionFromPath(const std::string& path) {
  // rdma-core names the library libibverbs.so.1.<abi>.<rdma-core version>.0
  const std::string base = path.substr(path.find_last_of('/') + 1);
  std::vector<std::string> parts = absl::StrSplit(base, '.');
  // libibverbs, so, 1, 14, 44, 0
  if (parts.size() >= 6 && parts[1] == "so") return parts[4];
  return "";
}

LibraryVersion CudaRuntimeVersion() {
  return ReadIntVersion({"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                         "libcudart.so.11.0"},
                        "cudaRuntimeGetVersion", FormatCudaVersion);
}

LibraryVersion CudaDriverVersion() {
  return ReadIntVersion({"libcuda.so.1"}, "cuDriverGetVersion",
                        FormatCudaVersion);
}

LibraryVersion NcclVersion() {
  return ReadIntVersion({"libnccl.so.2", "libnccl.so"}, "ncclGetVersion",
                        FormatNcclVersion);
}

LibraryVersion RdmaCoreVersion() {
  LibraryVersion out;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ibv_get_device_list), &info) == 0 ||
      info.dli_fname == nullptr) {
    out.detail = "libibverbs not loaded";
    return out;
  }
  out.present = true;
  char real[PATH_MAX];
  std::string path =
      realpath(info.dli_fname, real) != nullptr ? real : info.dli_fname;
  out.detail = path;
  out.version = RdmaCoreVersionFromPath(path);
  return out;
}

LibraryVersion HwlocVersion() {
  unsigned v = hwloc_get_api_version();
  return {true, absl::StrCat(v >> 16, ".", (v >> 8) & 0xff, ".", v & 0xff),
          "API version (hwloc_get_api_version)"};
}

}  // namespace nodeprobe::platform
