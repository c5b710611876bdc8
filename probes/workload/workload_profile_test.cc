#include "probes/workload/workload_profile.h"

#include <gtest/gtest.h>

#include "probes/framework/profile.h"

namespace nodeprobe {
namespace {

TEST(WorkloadProfileTest, ANamedShapeThenItsKeysWhateverTheOrder) {
  absl::StatusOr<Profile> p = ParseProfile(
      "workload:\n  tp: 2\n  scale: 0.01\n  shape: llama2-70b-tp8-pp4\n  pp: 2\n"
      "  step_cv_max: 0.2\n",
      "w.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  const WorkloadRules& w = p->Section<WorkloadRules>();
  const workload::WorkloadShape s = w.Shape();
  EXPECT_EQ(s.name, "llama2-70b-tp8-pp4");
  EXPECT_EQ(s.tp, 2);  // the key wins over the named shape's 8
  EXPECT_EQ(s.pp, 2);
  EXPECT_EQ(s.hidden, 8192);  // the named shape's
  EXPECT_TRUE(s.sequence_parallel);
  EXPECT_DOUBLE_EQ(s.scale, 0.01);
  EXPECT_DOUBLE_EQ(w.step_cv_max, 0.2);
  EXPECT_FALSE(w.skew_max_ms.has_value());
}

TEST(WorkloadProfileTest, AKeyOutOfRangeOrUnknownNamesItself) {
  for (const auto& [yaml, expect] : std::vector<std::pair<std::string, std::string>>{
           {"workload:\n  tp: 0\n", "workload.tp"},
           {"workload:\n  scale: 2\n", "workload.scale must be number in (0, 1]"},
           {"workload:\n  zero: 2\n", "workload.zero"},
           {"workload:\n  dtype: int8\n", "workload.dtype"},
           {"workload:\n  shape: gpt5\n", "unknown shape 'gpt5'"},
           {"workload:\n  steps: 1\n", "workload.steps"},
           {"workload:\n  comm_share_max: 1.5\n", "workload.comm_share_max"},
           {"workload:\n  tensor: 2\n", "tensor"},
       }) {
    absl::StatusOr<Profile> p = ParseProfile(yaml, "w.yaml");
    ASSERT_FALSE(p.ok()) << yaml;
    EXPECT_NE(p.status().message().find(expect), std::string::npos) << p.status();
    EXPECT_NE(p.status().message().find("w.yaml:"), std::string::npos) << p.status();
  }
}

TEST(WorkloadProfileTest, EveryNamedShapeIsKnown) {
  ASSERT_GE(NamedShapes().size(), 3u);
  for (const std::string& name : NamedShapes()) {
    std::optional<workload::WorkloadShape> s = NamedShape(name);
    ASSERT_TRUE(s.has_value()) << name;
    EXPECT_EQ(s->name, name);
  }
  EXPECT_FALSE(NamedShape("nope").has_value());
}

}  // namespace
}  // namespace nodeprobe
