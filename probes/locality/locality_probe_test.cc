// The locality probe on hwloc exports of real machines
// (tests/fixtures/hwloc; see its README for what each machine is).
#include "probes/locality/locality_probe.h"

#include <sys/stat.h>

#include "gtest/gtest.h"
#include "probes/locality/path_class.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

v1::ProbeResult Judge(const std::string& fixture, const Profile& profile = {}) {
  absl::StatusOr<platform::PciTopology> topo =
      platform::LoadPciTopology(testing::FixturePath("hwloc/" + fixture));
  EXPECT_TRUE(topo.ok()) << topo.status();
  return topo.ok() ? JudgeLocality(*topo, profile) : v1::ProbeResult();
}

int NicIndex(const v1::Topology& t, const std::string& rdma) {
  for (int j = 0; j < t.nics_size(); ++j) {
    for (const auto& n : t.nics(j).rdma_devices()) {
      if (n == rdma) return j;
    }
  }
  return -1;
}

int GpuIndex(const v1::Topology& t, const std::string& address) {
  for (int i = 0; i < t.gpus_size(); ++i) {
    if (t.gpus(i).pci_address() == address) return i;
  }
  return -1;
}

std::vector<std::string> Codes(const v1::ProbeResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings()) out.push_back(f.code());
  return out;
}

TEST(LocalityFixtureTest, CtsPascalBothP100sArePixToTheConnectX5) {
  v1::ProbeResult r = Judge("cts1-pascal.xml");
  const v1::Topology& t = r.topology();
  ASSERT_EQ(t.gpus_size(), 2);
  int mlx = NicIndex(t, "mlx5_0");
  ASSERT_GE(mlx, 0);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(t.matrix(i).paths(mlx), "PIX") << "GPU" << i;
    EXPECT_EQ(t.rails(i).path(), "PIX");
    EXPECT_TRUE(t.rails(i).gdr_by_default());
  }
  // The two GPUs share one NIC: informational, the verdict stays PASS.
  EXPECT_EQ(Codes(r), std::vector<std::string>{"NIC_SHARED_BY_GPUS"});
  EXPECT_EQ(r.findings(0).severity(), v1::PASS);
  EXPECT_EQ(t.gpus(0).numa_node(), 0);
}

TEST(LocalityFixtureTest, G4dnSocketZeroGpusAreSysToEveryNic) {
  v1::ProbeResult r = Judge("g4dnmetal.xml");
  const v1::Topology& t = r.topology();
  ASSERT_EQ(t.gpus_size(), 8);
  ASSERT_GT(t.nics_size(), 0);
  int socket0 = 0;
  for (int i = 0; i < t.gpus_size(); ++i) {
    if (t.gpus(i).numa_node() != 0) continue;
    ++socket0;
    for (int j = 0; j < t.nics_size(); ++j) {
      EXPECT_EQ(t.matrix(i).paths(j), "SYS") << "GPU" << i << " NIC" << j;
    }
  }
  EXPECT_GT(socket0, 0);
  bool not_local = false, numa = false;
  for (const auto& f : r.findings()) {
    not_local |= f.code() == "GPU_NIC_NOT_LOCAL";
    numa |= f.code() == "GPU_NIC_NUMA_MISMATCH";
  }
  EXPECT_TRUE(not_local);
  EXPECT_TRUE(numa);
  EXPECT_EQ(r.verdict(), v1::VERDICT_UNSPECIFIED);  // derived later: WARN
}

TEST(LocalityFixtureTest, G4dnFailsWhenProfileWantsRailOptimized) {
  Profile p;
  p.rail_optimized = true;
  v1::ProbeResult r = Judge("g4dnmetal.xml", p);
  bool fail = false;
  for (const auto& f : r.findings()) {
    fail |= f.code() == "GPU_NIC_NOT_LOCAL" && f.severity() == v1::FAIL;
  }
  EXPECT_TRUE(fail);
}

