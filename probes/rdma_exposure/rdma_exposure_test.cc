#include "probes/rdma_exposure/rdma_exposure.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/roce_capture.h"

namespace nodeprobe::rdma_exposure {
namespace {

// node_exporter's captured sysfs (mlx4_0 and i40iw0, every port ACTIVE)
// seen from a container whose /dev/infiniband the test writes.
class RdmaExposureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = testing::NodeExporterHost();
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    paths_.sys_root = host_->sys_root;
    dev_ = dir_.path() + "/infiniband";
    std::filesystem::create_directories(dev_);
  }
  void Node(const std::string& node, const std::string& device) {
    testing::WriteFile(dev_ + "/" + node, "");
    testing::WriteFile(host_->sys_root + "/class/infiniband_verbs/" + node + "/ibdev",
                       device + "\n");
  }
  v1::ProbeResult Judged(bool expected) {
    v1::ProbeResult r;
    Judge(rdma_view::DevicesHere(paths_), ReadUverbs(dev_, platform::FileTree(host_->sys_root)),
          expected, "NCCL_IB_HCA=mlx4", &r);
    return r;
  }

  std::unique_ptr<testing::CapturedHost> host_;
  platform::HostPaths paths_;
  testing::TempDir dir_;
  std::string dev_;
};

TEST_F(RdmaExposureTest, DevicesInSysfsWithoutUverbsNodesAreNotUsable) {
  v1::ProbeResult r = Judged(true);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "RDMA_DEVICE_NOT_VISIBLE");
  EXPECT_NE(r.findings(0).message().find("expects RDMA (NCCL_IB_HCA=mlx4) and none usable: "
                                         "i40iw0: no /dev/infiniband/uverbs node"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_EQ(Judged(false).findings_size(), 0) << "not expected: evidence only";
}

TEST_F(RdmaExposureTest, AnOpenableNodeForADeviceWithAnActivePortIsUsable) {
  Node("uverbs0", "mlx4_0");
  v1::ProbeResult r = Judged(true);
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
  EXPECT_EQ(r.evidence().at("rdma.mlx4_0"), "usable");
  EXPECT_NE(r.evidence().at("rdma.i40iw0").find("no /dev/infiniband/uverbs"), std::string::npos);
}

TEST_F(RdmaExposureTest, ANodeThatCannotBeOpenedSaysWhy) {
  std::filesystem::create_directories(dev_ + "/uverbs0");  // open(O_RDWR) fails: EISDIR
  testing::WriteFile(host_->sys_root + "/class/infiniband_verbs/uverbs0/ibdev", "mlx4_0\n");
  v1::ProbeResult r = Judged(true);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_NE(r.findings(0).message().find("mlx4_0: /dev/infiniband/uverbs0: Is a directory"),
            std::string::npos)
      << r.findings(0).message();
}

TEST_F(RdmaExposureTest, ARocePortWithoutAnIpv4V2GidIsNotUsable) {
  testing::MakeRocePort(host_->sys_root, "eth0", 4200);
  testing::WriteFile(host_->sys_root + "/class/infiniband/mlx4_0/ports/2/state", "1: DOWN\n");
  Node("uverbs0", "mlx4_0");
  EXPECT_EQ(Judged(true).findings_size(), 0) << "the RoCE port has a v2 IPv4 GID";
  testing::WriteFile(host_->sys_root + "/class/infiniband/mlx4_0/ports/1/gid_attrs/types/1",
                     "IB/RoCE v1\n");
  v1::ProbeResult r = Judged(true);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_NE(r.findings(0).message().find("no RoCE v2 GID with an IPv4 address"), std::string::npos);
}

TEST_F(RdmaExposureTest, NoDeviceAtAllNamesTheLikelyCauses) {
  v1::ProbeResult r;
  Judge({}, {}, true, "the profile's preflight.expect_rdma", &r);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_NE(r.findings(0).message().find("`rdma system` netns mode is exclusive"),
            std::string::npos);
}

TEST_F(RdmaExposureTest, AKnownNetnsModeNamesTheCause) {
  v1::ProbeResult r;
  Judge({}, {}, true, "NCCL_IB_HCA=mlx5", &r, "exclusive");
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_NE(r.findings(0).message().find("netns mode is exclusive and none was moved into it"),
            std::string::npos);
  v1::ProbeResult shared;
  Judge({}, {}, true, "NCCL_IB_HCA=mlx5", &shared, "shared");
  EXPECT_NE(shared.findings(0).message().find("although the netns mode is shared"),
            std::string::npos);
}

// hwloc's 32em64t capture: mlx4_0 port 1, ACTIVE InfiniBand, PKey table
// 0xffff (the default partition, full member) and 127 empty slots; and
// scif0 (a Xeon Phi's, no PKey table).
class PkeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = testing::HwlocXeonHost();
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    paths_.sys_root = host_->sys_root;
  }
  v1::ProbeResult Judged(int pkey) {
    v1::ProbeResult r;
    JudgePkey(rdma_view::DevicesHere(paths_), pkey, &r);
    return r;
  }
  std::unique_ptr<testing::CapturedHost> host_;
  platform::HostPaths paths_;
};

TEST_F(PkeyTest, TheDefaultPartitionIsHeldInEitherMembership) {
  const std::vector<rdma_view::Device> d = rdma_view::DevicesHere(paths_);
  ASSERT_EQ(d.size(), 2u);
  ASSERT_EQ(d[0].name, "mlx4_0");
  ASSERT_FALSE(d[0].ports.empty());
  EXPECT_EQ(d[0].ports[0].pkeys, std::vector<int>{0xffff});
  v1::ProbeResult r = Judged(0x7fff);
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
  EXPECT_EQ(r.evidence().at("pkeys.mlx4_0/1"), "0xffff");
}

TEST_F(PkeyTest, APartitionNotInTheTableFails) {
  v1::ProbeResult r = Judged(0x0001);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "RDMA_PKEY_MISSING");
  EXPECT_EQ(r.findings(0).device(), "mlx4_0/1");
  EXPECT_NE(r.findings(0).message().find("does not hold the job's partition 0x0001 (its table: "
                                         "0xffff)"),
            std::string::npos)
      << r.findings(0).message();
  // A variant: the SM added the partition as a limited member (0x0001).
  testing::WriteFile(host_->sys_root + "/class/infiniband/mlx4_0/ports/1/pkeys/1", "0x0001\n");
  EXPECT_EQ(Judged(0x0001).findings_size(), 0);
}

}  // namespace
}  // namespace nodeprobe::rdma_exposure
