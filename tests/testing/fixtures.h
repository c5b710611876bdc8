// File: fixtures.h
// The one helper tests use to load data captured from real machines
// (tests/fixtures, copied byte for byte from ../shared/fixtures with their
// provenance) and to make temporary trees derived from them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::testing {

// Absolute path of a file under tests/fixtures.
std::string FixturePath(std::string_view rel);
// The text of a file under tests/fixtures ("" when it cannot be read: the
// test's own assertions then fail on it).
std::string ReadFixture(std::string_view rel);

// A directory under $TMPDIR removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Expands a ttar text archive (prometheus' format) into `dest`.
absl::Status ExpandTtar(const std::string& ttar_path, const std::string& dest);
// Extracts a .tar.bz2 into `dest` with the system tar; `members` (tar
// wildcards) limits it to the parts a test reads, since the full hwloc
// capture is ~9000 files and slow to write.
absl::Status ExtractTarBz2(const std::string& archive, const std::string& dest,
                           const std::vector<std::string>& members = {});

// A captured host tree expanded into a temporary directory.
struct CapturedHost {
  TempDir dir;
  std::string sys_root;
  std::string proc_root;  // empty when the capture has none
};

// node_exporter's sys.ttar: mlx4_0 (2 IB ports, QDR) and i40iw0 (iWARP).
absl::StatusOr<std::unique_ptr<CapturedHost>> NodeExporterHost();
// hwloc's 32em64t capture: mlx4_0 port 1 FDR InfiniBand, ib0, /proc. By
// default only the RDMA/net/proc parts; pass {} for the whole tree.
extern const std::vector<std::string> kHwlocRdmaMembers;
absl::StatusOr<std::unique_ptr<CapturedHost>> HwlocXeonHost(
    const std::vector<std::string>& members = kHwlocRdmaMembers);

// Writes (creating parent directories) or overwrites a file: used to derive
// a variant of a captured tree.
void WriteFile(const std::string& path, const std::string& content);
void RemoveTree(const std::string& path);

}  // namespace nodeprobe::testing
