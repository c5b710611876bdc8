// File: run_binary.h
// Runs a built binary the way a user or script would and captures its exit
// code, stdout and stderr (CLI tests assert on all three).
#pragma once

#include <string>
#include <vector>

namespace nodeprobe::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Arguments are passed without a shell; stdin is /dev/null.
CommandResult RunBinary(const std::string& binary,
                        const std::vector<std::string>& args);

// Non-empty lines in `s` (errors must be one line).
int LineCount(const std::string& s);

}  // namespace nodeprobe::testing
