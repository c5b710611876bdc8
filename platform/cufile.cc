#include "platform/cufile.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/gpu_memory.h"

namespace nodeprobe::platform {
namespace {

// cufile.h's types, as its C interface lays them out.
struct CUfileError_t {
  int err;     // CUfileOpError: 0 is CU_FILE_SUCCESS
  int cu_err;  // CUresult
};
constexpr int kHandleTypeOpaqueFd = 1;  // CU_FILE_HANDLE_TYPE_OPAQUE_FD
struct CUfileDescr_t {
  int type;
  union {
    int fd;
    void* handle;
  } handle;
  const void* fs_ops;
};
using CUfileHandle_t = void*;

struct CuFile {
  void* lib = nullptr;
  CUfileError_t (*driver_open)() = nullptr;
  CUfileError_t (*driver_close)() = nullptr;
  CUfileError_t (*handle_register)(CUfileHandle_t*, CUfileDescr_t*) = nullptr;
  void (*handle_deregister)(CUfileHandle_t) = nullptr;
  CUfileError_t (*buf_register)(const void*, size_t, int) = nullptr;
  CUfileError_t (*buf_deregister)(const void*) = nullptr;
  ssize_t (*read)(CUfileHandle_t, void*, size_t, off_t, off_t) = nullptr;
};

absl::StatusOr<CuFile> LoadCuFile() {
  CuFile f;
  f.lib = dlopen("libcufile.so.0", RTLD_NOW | RTLD_LOCAL);
  if (f.lib == nullptr) {
    return absl::FailedPreconditionError(
        "libcufile.so.0 is not installed (GPUDirect Storage: the CUDA toolkit's gds packages)");
  }
  auto sym = [&](const char* name) { return dlsym(f.lib, name); };
  f.driver_open = reinterpret_cast<decltype(f.driver_open)>(sym("cuFileDriverOpen"));
  f.driver_close = reinterpret_cast<decltype(f.driver_close)>(
      sym("cuFileDriverClose_v2") ? sym("cuFileDriverClose_v2") : sym("cuFileDriverClose"));
  f.handle_register = reinterpret_cast<decltype(f.handle_register)>(sym("cuFileHandleRegister"));
  f.handle_deregister =
      reinterpret_cast<decltype(f.handle_deregister)>(sym("cuFileHandleDeregister"));
  f.buf_register = reinterpret_cast<decltype(f.buf_register)>(sym("cuFileBufRegister"));
  f.buf_deregister = reinterpret_cast<decltype(f.buf_deregister)>(sym("cuFileBufDeregister"));
  f.read = reinterpret_cast<decltype(f.read)>(sym("cuFileRead"));
  if (!f.driver_open || !f.driver_close || !f.handle_register || !f.handle_deregister ||
      !f.buf_register || !f.buf_deregister || !f.read) {
    return absl::FailedPreconditionError("libcufile.so.0 lacks the cuFile calls nodeprobe uses");
  }
  return f;
}

absl::Status Check(CUfileError_t e, const char* call) {
  if (e.err == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(call, " failed (cuFile error ", e.err, ", CUDA error ", e.cu_err, ")"));
}

}  // namespace

std::string CuFileMode(const std::string& proc_root) {
  struct stat st;
  if (stat((proc_root + "/driver/nvidia-fs").c_str(), &st) == 0) {
    return "GDS (nvidia-fs loaded: DMA from storage to GPU memory where the filesystem supports "
           "it)";
  }
  return "compatibility mode (nvidia-fs not loaded: cuFile reads through host memory)";
}

absl::StatusOr<CuFileRead> ReadWithCuFile(const std::string& path, int device, size_t block,
                                          const std::string& proc_root, absl::Time deadline) {
  absl::StatusOr<CuFile> f = LoadCuFile();
  if (!f.ok()) return f.status();
  absl::StatusOr<std::unique_ptr<GpuMemory>> mem = GpuMemory::Allocate(device, block);
  if (!mem.ok()) return mem.status();
  if (absl::Status s = Check(f->driver_open(), "cuFileDriverOpen"); !s.ok()) return s;
  CuFileRead out;
  out.mode = CuFileMode(proc_root);
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  absl::Status status =
      fd < 0 ? absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)))
             : absl::OkStatus();
  CUfileHandle_t handle = nullptr;
  CUfileDescr_t descr{};
  descr.type = kHandleTypeOpaqueFd;
  descr.handle.fd = fd;
  if (status.ok()) status = Check(f->handle_register(&handle, &descr), "cuFileHandleRegister");
  void* gpu = reinterpret_cast<void*>((*mem)->address());
  const bool registered = status.ok() && f->buf_register(gpu, block, 0).err == 0;
  if (status.ok()) {
    struct stat st;
    fstat(fd, &st);
    const auto start = std::chrono::steady_clock::now();
    for (off_t off = 0; off < st.st_size; off += static_cast<off_t>(block)) {
      if (absl::Now() > deadline) {
        status = absl::DeadlineExceededError("the deadline came during the cuFile read");
        break;
      }
      const ssize_t n = f->read(handle, gpu, block, off, 0);
      if (n <= 0) {
        status = absl::InternalError(absl::StrCat("cuFileRead at ", off, " returned ", n));
        break;
      }
      out.bytes += static_cast<uint64_t>(n);
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (registered) f->buf_deregister(gpu);
  if (handle != nullptr) f->handle_deregister(handle);
  if (fd >= 0) close(fd);
  f->driver_close();
  if (!status.ok()) return status;
  return out;
}

}  // namespace nodeprobe::platform
