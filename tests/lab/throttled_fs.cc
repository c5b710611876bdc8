#include "tests/lab/throttled_fs.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace nodeprobe::lab {
namespace {

namespace fs = std::filesystem;

bool Sh(const std::string& command) { return std::system(command.c_str()) == 0; }

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

absl::Status ThrottledFs::Available() {
  if (geteuid() != 0) return absl::UnavailableError("needs root (loop devices, mount, cgroups)");
  if (access("/dev/loop-control", F_OK) != 0) return absl::UnavailableError("no loop devices");
  if (access("/sbin/mkfs.ext4", X_OK) != 0 && access("/usr/sbin/mkfs.ext4", X_OK) != 0) {
    return absl::UnavailableError("no mkfs.ext4 (e2fsprogs)");
  }
  if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) != 0 &&
      access("/sys/fs/cgroup/blkio", F_OK) != 0) {
    return absl::UnavailableError("no block-I/O cgroup controller (io in cgroup v2, blkio in v1)");
  }
  return absl::OkStatus();
}

ThrottledFs::ThrottledFs(const std::string& dir, int mib) {
  const std::string image = dir + "/fs.img";
  mnt_ = dir + "/mnt";
  fs::create_directories(mnt_);
  if (!Sh(absl::StrCat("truncate -s ", mib, "M ", image, " && mkfs.ext4 -q -F ", image)) ||
      !Sh("losetup -f --show " + image + " > " + dir + "/loop")) {
    status_ = absl::InternalError("mkfs.ext4 or losetup failed");
    return;
  }
  std::ifstream(dir + "/loop") >> loop_;
  if (loop_.empty() || !Sh("mount " + loop_ + " " + mnt_)) {
    status_ = absl::InternalError("mounting the loop device failed");
    return;
  }
  mounted_ = true;
  struct stat st;
  if (stat(loop_.c_str(), &st) != 0) {
    status_ = absl::InternalError("no " + loop_);
    return;
  }
  device_ = absl::StrCat(major(st.st_rdev), ":", minor(st.st_rdev));
  v2_ = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
  cgroup_ = absl::StrCat(v2_ ? "/sys/fs/cgroup/np-storage-" : "/sys/fs/cgroup/blkio/np-storage-",
                         getpid(), "-", loop_.substr(loop_.rfind('/') + 1));
  if (v2_) Write("/sys/fs/cgroup/cgroup.subtree_control", "+io");
  if (mkdir(cgroup_.c_str(), 0755) != 0) {
    status_ = absl::InternalError("cannot make the cgroup " + cgroup_);
    cgroup_.clear();
  }
}

ThrottledFs::~ThrottledFs() {
  if (!cgroup_.empty()) {
    // Whatever is still in it goes back to the root first.
    std::ifstream procs(cgroup_ + "/cgroup.procs");
    const std::string root = v2_ ? "/sys/fs/cgroup" : "/sys/fs/cgroup/blkio";
    for (pid_t pid; procs >> pid;) Write(root + "/cgroup.procs", absl::StrCat(pid));
    rmdir(cgroup_.c_str());
  }
  if (mounted_) Sh("umount " + mnt_ + " || umount -l " + mnt_);
  if (!loop_.empty()) Sh("losetup -d " + loop_);
}

void ThrottledFs::Throttle(uint64_t write_bps, uint64_t read_bps) {
  if (v2_) {
    Write(cgroup_ + "/io.max", absl::StrCat(device_, " wbps=", write_bps, " rbps=", read_bps));
  } else {
    Write(cgroup_ + "/blkio.throttle.write_bps_device", absl::StrCat(device_, " ", write_bps));
    Write(cgroup_ + "/blkio.throttle.read_bps_device", absl::StrCat(device_, " ", read_bps));
  }
}

void ThrottledFs::Add(pid_t pid) { Write(cgroup_ + "/cgroup.procs", absl::StrCat(pid)); }

std::vector<std::string> ThrottledFs::LeftBehind() const {
  std::vector<std::string> left;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(mnt_, ec)) {
    if (e.path().filename() != "lost+found") left.push_back(e.path().string());
  }
  return left;
}

}  // namespace nodeprobe::lab
