// Every profile key is explained: the parser's known keys come from the
// table, and every key the parser compares against is in it.
#include "probes/framework/profile_keys.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "probes/framework/profile.h"

namespace nodeprobe {
namespace {

std::set<std::string> ExplainedNames() {
  std::set<std::string> names;
  for (const std::string& section : SectionKeys("")) {
    names.insert(section);
    for (const std::string& key : SectionKeys(section)) names.insert(key);
  }
  return names;
}

TEST(ProfileKeysTest, EveryKeyTheParserComparesIsExplained) {
  std::stringstream text;
  text << std::ifstream(std::string(NODEPROBE_SOURCE_DIR) + "/probes/framework/profile.cc").rdbuf();
  const std::string s = text.str();
  const std::set<std::string> explained = ExplainedNames();
  const std::regex compared("key [!=]= \"([a-z_0-9]+)\"");
  int seen = 0;
  for (std::sregex_iterator it(s.begin(), s.end(), compared), end; it != end; ++it) {
    ++seen;
    EXPECT_TRUE(explained.count((*it)[1])) << (*it)[1] << " is parsed but not in profile_keys.cc";
  }
  EXPECT_GT(seen, 30);
}

TEST(ProfileKeysTest, EveryEntryHasItsTypeDefaultAndDoc) {
  std::set<std::string> seen;
  for (const ProfileKey& k : ProfileKeys()) {
    EXPECT_TRUE(seen.insert(k.key).second) << k.key;
    EXPECT_NE(std::string(k.key).find('.'), std::string::npos) << k.key;
    EXPECT_FALSE(std::string(k.type).empty()) << k.key;
    EXPECT_FALSE(std::string(k.absent).empty()) << k.key;
    EXPECT_GT(std::string(k.doc).size(), 5u) << k.key;
  }
}

// The parser accepts exactly the table's keys: each family expands, and
// an unknown key's error names the section's keys from the table.
TEST(ProfileKeysTest, TheParserTakesItsKnownKeysFromTheTable) {
  const std::vector<std::string> nccl = SectionKeys("nccl");
  EXPECT_NE(std::find(nccl.begin(), nccl.end(), "sendrecv_busbw_min_gbps"), nccl.end());
  EXPECT_TRUE(ParseProfile("nccl:\n  sendrecv_busbw_min_gbps: 10\n", "p.yaml").ok());
  absl::StatusOr<Profile> bad = ParseProfile("failure:\n  link_up_s: 3\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("link_down_s"), std::string::npos) << bad.status();
  const std::vector<std::string> top = SectionKeys("");
  EXPECT_EQ(top.size(), 12u);
  EXPECT_NE(std::find(top.begin(), top.end(), "exceptions"), top.end());
}

}  // namespace
}  // namespace nodeprobe
