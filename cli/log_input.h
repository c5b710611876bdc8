// File: log_input.h
// What the offline readers (`nccl-log`, `kernel-log`) and `fleet` take from
// the command line the same way: a profile whose warnings go to stderr, and
// a log given as a file or "-" for stdin.
#pragma once

#include <functional>
#include <istream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "probes/framework/profile.h"

namespace nodeprobe::cli {

// The profile at `path` (defaults for ""), its warnings printed to stderr.
absl::StatusOr<Profile> LoadProfileWarning(const std::string& path);

// Hands `file` ("-": stdin) to `read`; INVALID_ARGUMENT naming it when it
// is not a readable regular file (`example`: how to pipe one in).
absl::Status ReadLogInput(const std::string& file, const std::string& example,
                          const std::function<void(std::istream&)>& read);

}  // namespace nodeprobe::cli
