// File: exit_codes.h
// Exit codes scripts can rely on (documented in README and --help).
#pragma once

#include <string>

#include "absl/status/status.h"
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

// What a failed operation's status means to a script: the request cannot
// be done as asked (INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS,
// OUT_OF_RANGE, FAILED_PRECONDITION: change the flags, the file or the run
// named) -> 2; it could not run (UNAVAILABLE, DEADLINE_EXCEEDED, a refusal,
// anything internal) -> 3. OK -> 0.
int ExitCodeFor(const absl::Status& status);
// ErrorExit with the status's message and ExitCodeFor's code.
int StatusExit(const absl::Status& status);

}  // namespace nodeprobe::controlplane
