#include "platform/file_tree.h"

#include <sys/stat.h>
#include <unistd.h>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::platform {
namespace {

using ::nodeprobe::testing::TempDir;
using ::nodeprobe::testing::WriteFile;

TEST(FileTreeTest, ReadValueStripsTrailingNewline) {
  TempDir dir;
  WriteFile(dir.path() + "/class/x/state", "4: ACTIVE\n");
  FileTree tree(dir.path());
  absl::StatusOr<std::string> v = tree.ReadValue("class/x/state");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, "4: ACTIVE");
}

// NUL bytes are not text: a zeroed cmdline is not "no flags", and a rate
// with a NUL and garbage after it is not its prefix.
TEST(FileTreeTest, NulBytesAreNotAValue) {
  TempDir dir;
  WriteFile(dir.path() + "/cmdline", std::string(100000, '\0'));
  WriteFile(dir.path() + "/rate", std::string("100 Gb/sec (4X EDR)\0junk\n", 25));
  WriteFile(dir.path() + "/ok", std::string("value\0", 6));  // a trailing NUL, as some drivers write
  FileTree tree(dir.path());
  EXPECT_FALSE(tree.ReadValue("cmdline").ok());
  EXPECT_FALSE(tree.ReadValue("rate").ok());
  ASSERT_TRUE(tree.ReadValue("ok").ok());
  EXPECT_EQ(*tree.ReadValue("ok"), "value");
}

TEST(FileTreeTest, MissingFileIsNotFoundAndNamesThePath) {
  TempDir dir;
  FileTree tree(dir.path());
  absl::StatusOr<std::string> v = tree.ReadValue("/class/none");
  EXPECT_EQ(v.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(v.status().message().find(dir.path() + "/class/none"),
            std::string::npos);
}

TEST(FileTreeTest, ListDirIsSorted) {
  TempDir dir;
  WriteFile(dir.path() + "/d/b", "");
  WriteFile(dir.path() + "/d/a", "");
  WriteFile(dir.path() + "/d/c", "");
  absl::StatusOr<std::vector<std::string>> names = FileTree(dir.path()).ListDir("d");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b", "c"}));
}

TEST(FileTreeTest, ReadBytesStopsAtLimit) {
  TempDir dir;
  WriteFile(dir.path() + "/config", std::string(300, 'x'));
  absl::StatusOr<std::string> v = FileTree(dir.path()).ReadBytes("config", 256);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->size(), 256u);
}

TEST(FileTreeTest, RootSlashJoinsWithoutDoubleSlash) {
  EXPECT_EQ(FileTree("/").Path("sys/class"), "/sys/class");
  EXPECT_EQ(FileTree("/sys/").Path("/class"), "/sys/class");
}

TEST(FileTreeTest, ReadLinkReturnsStoredTarget) {
  TempDir dir;
  WriteFile(dir.path() + "/t", "");
  ASSERT_EQ(symlink("../../x/0000:82:00.0", (dir.path() + "/device").c_str()), 0);
  absl::StatusOr<std::string> v = FileTree(dir.path()).ReadLink("device");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "../../x/0000:82:00.0");
}

}  // namespace
}  // namespace nodeprobe::platform
