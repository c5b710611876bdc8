// File: file_tree.cc
#include "platform/file_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

absl::Status PathError(int err, const std::string& what,
                       const std::string& path) {
  return absl::ErrnoToStatus(err, absl::StrCat("cannot ", what, " ", path));
}

}  // namespace

FileTree::FileTree(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string FileTree::Path(std::string_view rel) const {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  if (rel.empty()) return root_;
  if (root_ == "/") return absl::StrCat("/", std::string(rel));
  return absl::StrCat(root_, "/", std::string(rel));
}

absl::StatusOr<std::string> FileTree::ReadBytes(std::string_view rel,
                                                size_t max_bytes) const {
  const std::string path = Path(rel);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PathError(errno, "read", path);
  std::string out;
  char buf[4096];
  while (out.size() < max_bytes) {
    ssize_t n = read(fd, buf, std::min(sizeof(buf), max_bytes - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      return PathError(err, "read", path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

absl::StatusOr<std::string> FileTree::ReadValue(std::string_view rel) const {
  // sysfs attributes are at most a page; /proc files used here are small.
  absl::StatusOr<std::string> raw = ReadBytes(rel, 1 << 20);
  if (!raw.ok()) return raw.status();
  std::string value = *std::move(raw);
  while (!value.empty() &&
         (value.back() == '\n' || value.back() == ' ' || value.back() == '\t' ||
          value.back() == '\0')) {
    value.pop_back();
  }
  return value;
}

absl::StatusOr<std::vector<std::string>> FileTree::ListDir(
    std::string_view rel) const {
  const std::string path = Path(rel);
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(path.c_str()), closedir);
  if (!dir) return PathError(errno, "list", path);
  std::vector<std::string> names;
  while (dirent* entry = readdir(dir.get())) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool FileTree::Exists(std::string_view rel) const {
  struct stat st;
  return stat(Path(rel).c_str(), &st) == 0;
}

absl::StatusOr<std::string> FileTree::ReadLink(std::string_view rel) const {
  const std::string path = Path(rel);
  char buf[4096];
  ssize_t n = readlink(path.c_str(), buf, sizeof(buf) - 1);
  if (n < 0) return PathError(errno, "read link", path);
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace nodeprobe::platform
