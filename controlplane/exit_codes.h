// File: exit_codes.h
// Exit codes scripts can rely on (documented in README and --help).
#pragma once

#include <string>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::controlplane {

inline constexpr int kExitOk = 0;           // every probe PASS, WARN or SKIP
inline constexpr int kExitFail = 1;         // any FAIL
inline constexpr int kExitUsage = 2;        // bad flags or profile
inline constexpr int kExitCouldNotRun = 3;  // any ERROR and no FAIL

// FAIL -> 1, ERROR -> 3, anything else -> 0. A combined verdict already
// ranks FAIL above ERROR (probes/framework/result_util.h).
int ExitCodeForVerdict(v1::Verdict verdict);

// Prints "nodeprobe: error: MESSAGE" (one line) on stderr; returns `code`.
int ErrorExit(const std::string& message, int code = kExitUsage);

}  // namespace nodeprobe::controlplane
