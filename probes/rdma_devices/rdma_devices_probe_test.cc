// The rdma-devices probe on captured trees and on variants derived from them
// (each variant changes one value and says what it represents).
#include "probes/rdma_devices/rdma_devices_probe.h"

#include "gtest/gtest.h"
#include "probes/framework/stage_runner.h"
#include "probes/rdma_devices/rdma_profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

using ::nodeprobe::testing::WriteFile;

v1::ProbeResult RunOn(const std::string& sys_root, const Profile& profile = {}) {
  ProbeContext ctx;
  ctx.host.sys_root = sys_root;
  ctx.profile = &profile;
  RdmaDevicesProbe probe;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  EXPECT_TRUE(r.ok()) << r.status();
  v1::ProbeResult result = r.ok() ? *r : v1::ProbeResult();
  FinalizeResult(profile, &result);
  return result;
}

std::vector<std::string> Codes(const v1::ProbeResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings()) out.push_back(f.code());
  return out;
}

const v1::Finding* FindCode(const v1::ProbeResult& r, const std::string& code) {
  for (const auto& f : r.findings()) {
    if (f.code() == code) return &f;
  }
  return nullptr;
}

class HwlocXeonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = testing::HwlocXeonHost();
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    port_ = host_->sys_root + "/class/infiniband/mlx4_0/ports/1/";
    // The capture's scif0 link dangles (its target was not captured); these
    // tests judge mlx4_0 alone. DanglingDeviceLinkIsError covers scif0.
    testing::RemoveTree(host_->sys_root + "/class/infiniband/scif0");
  }
  std::unique_ptr<testing::CapturedHost> host_;
  std::string port_;
};

TEST_F(HwlocXeonTest, ActiveFdrPortPasses) {
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  const v1::RdmaDevice& dev = r.rdma_devices().devices(0);
  EXPECT_EQ(dev.name(), "mlx4_0");
  EXPECT_EQ(dev.fw_ver(), "2.11.500");
  EXPECT_EQ(dev.pci_address(), "0000:82:00.0");
  const v1::RdmaPort& port = dev.ports(0);
  EXPECT_EQ(port.state(), "ACTIVE");
  EXPECT_EQ(port.phys_state(), "LinkUp");
  EXPECT_EQ(port.link_layer(), "InfiniBand");
  EXPECT_DOUBLE_EQ(port.rate_gbps(), 56.0);
  EXPECT_EQ(port.sm_lid(), "0x1");
  EXPECT_GT(port.gids_size(), 0);
  EXPECT_EQ(port.gids(0).family(), "link-local");
  EXPECT_EQ(r.evidence().at(port_ + "rate"), "56 Gb/sec (4X FDR)");
}

TEST_F(HwlocXeonTest, DownPortIsRdmaPortDown) {
  WriteFile(port_ + "state", "1: DOWN\n");  // variant: cable pulled
  WriteFile(port_ + "phys_state", "3: Disabled\n");
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(r.verdict(), v1::FAIL);
  const v1::Finding* f = FindCode(r, "RDMA_PORT_DOWN");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->device(), "mlx4_0:1");
  EXPECT_EQ(f->severity(), v1::FAIL);
}

TEST_F(HwlocXeonTest, InitPortWithLinkUpIsNoSubnetManager) {
  WriteFile(port_ + "state", "2: INIT\n");  // variant: no SM on the fabric
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"IB_NO_SUBNET_MANAGER"});
  EXPECT_NE(r.findings(0).remediation().find("subnet manager"), std::string::npos);
}

TEST_F(HwlocXeonTest, ActivePortWithZeroSmLidIsNoSubnetManager) {
  WriteFile(port_ + "sm_lid", "0x0\n");  // variant: SM gone after bring-up
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"IB_NO_SUBNET_MANAGER"});
}

