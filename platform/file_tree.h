// File: file_tree.h
// Reads files below a root prefix (/sys, /proc, or a captured copy of them).
// Every error names the full path, so a finding built from it tells the
// operator which file was unreadable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

class FileTree {
 public:
  explicit FileTree(std::string root);

  const std::string& root() const { return root_; }
  // Absolute path of `rel` (relative to the root; a leading '/' is allowed).
  std::string Path(std::string_view rel) const;

  // Contents with trailing whitespace removed, as sysfs attributes are read.
  // NOT_FOUND when absent, PERMISSION_DENIED when not readable.
  absl::StatusOr<std::string> ReadValue(std::string_view rel) const;
  // Raw bytes, at most max_bytes (binary files such as PCI config space).
  absl::StatusOr<std::string> ReadBytes(std::string_view rel,
                                        size_t max_bytes) const;
  // Entry names of a directory, sorted, without "." and "..".
  absl::StatusOr<std::vector<std::string>> ListDir(std::string_view rel) const;
  bool Exists(std::string_view rel) const;
  // The target of a symbolic link, as stored (often relative).
  absl::StatusOr<std::string> ReadLink(std::string_view rel) const;

 private:
  std::string root_;
};

}  // namespace nodeprobe::platform
