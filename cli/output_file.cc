// File: output_file.cc
#include "cli/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace nodeprobe::cli {
namespace {

std::string Flag(std::string_view flag) { return std::string(flag); }

// Writes all of `content` to fd; false with errno set on failure.
bool WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

absl::Status CheckOutputTarget(const std::string& path, bool replace, std::string_view flag) {
  if (path == "-") return absl::OkStatus();
  if (path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(Flag(flag), ": give a file name (or - for "
                                                   "standard output)"));
  }
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(Flag(flag), " ", path, ": ", strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISLNK(st.st_mode)  ? "a symbolic link"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device node";
    return absl::InvalidArgumentError(absl::StrCat(
        Flag(flag), " ", path, " is ", what, ", not a file: name a new file (or - for standard "
        "output)"));
  }
  if (!replace) {
    return absl::AlreadyExistsError(absl::StrCat(
        Flag(flag), " ", path, " exists: pass --force to replace it, or name another file"));
  }
  return absl::OkStatus();
}

absl::Status WriteOutputFile(const std::string& path, std::string_view content, bool replace,
                             std::string_view flag) {
  if (absl::Status s = CheckOutputTarget(path, replace, flag); !s.ok()) return s;
  if (path == "-") {
    if (!WriteAll(STDOUT_FILENO, content)) {
      return absl::InternalError(absl::StrCat(Flag(flag), ": writing to standard output: ",
                                              strerror(errno)));
    }
    return absl::OkStatus();
  }
  std::string tmp = absl::StrCat(path, ".XXXXXX");
  const int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        Flag(flag), " ", path, ": cannot create a file beside it (", strerror(errno),
        "): does the directory exist, and may nodeprobe write there?"));
  }
  fchmod(fd, 0644);
  const bool written = WriteAll(fd, content) && fsync(fd) == 0;
  const int err = errno;
  close(fd);
  if (!written) {
    unlink(tmp.c_str());
    return absl::InternalError(
        absl::StrCat(Flag(flag), " ", path, ": writing failed (", strerror(err),
                     "): nothing was written"));
  }
  // The target may have appeared meanwhile: check again, then replace.
  if (absl::Status s = CheckOutputTarget(path, replace, flag); !s.ok()) {
    unlink(tmp.c_str());
    return s;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_err = errno;
    unlink(tmp.c_str());
    return absl::InternalError(
        absl::StrCat(Flag(flag), " ", path, ": cannot put it in place (", strerror(rename_err), ")"));
  }
  return absl::OkStatus();
}

}  // namespace nodeprobe::cli
