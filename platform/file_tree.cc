#include "platform/file_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "platform/host_text.h"
#include "platform/socket.h"  // Fd

namespace nodeprobe::platform {
namespace {

absl::Status PathError(int err, const std::string& what, const std::string& path) {
  if (err == EXDEV || err == ELOOP) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot ", what, " ", path, ": ",
        err == EXDEV ? "it leads outside the tree being read" : "too many symbolic links"));
  }
  return absl::ErrnoToStatus(err, absl::StrCat("cannot ", what, " ", path));
}

int OpenAt2(int dirfd, const char* path, uint64_t flags, uint64_t resolve) {
  open_how how{};
  how.flags = flags;
  how.resolve = resolve;
  return static_cast<int>(syscall(SYS_openat2, dirfd, path, &how, sizeof(how)));
}

}  // namespace

FileTree::FileTree(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  const int fd = open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  root_fd_ = std::shared_ptr<const int>(new int(fd), [](const int* p) {
    if (*p >= 0) close(*p);
    delete p;
  });
}

std::string FileTree::Path(std::string_view rel) const {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  if (rel.empty()) return root_;
  if (root_ == "/") return absl::StrCat("/", std::string(rel));
  return absl::StrCat(root_, "/", std::string(rel));
}

absl::StatusOr<int> FileTree::Open(std::string_view rel, int flags) const {
  const std::string path = Path(rel);
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  const std::string relative = rel.empty() ? "." : std::string(rel);
  if (*root_fd_ < 0) {
    struct stat st;
    return PathError(stat(root_.c_str(), &st) != 0 ? errno : ENOTDIR, "open", root_);
  }
  int fd = OpenAt2(*root_fd_, relative.c_str(), static_cast<uint64_t>(flags) | O_CLOEXEC,
                   RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
  if (fd >= 0) return fd;
  if (errno != ENOSYS) return PathError(errno, "open", path);
  // Kernels before 5.6: resolve, then check that the result is inside.
  char real_root[PATH_MAX], real[PATH_MAX];
  if (realpath(root_.c_str(), real_root) == nullptr) return PathError(errno, "open", root_);
  if (realpath(path.c_str(), real) == nullptr) return PathError(errno, "open", path);
  const std::string r(real_root), p(real);
  if (r != "/" && p != r && !absl::StartsWith(p, r + "/")) return PathError(EXDEV, "open", path);
  fd = open(real, flags | O_CLOEXEC);
  if (fd < 0) return PathError(errno, "open", path);
  return fd;
}

absl::StatusOr<std::string> FileTree::ReadBytes(std::string_view rel, size_t max_bytes) const {
  const std::string path = Path(rel);
  // First without opening the file itself (O_PATH): a FIFO would block and
  // a device node may act on open.
  {
    absl::StatusOr<int> probe = Open(rel, O_PATH);
    if (!probe.ok()) return probe.status();
    Fd p(*probe);
    struct stat st;
    if (fstat(p.get(), &st) != 0) return PathError(errno, "stat", path);
    if (!S_ISREG(st.st_mode)) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot read ", path, ": not a regular file (",
                       S_ISFIFO(st.st_mode)  ? "a FIFO"
                       : S_ISDIR(st.st_mode) ? "a directory"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device node",
                       ")"));
    }
  }
  absl::StatusOr<int> opened = Open(rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!opened.ok()) return opened.status();
  Fd f(*opened);
  struct stat st;
  if (fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("cannot read ", path, ": not a regular file"));
  }
  std::string out;
  char buf[4096];
  while (out.size() < max_bytes) {
    ssize_t n = read(f.get(), buf, std::min(sizeof(buf), max_bytes - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return PathError(errno, "read", path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

absl::StatusOr<std::string> FileTree::ReadValue(std::string_view rel) const {
  // sysfs attributes are at most a page; /proc files used here are small.
  absl::StatusOr<std::string> raw = ReadBytes(rel, kMaxValueBytes);
  if (!raw.ok()) return raw.status();
  std::string value = *std::move(raw);
  bool nul = false;
  while (!value.empty() &&
         (value.back() == '\n' || value.back() == ' ' || value.back() == '\t' ||
          value.back() == '\0')) {
    nul |= value.back() == '\0';
    value.pop_back();
  }
  // A value is text: NUL bytes inside it, or nothing but NULs (a zeroed
  // or forged file), are not a value to read as empty or as its prefix.
  if (value.find('\0') != std::string::npos || (value.empty() && nul)) {
    return absl::InvalidArgumentError(
        absl::StrCat(Path(rel), " holds NUL bytes: not a value (a damaged or forged file)"));
  }
  return ValidUtf8(value);
}

absl::StatusOr<std::vector<std::string>> FileTree::ListDir(std::string_view rel) const {
  const std::string path = Path(rel);
  absl::StatusOr<int> opened = Open(rel, O_RDONLY | O_DIRECTORY);
  if (!opened.ok()) return PathError(absl::IsNotFound(opened.status()) ? ENOENT : errno, "list", path);
  std::unique_ptr<DIR, int (*)(DIR*)> dir(fdopendir(*opened), closedir);
  if (!dir) {
    close(*opened);
    return PathError(errno, "list", path);
  }
  std::vector<std::string> names;
  while (dirent* entry = readdir(dir.get())) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (names.size() >= kMaxEntries) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot list ", path, ": more than ", kMaxEntries, " entries"));
    }
    names.push_back(ValidUtf8(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool FileTree::Exists(std::string_view rel) const {
  absl::StatusOr<int> fd = Open(rel, O_PATH);
  if (!fd.ok()) return false;
  close(*fd);
  return true;
}

absl::StatusOr<std::string> FileTree::ReadLink(std::string_view rel) const {
  const std::string path = Path(rel);
  std::string_view r = rel;
  while (!r.empty() && r.back() == '/') r.remove_suffix(1);
  const size_t slash = r.rfind('/');
  const std::string parent = slash == std::string_view::npos ? "" : std::string(r.substr(0, slash));
  const std::string name(slash == std::string_view::npos ? r : r.substr(slash + 1));
  absl::StatusOr<int> dir = Open(parent, O_PATH | O_DIRECTORY);
  if (!dir.ok()) return dir.status();
  Fd d(*dir);
  char buf[4096];
  ssize_t n = readlinkat(d.get(), name.c_str(), buf, sizeof(buf) - 1);
  if (n < 0) return PathError(errno, "read link", path);
  return ValidUtf8(std::string_view(buf, static_cast<size_t>(n)));
}

}  // namespace nodeprobe::platform
