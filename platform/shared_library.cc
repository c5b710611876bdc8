#include "platform/shared_library.h"

#include <cstdlib>

namespace nodeprobe::platform {

void* OpenFirstLibrary(const char* env, const std::vector<std::string>& names, std::string* path,
                       std::vector<std::string>* tried) {
  std::vector<std::string> candidates;
  if (const char* forced = getenv(env); forced != nullptr && *forced != '\0') {
    candidates.push_back(forced);
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

}  // namespace nodeprobe::platform
