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

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace nodeprobe::cli {

// Whether `path` may be written (see above): checked before any work, so
// a bad --out is said at once. `flag` names the option in errors.
absl::Status CheckOutputTarget(const std::string& path, bool replace, std::string_view flag);

// Writes `content` to `path` as above (the check included).
absl::Status WriteOutputFile(const std::string& path, std::string_view content, bool replace,
                             std::string_view flag);

}  // namespace nodeprobe::cli
