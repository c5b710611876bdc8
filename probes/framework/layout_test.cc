// The README's layout is the tree: every top-level folder is named in its
// "## Layout" block, so a new folder cannot land undocumented. Probes are
// not listed there (`nodeprobe probes` lists them): a new probe is its
// folder and its Register() line, nothing else.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace nodeprobe {
namespace {

std::string LayoutBlock() {
  std::stringstream text;
  text << std::ifstream(std::string(NODEPROBE_SOURCE_DIR) + "/README.md").rdbuf();
  const std::string s = text.str();
  const size_t start = s.find("## Layout");
  if (start == std::string::npos) return "";
  const size_t end = s.find("\n## ", start + 1);
  return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(LayoutTest, TheReadmeNamesEveryTopLevelFolder) {
  const std::string layout = LayoutBlock();
  ASSERT_FALSE(layout.empty()) << "README.md has no ## Layout section";
  namespace fs = std::filesystem;
  int folders = 0;
  for (const auto& e : fs::directory_iterator(NODEPROBE_SOURCE_DIR)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || name[0] == '.' || name.rfind("build", 0) == 0) continue;
    ++folders;
    EXPECT_NE(layout.find(name + "/"), std::string::npos)
        << name << "/ is not in README.md's ## Layout";
  }
  EXPECT_GT(folders, 10);
}

}  // namespace
}  // namespace nodeprobe
