// File: exit_codes.cc
#include "cli/exit_codes.h"

namespace nodeprobe::cli {

int ExitCodeForVerdict(v1::Verdict verdict) {
  if (verdict == v1::FAIL) return kExitFail;
  if (verdict == v1::ERROR) return kExitCouldNotRun;
  return kExitOk;
}

}  // namespace nodeprobe::cli
