// File: exit_codes.cc
#include "cli/exit_codes.h"

namespace nodeprobe::cli {

int ExitCodeFor(const v1::StageReport& report) {
  bool error = false;
  for (const v1::ProbeResult& r : report.results()) {
    if (r.verdict() == v1::FAIL) return kExitFail;
    if (r.verdict() == v1::ERROR) error = true;
  }
  return error ? kExitCouldNotRun : kExitOk;
}

}  // namespace nodeprobe::cli
