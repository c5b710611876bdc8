// File: file_tree.h
// Reads files below a root (/sys, /proc, or a captured copy of them), the
// one way probes read the host. Every error names the full path, so a
// finding built from it tells the operator which file was unreadable.
//
// Reads are safe on any tree, live or captured:
//  - paths resolve inside the root: a symbolic link (absolute or "..")
//    never leads out of it (openat2 RESOLVE_IN_ROOT; on kernels without
//    it, a realpath check), so a capture cannot make us read /etc/shadow;
//  - only regular files are read (sysfs attributes are regular files), so a
//    FIFO, socket or device node is refused instead of blocking or being
//    opened for its side effects; reads are capped in size;
//  - values come back as valid UTF-8 (invalid bytes escaped as \xNN).
#pragma once

#include <memory>
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

  // Contents with trailing whitespace removed, as sysfs attributes are read,
  // as valid UTF-8. NOT_FOUND when absent, PERMISSION_DENIED when not
  // readable, FAILED_PRECONDITION when not a regular file or when it
  // resolves outside the root.
  absl::StatusOr<std::string> ReadValue(std::string_view rel) const;
  // Raw bytes, at most max_bytes (binary files such as PCI config space).
  absl::StatusOr<std::string> ReadBytes(std::string_view rel,
                                        size_t max_bytes) const;
  // Entry names of a directory, sorted, without "." and ".." (at most
  // kMaxEntries; more is an error: no real sysfs directory is that large).
  absl::StatusOr<std::vector<std::string>> ListDir(std::string_view rel) const;
  bool Exists(std::string_view rel) const;
  // The target of a symbolic link, as stored (often relative).
  absl::StatusOr<std::string> ReadLink(std::string_view rel) const;

  static constexpr size_t kMaxValueBytes = 64 * 1024;
  static constexpr size_t kMaxEntries = 100000;

 private:
  // An fd for `rel` resolved inside the root, opened with `flags`.
  absl::StatusOr<int> Open(std::string_view rel, int flags) const;

  std::string root_;
  // The root opened once (O_PATH), shared by copies; -1 when it could not
  // be opened (every read then names why).
  std::shared_ptr<const int> root_fd_;
};

}  // namespace nodeprobe::platform
