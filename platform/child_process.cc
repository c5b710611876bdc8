#include "platform/child_process.h"

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace nodeprobe::platform {
namespace {

constexpr size_t kMaxInput = 1 << 20;  // Linux's default pipe-max-size
constexpr size_t kStderrKept = 4096;

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Waits for `pid` for up to `grace` without blocking longer; a child that
// is still there (in uninterruptible sleep) is reaped by a detached thread
// so it never stays a zombie and never holds up the caller.
int ReapWithin(pid_t pid, absl::Duration grace) {
  const absl::Time until = absl::Now() + grace;
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return -1;
    if (absl::Now() >= until) break;
    absl::SleepFor(absl::Milliseconds(5));
  }
  std::thread([pid] {
    int s = 0;
    while (waitpid(pid, &s, 0) < 0 && errno == EINTR) {
    }
  }).detach();
  return -1;
}

}  // namespace

size_t WriteWithoutSigpipe(int fd, std::string_view data) {
  // A reader that is already gone (a child whose exec failed) makes write()
  // raise SIGPIPE, whose default action would end this process (the agent,
  // a test): block it for this thread and take the one raised here, if
  // any, before unblocking. A SIGPIPE pending from elsewhere is left as is.
  sigset_t pipe_only, before, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &before);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  size_t done = 0;
  bool broken = false;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) broken = true;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (broken && !was_pending) {
    const timespec now{};
    while (sigtimedwait(&pipe_only, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return done;
}

absl::Status StartDetached(const std::string& exe, const std::vector<std::string>& args) {
  std::vector<char*> argv;  // built before fork: nothing is allocated after
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  sigset_t none;
  sigemptyset(&none);
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
  if (pid == 0) {
    setsid();
    if (fork() != 0) _exit(0);  // the grandchild is adopted by init
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) {
      for (int fd = 3; fd < 1024; ++fd) close(fd);
    }
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return absl::OkStatus();
}

absl::StatusOr<ChildProcess> ChildProcess::Start(const std::string& exe,
                                                 const std::vector<std::string>& args,
                                                 const std::string& input) {
  if (input.size() > kMaxInput) {
    return absl::InvalidArgumentError(
        absl::StrCat("child input of ", input.size(), " bytes exceeds ", kMaxInput));
  }
  // Everything the child needs is built before fork: after fork, in a
  // threaded process, only async-signal-safe calls are allowed.
  std::vector<std::string> all = {exe};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);

  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto close_all = [&] {
    for (int* p : {in, out, err}) {
      CloseFd(p[0]);
      CloseFd(p[1]);
    }
  };
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    absl::Status s = absl::ErrnoToStatus(errno, "pipe");
    close_all();
    return s;
  }
  if (input.size() > 65536) fcntl(in[1], F_SETPIPE_SZ, static_cast<int>(kMaxInput));
  const pid_t parent = getpid();
  sigset_t none;
  sigemptyset(&none);
  pid_t pid = fork();
  if (pid < 0) {
    absl::Status s = absl::ErrnoToStatus(errno, "fork");
    close_all();
    return s;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a kill reaches its children too
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent is already gone
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    // No descriptor of the parent's (sockets, databases) reaches the child.
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) {
      for (int fd = 3; fd < 1024; ++fd) close(fd);
    }
    sigprocmask(SIG_SETMASK, &none, nullptr);  // the parent may block SIGTERM
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also from here, so a kill right away reaches the group
  CloseFd(in[0]);
  CloseFd(out[1]);
  CloseFd(err[1]);
  // The input fits the pipe, so this never waits on the child.
  fcntl(in[1], F_SETFL, O_NONBLOCK);
  WriteWithoutSigpipe(in[1], input);
  CloseFd(in[1]);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  return ChildProcess(pid, out[0], err[0]);
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept
    : pid_(o.pid_),
      out_(o.out_),
      err_fd_(o.err_fd_),
      buffer_(std::move(o.buffer_)),
      err_(std::move(o.err_)),
      eof_(o.eof_),
      status_(o.status_) {
  o.pid_ = -1;
  o.out_ = -1;
  o.err_fd_ = -1;
}

ChildProcess::~ChildProcess() {
  Kill();
  CloseFd(out_);
  CloseFd(err_fd_);
}

void ChildProcess::Kill() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  status_ = ReapWithin(pid_, absl::Seconds(1));
  pid_ = -1;
}

void ChildProcess::DrainStderr() {
  if (err_fd_ < 0) return;
  char buf[4096];
  while (true) {
    ssize_t n = read(err_fd_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) CloseFd(err_fd_);
      return;
    }
    err_.append(buf, static_cast<size_t>(n));
    if (err_.size() > kStderrKept) err_.erase(0, err_.size() - kStderrKept);
  }
}

absl::Status ChildProcess::ReadMore(absl::Time deadline) {
  while (!eof_) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("deadline");
    pollfd p[2] = {{out_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    int rc = poll(p, err_fd_ >= 0 ? 2 : 1,
                  static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 60000)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    if (err_fd_ >= 0 && p[1].revents != 0) DrainStderr();
    if (p[0].revents == 0) continue;
    char buf[65536];
    ssize_t n = read(out_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      DrainStderr();
      return absl::OkStatus();
    }
    buffer_.append(buf, static_cast<size_t>(n));
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

bool ChildProcess::ExitedCleanly() const {
  return status_ >= 0 && WIFEXITED(status_) && WEXITSTATUS(status_) == 0;
}

std::string ChildProcess::Ending() {
  if (pid_ > 0) {
    // Stdout is closed, so the child is exiting: give it a moment.
    status_ = ReapWithin(pid_, absl::Seconds(2));
    if (status_ < 0) kill(-pid_, SIGKILL);
    pid_ = -1;
  }
  DrainStderr();
  std::string how;
  if (status_ < 0) {
    how = "did not exit after closing its output (killed)";
  } else if (WIFSIGNALED(status_)) {
    how = absl::StrCat("died with signal ", WTERMSIG(status_), " (", strsignal(WTERMSIG(status_)),
                       ")");
  } else {
    how = absl::StrCat("exited with status ", WEXITSTATUS(status_));
  }
  absl::string_view tail = absl::StripTrailingAsciiWhitespace(err_);
  size_t nl = tail.rfind('\n');
  if (nl != absl::string_view::npos) tail = tail.substr(nl + 1);
  if (!tail.empty()) absl::StrAppend(&how, ": ", tail);
  return how;
}

absl::StatusOr<ProgramOutput> RunProgram(const std::string& exe,
                                         const std::vector<std::string>& args,
                                         absl::Time deadline, size_t max_output) {
  absl::StatusOr<ChildProcess> child = ChildProcess::Start(exe, args);
  if (!child.ok()) return child.status();
  while (!child->eof()) {
    absl::Status more = child->ReadMore(deadline);
    if (absl::IsDeadlineExceeded(more)) {
      child->Kill();
      return absl::DeadlineExceededError(absl::StrCat(exe, " did not finish before its deadline"));
    }
    if (!more.ok()) break;
    if (child->buffer()->size() > max_output) {
      child->Kill();
      return absl::ResourceExhaustedError(absl::StrCat(
          exe, " printed more than ", max_output >> 20, " MiB: stopped"));
    }
  }
  ProgramOutput out;
  out.ending = child->Ending();
  out.exited_cleanly = child->ExitedCleanly();
  out.out = std::move(*child->buffer());
  return out;
}

}  // namespace nodeprobe::platform
