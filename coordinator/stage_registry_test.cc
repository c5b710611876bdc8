// File: stage_registry_test.cc
// The stages are registered like probes: the orchestrator knows the
// registry, and each request finds the stages that apply to it, in the
// order a run measures them. No stage includes another, and nothing in
// coordinator/ outside stages/ includes a stage: what stages share sits
// below them. A stage may read another's profile section declaration
// (*_profile.h: compiled into the profile library, below every stage).
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "coordinator/stage.h"
#include "gtest/gtest.h"

namespace nodeprobe::coordinator {
namespace {

std::vector<std::string> Applying(v1::RunStageRequest r) {
  std::vector<std::string> out;
  for (const auto& s : BuiltinStages().All()) {
    if (s->Applies(r)) out.emplace_back(s->name());
  }
  return out;
}

TEST(StageRegistryTest, EachRequestFindsItsStagesInRunOrder) {
  v1::RunStageRequest r;
  r.set_stage(v1::TWO_NODE);
  EXPECT_EQ(Applying(r), (std::vector<std::string>{"two-node", "collectives"}));
  r.set_stage(v1::CLUSTER);
  r.set_storage_storm(true);
  EXPECT_EQ(Applying(r), (std::vector<std::string>{"cluster", "storage-storm", "collectives"}));
  r.set_storage_storm(false);
  r.set_stage(v1::CONGESTION);
  EXPECT_EQ(Applying(r), (std::vector<std::string>{"congestion"}));
  r.set_stage(v1::FAILURE);
  EXPECT_EQ(Applying(r), (std::vector<std::string>{"failure"}));
}

TEST(StageRegistryTest, AStageSaysWhatItNeeds) {
  v1::RunStageRequest r;
  r.set_stage(v1::FAILURE);
  for (const auto& s : BuiltinStages().All()) {
    if (!s->Applies(r)) continue;
    EXPECT_EQ(s->CheckRequest(r, 2, Profile{}).code(), absl::StatusCode::kFailedPrecondition);
    r.set_allow_disruptive(true);
    EXPECT_TRUE(s->CheckRequest(r, 2, Profile{}).ok());
    EXPECT_FALSE(s->CheckRequest(r, 3, Profile{}).ok());
  }
}

TEST(StageRegistryTest, NoStageIncludesAnotherAndTheOrchestratorNone) {
  namespace fs = std::filesystem;
  const std::string root = std::string(NODEPROBE_SOURCE_DIR) + "/coordinator";
  const std::regex include(R"re(#include "coordinator/stages/([a-z_]+)/([a-z_]+\.h)")re");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string path = e.path().string();
    if (e.path().extension() != ".cc" && e.path().extension() != ".h") continue;
    const std::string rel = path.substr(root.size() + 1);
    if (rel == "stages/builtin_stages.cc") continue;  // the registry's one list
    const bool in_stage = rel.rfind("stages/", 0) == 0;
    const std::string own = in_stage ? rel.substr(7, rel.find('/', 7) - 7) : "";
    ++files;
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);) {
      std::smatch m;
      if (!std::regex_search(l, m, include)) continue;
      const bool profile = m[2].str().find("_profile.h") != std::string::npos;
      if (path.find("_test.cc") != std::string::npos && m[1] == own) continue;
      EXPECT_TRUE(m[1] == own || profile) << rel << " includes stage " << m[1] << ": " << l;
    }
  }
  EXPECT_GT(files, 30);
}

}  // namespace
}  // namespace nodeprobe::coordinator