TEST_F(HwlocXeonTest, NonZeroErrorCounterWarnsByDefaultAndFailsByProfile) {
  WriteFile(port_ + "counters/symbol_error", "17\n");  // variant: bad cable
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(r.verdict(), v1::WARN);
  ASSERT_NE(FindCode(r, "RDMA_ERROR_COUNTERS_NONZERO"), nullptr);
  EXPECT_NE(r.findings(0).message().find("symbol_error=17"), std::string::npos);

  Profile strict;
  strict.MutableSection<RdmaExpectations>().error_counters = v1::FAIL;
  EXPECT_EQ(RunOn(host_->sys_root, strict).verdict(), v1::FAIL);
}

// Variant: the port's counters/ not captured (or not readable): the error
// counters were not seen, which is an ERROR, never a clean PASS.
TEST_F(HwlocXeonTest, CountersThatCannotBeReadAreAnErrorNotClean) {
  testing::RemoveTree(port_ + "counters");
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(r.verdict(), v1::ERROR) << r.DebugString();
  const v1::Finding* f = FindCode(r, "RDMA_COUNTERS_UNREADABLE");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_EQ(f->device(), "mlx4_0:1");
  EXPECT_NE(f->message().find(port_ + "counters"), std::string::npos) << f->message();
}

TEST_F(HwlocXeonTest, ProfileExceptionDowngradesFailToWarnKeepingReason) {
  WriteFile(port_ + "counters/link_downed", "3\n");
  Profile p;
  p.source = "fleet.yaml";
  p.MutableSection<RdmaExpectations>().error_counters = v1::FAIL;
  p.exceptions.push_back({"RDMA_ERROR_COUNTERS_NONZERO", "mlx4_0", "OPS-42", "", "", std::nullopt});
  v1::ProbeResult r = RunOn(host_->sys_root, p);
  EXPECT_EQ(r.verdict(), v1::WARN);
  EXPECT_NE(r.findings(0).exception_reason().find("OPS-42"), std::string::npos);
}

TEST_F(HwlocXeonTest, RateBelowProfileIsReported) {
  Profile p;
  p.MutableSection<RdmaExpectations>().rate_gbps = 100;
  v1::ProbeResult r = RunOn(host_->sys_root, p);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"RDMA_RATE_BELOW_EXPECTED"});
  EXPECT_EQ(r.verdict(), v1::FAIL);
  p.MutableSection<RdmaExpectations>().rate_gbps = 56;
  EXPECT_EQ(RunOn(host_->sys_root, p).verdict(), v1::PASS);
}

TEST_F(HwlocXeonTest, LinkLayerOtherThanProfileIsReported) {
  Profile p;
  p.MutableSection<RdmaExpectations>().link_layer = "Ethernet";
  EXPECT_EQ(Codes(RunOn(host_->sys_root, p)),
            std::vector<std::string>{"RDMA_LINK_LAYER_UNEXPECTED"});
}

TEST_F(HwlocXeonTest, GarbageStateIsErrorNamingTheFile) {
  WriteFile(port_ + "phys_state", "4: ACTIVE\n");  // variant: wrong file content
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(r.verdict(), v1::ERROR);
  const v1::Finding* f = FindCode(r, "SYSFS_VALUE_INVALID");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message().find(port_ + "phys_state"), std::string::npos);
}

TEST_F(HwlocXeonTest, EmptyStateFileIsErrorNotPass) {
  WriteFile(port_ + "state", "");
  EXPECT_EQ(RunOn(host_->sys_root).verdict(), v1::ERROR);
}

TEST_F(HwlocXeonTest, MissingRateFileIsErrorNamingTheFile) {
  testing::RemoveTree(port_ + "rate");
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(r.verdict(), v1::ERROR);
  EXPECT_NE(r.findings(0).message().find(port_ + "rate"), std::string::npos);
}

// A RoCE port: the captured IB port turned Ethernet, with a gid_attrs table.
class RoceVariantTest : public HwlocXeonTest {
 protected:
  void SetUp() override {
    HwlocXeonTest::SetUp();
    WriteFile(port_ + "link_layer", "Ethernet\n");
    // Keep only two GID slots: 0 (link-local) and 1.
    testing::RemoveTree(port_ + "gids");
    WriteFile(port_ + "gids/0", "fe80:0000:0000:0000:0202:c9ff:fef9:bfa1\n");
    WriteFile(port_ + "gid_attrs/types/0", "IB/RoCE v1\n");
    WriteFile(port_ + "gid_attrs/ndevs/0", "eth2\n");
  }
};