TEST(LocalityFixtureTest, X58GpusAndHcaNumaPlacement) {
  v1::ProbeResult r = Judge("24em64t-2n6c2t-pci.xml");
  const v1::Topology& t = r.topology();
  ASSERT_EQ(t.gpus_size(), 3);
  int mlx = NicIndex(t, "mlx4_0");
  ASSERT_GE(mlx, 0);
  EXPECT_EQ(t.nics(mlx).numa_node(), 0);
  EXPECT_EQ(t.gpus(GpuIndex(t, "0000:06:00.0")).numa_node(), 0);
  EXPECT_EQ(t.gpus(GpuIndex(t, "0000:11:00.0")).numa_node(), 1);
  EXPECT_EQ(t.gpus(GpuIndex(t, "0000:14:00.0")).numa_node(), 1);
  // GPU 06:00 and the HCA hang off different root ports of one I/O hub.
  EXPECT_EQ(t.matrix(GpuIndex(t, "0000:06:00.0")).paths(mlx), "PHB");
  EXPECT_EQ(t.matrix(GpuIndex(t, "0000:11:00.0")).paths(mlx), "SYS");
}

TEST(LocalityFixtureTest, LassenGpusAndNicsOnSeparateHostBridges) {
  v1::ProbeResult r = Judge("coral-lassen.xml");
  const v1::Topology& t = r.topology();
  ASSERT_EQ(t.gpus_size(), 4);
  for (int i = 0; i < t.gpus_size(); ++i) {
    for (int j = 0; j < t.nics_size(); ++j) {
      if (t.nics(j).rdma_devices().empty()) continue;
      const std::string& c = t.matrix(i).paths(j);
      EXPECT_TRUE(c == "NODE" || c == "SYS") << "GPU" << i << " NIC" << j << " " << c;
    }
    EXPECT_EQ(t.rails(i).path(), "NODE") << "GPU" << i;
    EXPECT_FALSE(t.rails(i).gdr_by_default());
  }
}

TEST(LocalityFixtureTest, Dgx2DeepSwitchesClassifyAndNoNicIsReported) {
  v1::ProbeResult r = Judge("nvidiaDGX2.xml");
  const v1::Topology& t = r.topology();
  EXPECT_EQ(t.gpus_size(), 16);
  EXPECT_EQ(t.rails_size(), 0);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"NO_RDMA_NIC_FOR_GPU"});
}

TEST(LocalityProbeTest, NoGpuIsSkip) {
  platform::PciTopology topo;
  topo.source = "test";
  v1::ProbeResult r = JudgeLocality(topo, Profile());
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_NE(r.reason().find("no NVIDIA GPUs"), std::string::npos);
}

TEST(LocalityProbeTest, UnreadableXmlIsInvalidArgumentNamingFile) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/bad.xml", "<not-topology/>");
  auto topo = platform::LoadPciTopology(dir.path() + "/bad.xml");
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(topo.status().message().find("bad.xml"), std::string::npos);
}

TEST(PathClassTest, SwitchLevelsDecidePixAndPxb) {
  using platform::AncestorKind;
  platform::TopoPciDevice a, b;
  // a, b below two downstream ports (10, 11) of one switch (upstream 20).
  a.ancestors = {{10, AncestorKind::kPciBridge}, {20, AncestorKind::kPciBridge},
                 {30, AncestorKind::kPciBridge}, {40, AncestorKind::kHostBridge}};
  b.ancestors = {{11, AncestorKind::kPciBridge}, {20, AncestorKind::kPciBridge},
                 {30, AncestorKind::kPciBridge}, {40, AncestorKind::kHostBridge}};
  EXPECT_EQ(locality::ClassifyPath(a, b), locality::PathClass::kPix);
  // b one switch further down: two switches between them.
  b.ancestors.insert(b.ancestors.begin(), {{12, AncestorKind::kPciBridge},
                                           {13, AncestorKind::kPciBridge}});
  b.ancestors[2].id = 14;
  EXPECT_EQ(locality::ClassifyPath(a, b), locality::PathClass::kPxb);
}

TEST(LocalityFixtureTest, Dgx2GpusAreNumberedInPciOrderLikeNvidiaSmi) {
  v1::ProbeResult r = Judge("nvidiaDGX2.xml");
  const v1::Topology& t = r.topology();
  ASSERT_EQ(t.gpus_size(), 16);
  for (int i = 1; i < t.gpus_size(); ++i) {
    EXPECT_LT(t.gpus(i - 1).pci_address(), t.gpus(i).pci_address()) << i;
    EXPECT_EQ(t.gpus(i).label(), "GPU" + std::to_string(i));
  }
  // hwloc's traversal visits the second socket's switches in another
  // order; bus id 0000:34:00.0 is NVML's GPU0 on this machine.
  EXPECT_EQ(t.gpus(0).pci_address(), "0000:34:00.0");
}

