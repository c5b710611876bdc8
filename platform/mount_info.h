// File: mount_info.h
// Which filesystem a path lives on, from /proc/self/mountinfo (proc(5)):
// the mount whose point is the longest prefix of the path, with its type,
// source device and options, so a storage figure is recorded beside what
// produced it (ext4 on nvme0n1 with noatime; nfs4 from server:/export).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nodeprobe::platform {

struct Mount {
  std::string point;    // /mnt/ckpt (octal escapes such as \040 decoded)
  std::string type;     // ext4, xfs, nfs4, lustre, tmpfs, ...
  std::string source;   // /dev/nvme0n1p1, server:/export, tmpfs
  std::string options;  // the mount's options, then the superblock's
  std::string device;   // major:minor
};

// Every well-formed line; malformed ones are left out.
std::vector<Mount> ParseMountInfo(std::string_view text);

// The mount holding `path` (absolute, symbolic links already resolved):
// the last-listed mount with the longest point that is `path` or a
// directory above it (later mounts cover earlier ones on the same point).
std::optional<Mount> MountOf(const std::vector<Mount>& mounts, std::string_view path);

}  // namespace nodeprobe::platform
