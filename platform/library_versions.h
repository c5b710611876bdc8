// File: library_versions.h
// Versions of the user-space libraries a GPU/RDMA job depends on, found the
// way the job would find them (the dynamic loader, then /usr/local/cuda), and
// read through their version entry points. Nothing here creates a CUDA
// context or touches a GPU.
#pragma once

#include <string>

namespace nodeprobe::platform {

struct LibraryVersion {
  bool present = false;
  std::string version;
  // The file that was loaded, or why it was not found.
  std::string detail;
};

LibraryVersion CudaRuntimeVersion();  // libcudart: cudaRuntimeGetVersion
LibraryVersion CudaDriverVersion();   // libcuda:   cuDriverGetVersion
LibraryVersion NcclVersion();         // libnccl:   ncclGetVersion
LibraryVersion RdmaCoreVersion();     // libibverbs' file name carries it
LibraryVersion HwlocVersion();        // hwloc_get_api_version

// "13.0" from CUDA's 13000; "2.28.9" from NCCL's 22809 (or 2.8.x's 2804).
std::string FormatCudaVersion(int code);
std::string FormatNcclVersion(int code);
// "44" from ".../libibverbs.so.1.14.44.0"; empty when the name has no version.
std::string RdmaCoreVersionFromPath(const std::string& path);

}  // namespace nodeprobe::platform