TEST(LocalityFixtureTest, NicsAreNamedByRdmaDeviceLikeNvidiaSmiTopo) {
  v1::ProbeResult r = Judge("24em64t-2n6c2t-pci.xml");
  const v1::Topology& t = r.topology();
  ASSERT_GE(t.nics_size(), 1);
  // RDMA NICs first (NIC0 = mlx4_0), then plain NICs by bus id.
  ASSERT_EQ(t.nics(0).rdma_devices_size(), 1);
  EXPECT_EQ(t.nics(0).rdma_devices(0), "mlx4_0");
  for (int j = 2; j < t.nics_size(); ++j) {
    if (t.nics(j - 1).rdma_devices_size() == 0) {
      EXPECT_LT(t.nics(j - 1).pci_address(), t.nics(j).pci_address());
    }
  }
}

TEST(LocalityProbeTest, DeepXmlIsRefusedBeforeHwlocParsesIt) {
  testing::TempDir dir;
  std::string xml = "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">";
  for (int i = 0; i < 30000; ++i) xml += "<object type=\"Group\">";
  testing::WriteFile(dir.path() + "/deep.xml", xml);
  auto topo = platform::LoadPciTopology(dir.path() + "/deep.xml");
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(topo.status().message().find("nested more than 128 deep"), std::string::npos)
      << topo.status();
}

TEST(LocalityProbeTest, AFifoAsXmlIsRefusedNotRead) {
  testing::TempDir dir;
  const std::string fifo = dir.path() + "/topo.xml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  auto topo = platform::LoadPciTopology(fifo);
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(topo.status().message().find("not a regular file"), std::string::npos);
}

TEST(LocalityProbeTest, ACapturedTreeIsReadFromTheCaptureNotTheLiveHost) {
  auto host = testing::HwlocXeonHost({});
  ASSERT_TRUE(host.ok()) << host.status();
  LocalityProbe probe;
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  ctx.host.sys_root = (*host)->sys_root;
  ctx.host.proc_root = (*host)->proc_root;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->topology().source().rfind("captured tree ", 0), 0u) << r->topology().source();
  ASSERT_GE(r->topology().nics_size(), 1);
  EXPECT_EQ(r->topology().nics(0).rdma_devices(0), "mlx4_0");  // the capture's HCA
  // A root that is not a capture's sys/ has no topology to read.
  testing::TempDir other;
  ctx.host.sys_root = other.path();
  r = probe.Run(ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict(), v1::SKIP);
  EXPECT_NE(r->reason().find("topology not captured"), std::string::npos);
}

TEST(PathClassTest, SameSocketAcrossSubNumaNodesIsNodeNotSys) {
  using platform::AncestorKind;
  platform::TopoPciDevice gpu, near_nic, far_nic;
  // Sub-NUMA clustering: one package (100) holds NUMA nodes 0 and 1;
  // the other package (200) node 2; the machine (1) joins them.
  gpu.nodeset = "0x1";
  near_nic.nodeset = "0x2";
  far_nic.nodeset = "0x4";
  gpu.ancestors = {{10, AncestorKind::kHostBridge}, {100, AncestorKind::kOther},
                   {1, AncestorKind::kMachine}};
  near_nic.ancestors = {{11, AncestorKind::kHostBridge}, {100, AncestorKind::kOther},
                        {1, AncestorKind::kMachine}};
  far_nic.ancestors = {{12, AncestorKind::kHostBridge}, {200, AncestorKind::kOther},
                       {1, AncestorKind::kMachine}};
  EXPECT_EQ(locality::ClassifyPath(gpu, near_nic), locality::PathClass::kNode);
  EXPECT_EQ(locality::ClassifyPath(gpu, far_nic), locality::PathClass::kSys);
}

}  // namespace
}  // namespace nodeprobe
