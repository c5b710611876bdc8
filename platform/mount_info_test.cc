#include "platform/mount_info.h"

#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

// Lines as proc(5) shows them, from a Debian 12 node with an NFS
// checkpoint share, a local NVMe scratch and a mount point with a space.
constexpr char kMountInfo[] =
    "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n"
    "25 22 0:22 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,inode64\n"
    "40 22 259:5 / /scratch rw,noatime shared:30 - xfs /dev/nvme1n1 rw,attr2,inode64\n"
    "41 22 0:50 / /mnt/ckpt rw,relatime shared:31 - nfs4 store:/export/ckpt "
    "rw,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp\n"
    "42 22 0:51 / /mnt/my\\040data rw shared:32 - ext4 /dev/sdb1 rw\n"
    "garbage line\n";

TEST(MountInfoTest, ParsesTypeSourceOptionsAndEscapedPoints) {
  std::vector<Mount> mounts = ParseMountInfo(kMountInfo);
  ASSERT_EQ(mounts.size(), 5u);
  EXPECT_EQ(mounts[3].point, "/mnt/ckpt");
  EXPECT_EQ(mounts[3].type, "nfs4");
  EXPECT_EQ(mounts[3].source, "store:/export/ckpt");
  EXPECT_EQ(mounts[3].options.rfind("rw,relatime,rw,vers=4.2", 0), 0u) << mounts[3].options;
  EXPECT_EQ(mounts[4].point, "/mnt/my data");
  EXPECT_EQ(mounts[2].device, "259:5");
}

TEST(MountInfoTest, APathBelongsToTheLongestMountAboveIt) {
  std::vector<Mount> mounts = ParseMountInfo(kMountInfo);
  EXPECT_EQ(MountOf(mounts, "/mnt/ckpt/run7")->type, "nfs4");
  EXPECT_EQ(MountOf(mounts, "/mnt/ckpt")->type, "nfs4");
  EXPECT_EQ(MountOf(mounts, "/scratch2/x")->point, "/") << "a prefix is not a directory above";
  EXPECT_EQ(MountOf(mounts, "/mnt/my data/a")->source, "/dev/sdb1");
  EXPECT_FALSE(MountOf({}, "/x").has_value());
}

}  // namespace
}  // namespace nodeprobe::platform
