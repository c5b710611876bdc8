// The stages' profile sections, declared beside them (cluster_profile.h,
// congestion_profile.h, failure_profile.h): read, checked at FILE:LINE,
// and their defaults when absent.
#include <string>
#include <utility>
#include <vector>

#include "coordinator/stages/cluster/cluster_profile.h"
#include "coordinator/stages/congestion/congestion_profile.h"
#include "coordinator/stages/failure/failure_profile.h"
#include "gtest/gtest.h"
#include "probes/framework/profile.h"

namespace nodeprobe {
namespace {

TEST(ParseProfileTest, ClusterBlameRulesAreReadAndChecked) {
  absl::StatusOr<Profile> p = ParseProfile(
      "cluster:\n  suspect_share: 0.34\n  retest: false\n  latency: true\n"
      "  max_latency_ratio: 3\n",
      "c.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->Section<ClusterRules>().latency);
  EXPECT_DOUBLE_EQ(p->Section<ClusterRules>().max_latency_ratio, 3);
  EXPECT_DOUBLE_EQ(p->Section<ClusterRules>().suspect_share, 0.34);
  EXPECT_FALSE(p->Section<ClusterRules>().retest);
  absl::StatusOr<Profile> defaults = ParseProfile("", "c.yaml");
  ASSERT_TRUE(defaults.ok());
  EXPECT_DOUBLE_EQ(defaults->Section<ClusterRules>().suspect_share, 0.5);
  EXPECT_TRUE(defaults->Section<ClusterRules>().retest);
  for (const auto& [yaml, says] : std::vector<std::pair<std::string, std::string>>{
           {"cluster:\n  suspect_share: 1\n", "must be in (0, 1)"},
           {"cluster:\n  suspect_share: many\n", "cluster.suspect_share"},
           {"cluster:\n  retest: sometimes\n", "cluster.retest"},
           {"cluster:\n  max_latency_ratio: 1\n", "above 1"},
           {"cluster:\n  pattern: ring\n", "suspect_share"},
           {"cluster: [1]\n", "cluster must be a mapping"}}) {
    absl::StatusOr<Profile> bad = ParseProfile(yaml, "c.yaml");
    ASSERT_FALSE(bad.ok()) << yaml;
    EXPECT_NE(bad.status().message().find(says), std::string::npos) << bad.status();
    EXPECT_EQ(bad.status().message().rfind("c.yaml:", 0), 0u) << bad.status();
  }
}

TEST(ParseProfileTest, CongestionAndFailureKeysAreReadAndChecked) {
  absl::StatusOr<Profile> p = ParseProfile(
      "congestion:\n  patterns: [incast]\n  group_size: 4\n  incast_senders: 2\n"
      "  min_fairness: 0.7\n  max_latency_ratio: 20\nfailure:\n  link_down_s: 1.5\n"
      "  max_recover_s: 10\n",
      "f.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->Section<CongestionRules>().incast);
  EXPECT_FALSE(p->Section<CongestionRules>().all_to_all);
  EXPECT_EQ(p->Section<CongestionRules>().group_size, 4);
  EXPECT_EQ(p->Section<CongestionRules>().incast_senders, 2);
  EXPECT_DOUBLE_EQ(p->Section<CongestionRules>().min_fairness, 0.7);
  EXPECT_DOUBLE_EQ(p->Section<CongestionRules>().max_latency_ratio, 20);
  EXPECT_DOUBLE_EQ(p->Section<FailureRules>().link_down_s, 1.5);
  EXPECT_DOUBLE_EQ(p->Section<FailureRules>().max_recover_s, 10);
  for (const auto& [yaml, says] : std::vector<std::pair<std::string, std::string>>{
           {"congestion:\n  patterns: [storm]\n", "congestion.patterns"},
           {"congestion:\n  patterns: []\n", "must be a list"},
           {"congestion:\n  group_size: 2\n", "3 to 64"},
           {"congestion:\n  group_size: 4.5\n", "whole number"},
           {"congestion:\n  min_fairness: 0\n", "(0, 1]"},
           {"congestion:\n  burst: 1\n", "group_size"},
           {"failure:\n  link_down_s: 600\n", "0.1 to 60"},
           {"failure:\n  reboot: true\n", "link_down_s"}}) {
    absl::StatusOr<Profile> bad = ParseProfile(yaml, "f.yaml");
    ASSERT_FALSE(bad.ok()) << yaml;
    EXPECT_NE(bad.status().message().find(says), std::string::npos) << bad.status();
  }
}

}  // namespace
}  // namespace nodeprobe
