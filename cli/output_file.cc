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

absl::StatusOr<std::unique_ptr<OutputFileWriter>> OutputFileWriter::Open(
    const std::string& path, bool replace, std::string_view flag) {
  if (absl::Status s = CheckOutputTarget(path, replace, flag); !s.ok()) return s;
  if (path == "-") {
    return std::unique_ptr<OutputFileWriter>(
        new OutputFileWriter(path, "", STDOUT_FILENO, replace, Flag(flag)));
  }
  std::string tmp = absl::StrCat(path, ".XXXXXX");
  const int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        Flag(flag), " ", path, ": cannot create a file beside it (", strerror(errno),
        "): does the directory exist, and may nodeprobe write there?"));
  }
  fchmod(fd, 0644);
  return std::unique_ptr<OutputFileWriter>(
      new OutputFileWriter(path, std::move(tmp), fd, replace, Flag(flag)));
}

OutputFileWriter::OutputFileWriter(std::string path, std::string tmp, int fd, bool replace,
                                   std::string flag)
    : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd), replace_(replace),
      flag_(std::move(flag)) {}

OutputFileWriter::~OutputFileWriter() {
  if (tmp_.empty()) return;
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(tmp_.c_str());
}

absl::Status OutputFileWriter::Append(std::string_view piece) {
  if (!failed_.ok()) return failed_;
  if (!WriteAll(fd_, piece)) {
    failed_ = tmp_.empty()
                  ? absl::InternalError(absl::StrCat(flag_, ": writing to standard output: ",
                                                     strerror(errno)))
                  : absl::InternalError(absl::StrCat(flag_, " ", path_, ": writing failed (",
                                                     strerror(errno), "): nothing was written"));
  }
  return failed_;
}

absl::Status OutputFileWriter::Commit() {
  if (!failed_.ok() || tmp_.empty()) return failed_;
  const bool synced = fsync(fd_) == 0;
  const int err = errno;
  close(fd_);
  fd_ = -1;
  if (!synced) {
    return failed_ = absl::InternalError(absl::StrCat(flag_, " ", path_, ": writing failed (",
                                                      strerror(err), "): nothing was written"));
  }
  // The target may have appeared meanwhile: check again, then replace.
  if (absl::Status s = CheckOutputTarget(path_, replace_, flag_); !s.ok()) return failed_ = s;
  if (rename(tmp_.c_str(), path_.c_str()) != 0) {
    return failed_ = absl::InternalError(absl::StrCat(
               flag_, " ", path_, ": cannot put it in place (", strerror(errno), ")"));
  }
  committed_ = true;
  return absl::OkStatus();
}

absl::Status WriteOutputFile(const std::string& path, std::string_view content, bool replace,
                             std::string_view flag) {
  absl::StatusOr<std::unique_ptr<OutputFileWriter>> out =
      OutputFileWriter::Open(path, replace, flag);
  if (!out.ok()) return out.status();
  if (absl::Status s = (*out)->Append(content); !s.ok()) return s;
  return (*out)->Commit();
}

}  // namespace nodeprobe::cli
