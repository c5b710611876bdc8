// File: output_file.h
// Every file nodeprobe writes on request (an evidence bundle, the
// Prometheus textfile) is created, never clobbered by accident and never
// left half-written:
//   - "-" means standard output;
//   - the target must not exist, or (with `replace`) be a regular file:
//     a device node, FIFO, directory or symbolic link is refused, so
//     `--out /dev/full` cannot rename a file over a device;
//   - the content goes to a temporary file created beside it with O_EXCL
//     (mkostemp: a new name, never a link someone planted), is synced, and
//     is renamed over the target; on any failure the temporary is removed.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nodeprobe::cli {

// Whether `path` may be written (see above): checked before any work, so
// a bad --out is said at once. `flag` names the option in errors.
absl::Status CheckOutputTarget(const std::string& path, bool replace, std::string_view flag);

// Writes `content` to `path` as above (the check included).
absl::Status WriteOutputFile(const std::string& path, std::string_view content, bool replace,
                             std::string_view flag);

// The same, written a piece at a time, so that content larger than memory
// should hold (an evidence bundle of a fleet's run) never sits whole in it:
// Open, Append as the pieces come, Commit. A writer destroyed without a
// successful Commit removes its temporary: nothing half-written remains.
class OutputFileWriter {
 public:
  static absl::StatusOr<std::unique_ptr<OutputFileWriter>> Open(const std::string& path,
                                                               bool replace,
                                                               std::string_view flag);
  ~OutputFileWriter();
  OutputFileWriter(const OutputFileWriter&) = delete;
  OutputFileWriter& operator=(const OutputFileWriter&) = delete;

  // The first failure is kept and returned by every later call.
  absl::Status Append(std::string_view piece);
  // Syncs and renames the temporary over the target (checked again first).
  absl::Status Commit();

 private:
  OutputFileWriter(std::string path, std::string tmp, int fd, bool replace, std::string flag);

  std::string path_;
  std::string tmp_;  // empty for standard output
  int fd_;
  bool replace_;
  std::string flag_;
  absl::Status failed_;
  bool committed_ = false;
};

}  // namespace nodeprobe::cli
