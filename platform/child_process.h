// File: child_process.h
// Running work that may hang (a driver call, a GPU context) in a child
// process with a deadline: the child gets its own process group, and a
// kill reaches everything it started.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nodeprobe::platform {

class ChildProcess {
 public:
  // Starts `exe args...` with stdin from /dev/null and stdout to a pipe.
  static absl::StatusOr<ChildProcess> Start(const std::string& exe,
                                            const std::vector<std::string>& args);
  ChildProcess(ChildProcess&& o) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ~ChildProcess();  // kills and reaps a child still running

  pid_t pid() const { return pid_; }
  // The next line of stdout, or DEADLINE_EXCEEDED / UNAVAILABLE (closed).
  absl::StatusOr<std::string> ReadLine(absl::Time deadline);
  // The rest of stdout until the child closes it; DEADLINE_EXCEEDED (and
  // the child killed) at the deadline.
  absl::StatusOr<std::string> ReadAll(absl::Time deadline);
  void Kill();

 private:
  ChildProcess(pid_t pid, int out) : pid_(pid), out_(out) {}
  // Reads what is available into buffer_; false on EOF or deadline.
  absl::Status Fill(absl::Time deadline);

  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffer_;
  bool eof_ = false;
};

// Start + ReadAll: the child's stdout, or an error saying it was killed at
// the deadline or died by a signal.
absl::StatusOr<std::string> RunChild(const std::string& exe,
                                     const std::vector<std::string>& args,
                                     absl::Time deadline);

}  // namespace nodeprobe::platform
