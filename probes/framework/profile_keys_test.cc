// Every profile key is explained: the parser's known keys come from the
// table, and every key the parser compares against is in it.
#include "probes/framework/profile_keys.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

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

// profile.cc, and every section declared beside its reader (a source
// that calls DeclareSection<...>).
std::vector<std::string> ParserSources() {
  namespace fs = std::filesystem;
  std::vector<std::string> out = {std::string(NODEPROBE_SOURCE_DIR) +
                                  "/probes/framework/profile.cc"};
  for (const char* layer : {"probes", "tasks", "controlplane", "agent", "coordinator", "cli"}) {
    for (const auto& e :
         fs::recursive_directory_iterator(std::string(NODEPROBE_SOURCE_DIR) + "/" + layer)) {
      if (e.path().extension() != ".cc") continue;
      std::stringstream text;
      text << std::ifstream(e.path()).rdbuf();
      if (text.str().find("return DeclareSection<") != std::string::npos) {
        out.push_back(e.path().string());
      }
    }
  }
  return out;
}

TEST(ProfileKeysTest, EveryKeyTheParserComparesIsExplained) {
  const std::set<std::string> explained = ExplainedNames();
  const std::regex compared("key [!=]= \"([a-z_0-9]+)\"");
  const std::vector<std::string> sources = ParserSources();
  EXPECT_GE(sources.size(), 2u) << "profile.cc and coordinator/acceptance_profile.cc at least";
  int seen = 0;
  for (const std::string& path : sources) {
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), compared), end; it != end; ++it) {
      ++seen;
      EXPECT_TRUE(explained.count((*it)[1]))
          << (*it)[1] << " is parsed in " << path << " but no profile key lists it";
    }
  }
  EXPECT_GT(seen, 35);
}

// A declared section is parsed through the generic loop: its keys, its
// errors at FILE:LINE, and its struct reachable from the profile.
TEST(ProfileKeysTest, ADeclaredSectionIsParsedExplainedAndChecked) {
  const std::vector<std::string> keys = SectionKeys("acceptance");
  EXPECT_NE(std::find(keys.begin(), keys.end(), "owners"), keys.end());
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "owners"), 1);  // owners.host, .fabric: one key
  absl::StatusOr<Profile> bad = ParseProfile("acceptance:\n  rolback: x\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "p.yaml:2: unknown key 'acceptance.rolback' (valid: owners, alert_owner, dashboards, "
            "rollback, upgrade, limitations, service_objective)");
  absl::StatusOr<Profile> good = ParseProfile("acceptance:\n  upgrade: RUNBOOK-12\n", "p.yaml");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->sections.count("acceptance"), 1u);
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
  EXPECT_EQ(top.size(), 22u);  // 2 parsed in profile.cc, 20 declared beside their readers
  EXPECT_NE(std::find(top.begin(), top.end(), "exceptions"), top.end());
}

}  // namespace
}  // namespace nodeprobe
