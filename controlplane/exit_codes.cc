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

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
      return kExitUsage;
    default:
      return kExitCouldNotRun;
  }
}

int StatusExit(const absl::Status& status) {
  return ErrorExit(std::string(status.message()), ExitCodeFor(status));
}

}  // namespace nodeprobe::controlplane
