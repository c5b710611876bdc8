// File: child_process.h
// Running work that may hang (a driver call, a blocking sysfs read, a GPU
// context) in a child process that can always be stopped:
//  - fork/exec with nothing allocated between the two (argv is built
//    first), descriptors other than 0-2 closed, signal mask cleared;
//  - its own process group, so a kill reaches everything it started;
//  - PR_SET_PDEATHSIG=SIGKILL, so it dies with the thread that started it
//    (an agent killed with SIGKILL leaves no worker behind);
//  - a reap that never blocks the caller: a child that does not die at once
//    (stuck in the kernel) is handed to a background reaper thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nodeprobe::platform {

// Writes as much of `data` to `fd` as it takes without waiting (for a
// non-blocking fd) and returns how much; a closed reader is a short count,
// never a SIGPIPE that ends the process.
size_t WriteWithoutSigpipe(int fd, std::string_view data);

// Starts `exe args...` detached: its own session, not this process's
// child (double fork), no parent-death signal, stdio on /dev/null. What it
// does outlives this process; for work that must finish even if we die
// (putting a link back up). Returns once the intermediate child is reaped.
absl::Status StartDetached(const std::string& exe, const std::vector<std::string>& args);

class ChildProcess {
 public:
  // Starts `exe args...` with `input` on stdin (then closed; at most 1 MiB),
  // stdout to a pipe the caller reads and stderr kept (its last 4 KiB) for
  // error messages.
  static absl::StatusOr<ChildProcess> Start(const std::string& exe,
                                            const std::vector<std::string>& args,
                                            const std::string& input = "");
  ChildProcess(ChildProcess&& o) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ~ChildProcess();  // kills and reaps a child still running

  pid_t pid() const { return pid_; }
  // Waits until more stdout arrives (appended to *buffer()) or stdout is
  // closed (eof()); DEADLINE_EXCEEDED at the deadline.
  absl::Status ReadMore(absl::Time deadline);
  std::string* buffer() { return &buffer_; }
  bool eof() const { return eof_; }
  // After eof(): how the child ended, e.g. "exit status 1", "signal 11",
  // with the last line of its stderr when it wrote one.
  std::string Ending();
  // After Ending(): whether the child exited with status 0.
  bool ExitedCleanly() const;
  // The child's stderr so far (last 4 KiB).
  const std::string& stderr_tail() const { return err_; }
  // SIGKILL to the group, then reap without blocking the caller.
  void Kill();

 private:
  ChildProcess(pid_t pid, int out, int err) : pid_(pid), out_(out), err_fd_(err) {}
  void DrainStderr();

  pid_t pid_ = -1;
  int out_ = -1;
  int err_fd_ = -1;
  std::string buffer_;
  std::string err_;
  bool eof_ = false;
  int status_ = -1;  // wait status once reaped
};

// What a program printed and how it ended (RunProgram).
struct ProgramOutput {
  std::string out;       // its stdout
  std::string ending;    // "exit status 0", "signal 11: <last stderr line>"
  bool exited_cleanly = false;
};

// The one way nodeprobe runs a program to its end (dcgmi, scontrol): a
// ChildProcess read until it closes stdout, never past `deadline` and never
// more than `max_output` bytes of stdout. DEADLINE_EXCEEDED at the deadline
// and RESOURCE_EXHAUSTED past the cap, the process group killed either
// way; a program that could not start is Start's error. A program that
// ran and failed is returned, not an error: its ending says how.
absl::StatusOr<ProgramOutput> RunProgram(const std::string& exe,
                                         const std::vector<std::string>& args,
                                         absl::Time deadline, size_t max_output = 16 << 20);

}  // namespace nodeprobe::platform
