#include "coordinator/version_matrix.h"

#include "gtest/gtest.h"

namespace nodeprobe::coordinator {
namespace {

v1::Component C(const std::string& name, const std::string& version, const std::string& device = "",
                bool present = true) {
  v1::Component c;
  c.set_name(name);
  c.set_version(version);
  c.set_device(device);
  c.set_present(present);
  return c;
}

TEST(VersionMatrixTest, OneNodeWithAnotherDriverIsTheDrift) {
  std::vector<NodeComponents> fleet = {
      {"gpu01", {C("nvidia_driver", "550.54.15"), C("kernel", "6.1.0-28-amd64")}},
      {"gpu02", {C("nvidia_driver", "550.54.15"), C("kernel", "6.1.0-28-amd64")}},
      {"gpu03", {C("nvidia_driver", "535.161.08"), C("kernel", "6.1.0-28-amd64")}},
  };
  std::vector<ComponentRow> rows = VersionMatrix(fleet);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].component, "kernel");
  EXPECT_TRUE(rows[0].drifted.empty());
  EXPECT_EQ(rows[1].component, "nvidia_driver");
  EXPECT_EQ(rows[1].majority, "550.54.15");
  EXPECT_EQ(rows[1].drifted, std::vector<std::string>{"gpu03"});
  EXPECT_EQ(rows[1].versions.at("gpu03"), "535.161.08");
}

// Drift is only between values that were read: absent on every node, or
// not captured on one, is not drift.
TEST(VersionMatrixTest, AbsentEverywhereAndNotCapturedAreNotDrift) {
  v1::Component not_captured = C("os_release", "", "", false);
  not_captured.set_detail("not captured: the capture has no --etc-root");
  std::vector<NodeComponents> fleet = {
      {"node1", {C("os_release", "", "", false), C("kernel", "6.1")}},
      {"node2", {C("os_release", "", "", false), C("kernel", "6.1")}},
      {"node3", {C("os_release", "", "", false), not_captured}},
  };
  fleet[2].components[1].set_name("kernel");
  for (const ComponentRow& row : VersionMatrix(fleet)) {
    EXPECT_TRUE(row.drifted.empty()) << row.component;
  }
  // One node without a component the others have: that is drift.
  fleet[0].components[0] = C("os_release", "12");
  fleet[1].components[0] = C("os_release", "12");
  const std::vector<ComponentRow> rows = VersionMatrix(fleet);
  EXPECT_EQ(rows[1].component, "os_release");
  EXPECT_EQ(rows[1].drifted, std::vector<std::string>{"node3"});
}

TEST(VersionMatrixTest, APinConvictsEvenTheMajority) {
  std::vector<NodeComponents> fleet = {
      {"a", {C("nccl", "2.21.5")}}, {"b", {C("nccl", "2.21.5")}}, {"c", {C("nccl", "2.23.4")}}};
  std::vector<ComponentRow> rows = VersionMatrix(fleet, {{"nccl", "2.23"}});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].pinned, "2.23");
  EXPECT_EQ(rows[0].drifted, (std::vector<std::string>{"a", "b", "c"}));  // c: off majority
  EXPECT_EQ(rows[0].off_pin, (std::vector<std::string>{"a", "b"}));
  rows = VersionMatrix(fleet, {{"nccl", "2.21"}});
  EXPECT_EQ(rows[0].drifted, std::vector<std::string>{"c"});
}

TEST(VersionMatrixTest, PerDeviceFirmwareAndMissingComponentsAreRowsOfTheirOwn) {
  std::vector<NodeComponents> fleet = {
      {"a", {C("hca_firmware", "28.39.1002", "mlx5_0"), C("hca_firmware", "28.39.1002", "mlx5_1"),
             C("nccl", "", "", false)}},
      {"b", {C("hca_firmware", "28.39.1002", "mlx5_0"), C("nccl", "2.21.5")}},
  };
  std::vector<ComponentRow> rows = VersionMatrix(fleet);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].component, "hca_firmware mlx5_0");
  EXPECT_TRUE(rows[0].drifted.empty());
  EXPECT_EQ(rows[1].component, "hca_firmware mlx5_1");
  EXPECT_EQ(rows[1].drifted, std::vector<std::string>{"b"});  // b has no mlx5_1
  EXPECT_EQ(rows[2].versions.at("a"), "absent");
  EXPECT_EQ(rows[2].majority, "2.21.5");
  EXPECT_EQ(rows[2].drifted, std::vector<std::string>{"a"});
}

TEST(VersionMatrixTest, ATieDoesNotDependOnTheOrderOfNodes) {
  std::vector<NodeComponents> ab = {{"a", {C("kernel", "6.1")}}, {"b", {C("kernel", "6.2")}}};
  std::vector<NodeComponents> ba = {{"b", {C("kernel", "6.2")}}, {"a", {C("kernel", "6.1")}}};
  EXPECT_EQ(VersionMatrix(ab)[0].majority, "6.2");
  EXPECT_EQ(VersionMatrix(ba)[0].majority, "6.2");
  EXPECT_EQ(VersionMatrix(ab)[0].drifted, std::vector<std::string>{"a"});
}

}  // namespace
}  // namespace nodeprobe::coordinator
