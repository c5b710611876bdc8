#include "platform/scratch_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

// What the guardian child does; only async-signal-safe calls (the parent
// may have threads).
[[noreturn]] void Guard(int pipe_r, int devnull, char* const argv[]) {
  // Out of the worker's process group, so its group kill misses us; the
  // parent does the same right after the fork, so there is no moment when
  // a kill of the group would still reach us.
  setpgid(0, 0);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGHUP, &ignore, nullptr);
  sigaction(SIGINT, &ignore, nullptr);
  const int r = fcntl(pipe_r, F_DUPFD, 10);  // clear of 0-3 whatever they were
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  dup2(devnull, 0);
  dup2(devnull, 1);
  dup2(devnull, 2);
  dup2(r, 3);
  // Nothing of the parent's stays open here (a worker's stdout pipe held
  // by us would keep its reader from seeing the end).
  syscall(SYS_close_range, 4u, ~0u, 0u);
  char byte;
  while (true) {
    ssize_t n = read(3, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  execv(argv[0], argv);
  _exit(127);
}

// This host's name as a file name's part ("host" when it has none).
std::string ThisHost() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "host";
  std::string out(name);
  for (char& c : out) {
    if (c == '/' || c == '-') c = '_';  // the separators of the name
  }
  return out;
}

}  // namespace

int ScratchDir::RemoveStale(const std::string& parent, const std::string& prefix) {
  const std::string mine = absl::StrCat(prefix, ThisHost(), "-");
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(mine, 0) != 0 || !entry.is_directory(ec) || entry.is_symlink(ec)) continue;
    const std::string rest = name.substr(mine.size());
    pid_t pid = 0;
    if (!absl::SimpleAtoi(rest.substr(0, rest.find('-')), &pid) || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    std::filesystem::remove_all(entry.path(), ec);
    if (!ec) ++removed;
  }
  return removed;
}

absl::StatusOr<ScratchDir> ScratchDir::Create(const std::string& parent,
                                              const std::string& prefix) {
  RemoveStale(parent, prefix);
  std::string templ = absl::StrCat(parent, "/", prefix, ThisHost(), "-", getpid(), "-XXXXXX");
  if (mkdtemp(templ.data()) == nullptr) {
    const int e = errno;
    std::string why = std::strerror(e);
    if (e == ENOENT || e == ENOTDIR) why = "it does not exist or is not a directory";
    if (e == EACCES || e == EROFS || e == EPERM) why = "it is not writable by this user";
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make a scratch directory under ", parent, ": ", why));
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    const int e = errno;
    rmdir(templ.c_str());
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(e)));
  }
  const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  // argv before the fork: nothing is allocated in the child.
  std::string rm = "/bin/rm", flags = "-rf", fs = "--one-file-system", end = "--";
  std::vector<char*> argv = {rm.data(), flags.data(), fs.data(), end.data(), templ.data(), nullptr};
  const pid_t pid = fork();
  if (pid == 0) Guard(fds[0], devnull, argv.data());
  const int fork_errno = errno;
  if (pid > 0) setpgid(pid, pid);
  close(fds[0]);
  if (devnull >= 0) close(devnull);
  if (pid < 0) {
    close(fds[1]);
    rmdir(templ.c_str());
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(fork_errno)));
  }
  return ScratchDir(templ, pid, fds[1]);
}

ScratchDir::ScratchDir(ScratchDir&& o) noexcept
    : path_(std::move(o.path_)), guardian_(o.guardian_), pipe_w_(o.pipe_w_) {
  o.guardian_ = -1;
  o.pipe_w_ = -1;
}

ScratchDir::~ScratchDir() {
  if (guardian_ < 0) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // the guardian's rm then finds nothing
  close(pipe_w_);
  while (waitpid(guardian_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace nodeprobe::platform