TEST_F(RoceVariantTest, OnlyLinkLocalV2GidIsRoceNoV2Gid) {
  WriteFile(port_ + "gids/1", "fe80:0000:0000:0000:0202:c9ff:fef9:bfa1\n");
  WriteFile(port_ + "gid_attrs/types/1", "RoCE v2\n");
  WriteFile(port_ + "gid_attrs/ndevs/1", "eth2\n");
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"ROCE_NO_V2_GID"});
  EXPECT_EQ(r.verdict(), v1::FAIL);
}

TEST_F(RoceVariantTest, Ipv4MappedV2GidPasses) {
  WriteFile(port_ + "gids/1", "0000:0000:0000:0000:0000:ffff:0a00:0001\n");
  WriteFile(port_ + "gid_attrs/types/1", "RoCE v2\n");
  WriteFile(port_ + "gid_attrs/ndevs/1", "eth2\n");
  v1::ProbeResult r = RunOn(host_->sys_root);
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  const v1::GidEntry& gid = r.rdma_devices().devices(0).ports(0).gids(1);
  EXPECT_EQ(gid.type(), "RoCE v2");
  EXPECT_EQ(gid.family(), "ipv4");
  EXPECT_EQ(gid.netdev(), "eth2");
}

TEST(HwlocXeonCaptureTest, DanglingDeviceLinkIsError) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  v1::ProbeResult r = RunOn((*host)->sys_root);
  EXPECT_EQ(r.verdict(), v1::ERROR);
  const v1::Finding* f = FindCode(r, "SYSFS_VALUE_INVALID");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->device(), "scif0");
  EXPECT_NE(f->message().find("class/infiniband/scif0/ports"), std::string::npos);
}

TEST(NodeExporterTest, QdrPortsActiveWithDiscardsWarn) {
  auto host = testing::NodeExporterHost();
  ASSERT_TRUE(host.ok()) << host.status();
  v1::ProbeResult r = RunOn((*host)->sys_root);
  ASSERT_EQ(r.rdma_devices().devices_size(), 2);
  const v1::RdmaDevice& iwarp = r.rdma_devices().devices(0);
  EXPECT_EQ(iwarp.name(), "i40iw0");
  // "N/A (no PMA)" counters are unavailable, not garbage: no counters kept.
  EXPECT_TRUE(iwarp.ports(0).counters().empty());
  const v1::RdmaDevice& mlx = r.rdma_devices().devices(1);
  ASSERT_EQ(mlx.ports_size(), 2);
  EXPECT_EQ(mlx.ports(0).state(), "ACTIVE");
  EXPECT_DOUBLE_EQ(mlx.ports(1).rate_gbps(), 40.0);
  // The capture's port 1 has port_xmit_discards=5.
  const v1::Finding* f = FindCode(r, "RDMA_ERROR_COUNTERS_NONZERO");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->device(), "mlx4_0:1");
  EXPECT_NE(f->message().find("port_xmit_discards=5"), std::string::npos);
  // The capture's mlx4_0 ports lack some error counters (symbol_error on
  // port 1): not seen, so not clean.
  const v1::Finding* absent = FindCode(r, "RDMA_COUNTERS_UNREADABLE");
  ASSERT_NE(absent, nullptr) << r.DebugString();
  EXPECT_NE(absent->message().find("lacks"), std::string::npos) << absent->message();
  EXPECT_EQ(r.verdict(), v1::ERROR);
}

TEST(RdmaDevicesProbeTest, NoDevicesIsSkipWithReasonNeverPass) {
  testing::TempDir dir;
  v1::ProbeResult r = RunOn(dir.path());
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_NE(r.reason().find("no RDMA devices"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe
