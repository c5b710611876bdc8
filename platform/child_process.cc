// File: child_process.cc
#include "platform/child_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace nodeprobe::platform {

absl::StatusOr<ChildProcess> ChildProcess::Start(const std::string& exe,
                                                 const std::vector<std::string>& args) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe");
  pid_t pid = fork();
  if (pid < 0) return absl::ErrnoToStatus(errno, "fork");
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a kill reaches its children too
    dup2(out[1], 1);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    std::vector<std::string> all = {exe};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  close(out[1]);
  return ChildProcess(pid, out[0]);
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept
    : pid_(o.pid_), out_(o.out_), buffer_(std::move(o.buffer_)), eof_(o.eof_) {
  o.pid_ = -1;
  o.out_ = -1;
}

ChildProcess::~ChildProcess() {
  Kill();
  if (out_ >= 0) close(out_);
}

void ChildProcess::Kill() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

absl::Status ChildProcess::Fill(absl::Time deadline) {
  while (true) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("deadline");
    pollfd p{out_, POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    char buf[65536];
    ssize_t n = read(out_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      return absl::OkStatus();
    }
    buffer_.append(buf, static_cast<size_t>(n));
    return absl::OkStatus();
  }
}

absl::StatusOr<std::string> ChildProcess::ReadLine(absl::Time deadline) {
  while (true) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (eof_) return absl::UnavailableError("the child closed its output");
    absl::Status s = Fill(deadline);
    if (!s.ok()) return s;
  }
}

absl::StatusOr<std::string> ChildProcess::ReadAll(absl::Time deadline) {
  while (!eof_) {
    absl::Status s = Fill(deadline);
    if (!s.ok()) {
      Kill();
      return absl::DeadlineExceededError("the child passed its deadline and was killed");
    }
  }
  int status = 0;
  if (pid_ > 0) {
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (WIFSIGNALED(status)) {
    return absl::InternalError(absl::StrCat("the child died with signal ", WTERMSIG(status)));
  }
  return std::move(buffer_);
}

absl::StatusOr<std::string> RunChild(const std::string& exe,
                                     const std::vector<std::string>& args,
                                     absl::Time deadline) {
  absl::StatusOr<ChildProcess> child = ChildProcess::Start(exe, args);
  if (!child.ok()) return child.status();
  return child->ReadAll(deadline);
}

}  // namespace nodeprobe::platform
