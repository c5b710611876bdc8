// File: shared_library.h
// Vendor libraries loaded with dlopen (CUDA, cuBLAS, NCCL, NVML: nothing
// links them, so the daemon runs without a driver): the first of a list of
// names that loads, or only the one an environment variable names (tests
// point it at their double, and must never get the real one by accident);
// then each entry point, null where the library lacks it.
#pragma once

#include <dlfcn.h>

#include <string>
#include <vector>

namespace nodeprobe::platform {

// The handle of the first of `names` that loads (its name in `*path`), or
// of $`env` alone when that is set; nullptr with each dlerror in `*tried`.
void* OpenFirstLibrary(const char* env, const std::vector<std::string>& names, std::string* path,
                       std::vector<std::string>* tried);

// `*fn` = the symbol `name` of `lib`, or null; a missing one is added to
// `missing` when given.
template <typename Fn>
bool BindSymbol(void* lib, const char* name, Fn* fn, std::vector<std::string>* missing = nullptr) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*fn == nullptr && missing != nullptr) missing->push_back(name);
  return *fn != nullptr;
}

}  // namespace nodeprobe::platform
