// File: exit_codes.h
// Exit codes scripts can rely on (documented in README and --help).
#pragma once

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::cli {

inline constexpr int kExitOk = 0;          // every probe PASS, WARN or SKIP
inline constexpr int kExitFail = 1;        // any FAIL
inline constexpr int kExitUsage = 2;       // bad flags or profile
inline constexpr int kExitCouldNotRun = 3;  // any ERROR and no FAIL

int ExitCodeFor(const v1::StageReport& report);

}  // namespace nodeprobe::cli
