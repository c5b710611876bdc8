// File: exit_codes.cc
#include "controlplane/exit_codes.h"

#include <iostream>

namespace nodeprobe::controlplane {

int ExitCodeForVerdict(v1::Verdict verdict) {
  if (verdict == v1::FAIL) return kExitFail;
  if (verdict == v1::ERROR) return kExitCouldNotRun;
  return kExitOk;
}

int ErrorExit(const std::string& message, int code) {
  std::cerr << "nodeprobe: error: " << message << "\n";
  return code;
}

}  // namespace nodeprobe::controlplane
