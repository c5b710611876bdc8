// The locality probe on hwloc exports of real machines
// (tests/fixtures/hwloc; see its README for what each machine is).
#include "probes/locality/locality_probe.h"

#include <sys/stat.h>

#include <regex>

#include "gtest/gtest.h"
#include "probes/locality/locality_profile.h"
#include "probes/locality/path_class.h"
#include "probes/nccl/nccl_profile.h"
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

TEST(LocalityFixtureTest, RdmaRailsAgreeWithTheProbesRailsOnEveryFixture) {
  for (const char* fixture : {"cts1-pascal.xml", "24em64t-2n6c2t-pci.xml", "coral-lassen.xml",
                              "g4dnmetal.xml"}) {
    auto topo = platform::LoadPciTopology(testing::FixturePath(std::string("hwloc/") + fixture));
    ASSERT_TRUE(topo.ok()) << topo.status();
    const std::map<std::string, RdmaRail> rails = RdmaRails(*topo);
    const v1::Topology t = JudgeLocality(*topo, Profile()).topology();
    int checked = 0;
    for (const v1::GpuRail& rail : t.rails()) {
      std::string pci;
      for (const auto& g : t.gpus()) {
        if (g.label() == rail.gpu()) pci = g.pci_address();
      }
      ASSERT_TRUE(rails.count(pci)) << fixture << " " << rail.gpu();
      EXPECT_EQ(rails.at(pci).gdr_by_default, rail.gdr_by_default()) << fixture << " " << pci;
      EXPECT_FALSE(rails.at(pci).nics.empty()) << fixture << " " << pci;
      ++checked;
    }
    if (std::string(fixture) == "cts1-pascal.xml") {
      EXPECT_EQ(checked, 2);
      for (const auto& [pci, rail] : rails) {
        EXPECT_TRUE(rail.gdr_by_default) << pci;
        EXPECT_EQ(rail.nics, std::set<std::string>{"mlx5_0"}) << pci;
      }
    }
  }
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
  p.MutableSection<LocalityRules>().rail_optimized = true;
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
  a.ancestors = {{10, AncestorKind::kPciBridge, ""}, {20, AncestorKind::kPciBridge, ""},
                 {30, AncestorKind::kPciBridge, ""}, {40, AncestorKind::kHostBridge, ""}};
  b.ancestors = {{11, AncestorKind::kPciBridge, ""}, {20, AncestorKind::kPciBridge, ""},
                 {30, AncestorKind::kPciBridge, ""}, {40, AncestorKind::kHostBridge, ""}};
  EXPECT_EQ(locality::ClassifyPath(a, b), locality::PathClass::kPix);
  // b one switch further down: two switches between them.
  b.ancestors.insert(b.ancestors.begin(), {{12, AncestorKind::kPciBridge, ""},
                                           {13, AncestorKind::kPciBridge, ""}});
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
  gpu.ancestors = {{10, AncestorKind::kHostBridge, ""}, {100, AncestorKind::kOther, ""},
                   {1, AncestorKind::kMachine, ""}};
  near_nic.ancestors = {{11, AncestorKind::kHostBridge, ""}, {100, AncestorKind::kOther, ""},
                        {1, AncestorKind::kMachine, ""}};
  far_nic.ancestors = {{12, AncestorKind::kHostBridge, ""}, {200, AncestorKind::kOther, ""},
                       {1, AncestorKind::kMachine, ""}};
  EXPECT_EQ(locality::ClassifyPath(gpu, near_nic), locality::PathClass::kNode);
  EXPECT_EQ(locality::ClassifyPath(gpu, far_nic), locality::PathClass::kSys);
}

// One machine written twice, for the NCCL_TOPO_FILE check: 2 packages,
// 8 PCIe switches (4 per package, each below its own host bridge), switch i
// holding GPU i (bus 0xN1) and NIC mlx5_i (bus 0xN2). hwloc 2.x XML ...
std::string HwlocEightByEight() {
  std::string x =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      "<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" cpuset=\"0x00000003\" "
      "complete_cpuset=\"0x00000003\" allowed_cpuset=\"0x00000003\" nodeset=\"0x00000003\" "
      "complete_nodeset=\"0x00000003\" allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n";
  int gp = 10;
  for (int pkg = 0; pkg < 2; ++pkg) {
    const std::string set = pkg == 0 ? "0x00000001" : "0x00000002";
    x += "<object type=\"Package\" os_index=\"" + std::to_string(pkg) + "\" cpuset=\"" + set +
         "\" complete_cpuset=\"" + set + "\" nodeset=\"" + set + "\" complete_nodeset=\"" + set +
         "\" gp_index=\"" + std::to_string(gp++) + "\">\n";
    x += "<object type=\"NUMANode\" os_index=\"" + std::to_string(pkg) + "\" cpuset=\"" + set +
         "\" complete_cpuset=\"" + set + "\" nodeset=\"" + set + "\" complete_nodeset=\"" + set +
         "\" gp_index=\"" + std::to_string(gp++) + "\" local_memory=\"1073741824\"/>\n";
    // Two ids in one expression would be taken in an unspecified order.
    const int core_gp = gp++;
    const int pu_gp = gp++;
    x += "<object type=\"Core\" os_index=\"0\" cpuset=\"" + set + "\" complete_cpuset=\"" + set +
         "\" nodeset=\"" + set + "\" complete_nodeset=\"" + set + "\" gp_index=\"" +
         std::to_string(core_gp) + "\">\n<object type=\"PU\" os_index=\"" + std::to_string(pkg) +
         "\" cpuset=\"" + set + "\" complete_cpuset=\"" + set + "\" nodeset=\"" + set +
         "\" complete_nodeset=\"" + set + "\" gp_index=\"" + std::to_string(pu_gp) +
         "\"/>\n</object>\n";
    for (int k = 0; k < 4; ++k) {
      const int i = pkg * 4 + k;
      char b[8], g[8], n[8], hi[8];
      snprintf(b, sizeof(b), "%02x", 0x10 + 0x10 * i);
      snprintf(g, sizeof(g), "%02x", 0x11 + 0x10 * i);
      snprintf(n, sizeof(n), "%02x", 0x12 + 0x10 * i);
      snprintf(hi, sizeof(hi), "%02x", 0x1f + 0x10 * i);
      x += "<object type=\"Bridge\" gp_index=\"" + std::to_string(gp++) +
           "\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0000:[" + b + "-" + hi + "]\">\n";
      x += "<object type=\"Bridge\" gp_index=\"" + std::to_string(gp++) +
           "\" bridge_type=\"1-1\" depth=\"1\" bridge_pci=\"0000:[" + g + "-" + n +
           "]\" pci_busid=\"0000:" + b + ":00.0\" pci_type=\"0604 [1000:c030] [0000:0000] 00\" "
           "pci_link_speed=\"63.015385\">\n";
      const int gpu_gp = gp++, gpu_os_gp = gp++, nic_gp = gp++, nic_os_gp = gp++;
      x += "<object type=\"PCIDev\" gp_index=\"" + std::to_string(gpu_gp) + "\" pci_busid=\"0000:" +
           g + ":00.0\" pci_type=\"0302 [10de:2330] [10de:16c1] a1\" pci_link_speed=\"63.015385\">\n"
           "<object type=\"OSDev\" gp_index=\"" + std::to_string(gpu_os_gp) + "\" name=\"nvml" +
           std::to_string(i) + "\" osdev_type=\"1\"/>\n</object>\n";
      x += "<object type=\"PCIDev\" gp_index=\"" + std::to_string(nic_gp) + "\" pci_busid=\"0000:" +
           n + ":00.0\" pci_type=\"0207 [15b3:1021] [15b3:0023] 00\" pci_link_speed=\"63.015385\">\n"
           "<object type=\"OSDev\" gp_index=\"" + std::to_string(nic_os_gp) + "\" name=\"mlx5_" +
           std::to_string(i) + "\" osdev_type=\"3\"/>\n</object>\n";
      x += "</object>\n</object>\n";
    }
    x += "</object>\n";
  }
  x += "</object>\n</topology>\n";
  return x;
}

// ... and as NCCL_TOPO_DUMP_FILE would write it, with GPU `moved` placed
// in switch `to` instead of its own (-1: none moved).
std::string NcclEightByEight(int moved = -1, int to = -1) {
  std::string x = "<system version=\"1\">\n";
  for (int pkg = 0; pkg < 2; ++pkg) {
    x += "  <cpu numaid=\"" + std::to_string(pkg) +
         "\" affinity=\"00000001\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" "
         "modelid=\"143\">\n";
    for (int k = 0; k < 4; ++k) {
      const int sw = pkg * 4 + k;
      char b[8];
      snprintf(b, sizeof(b), "%02x", 0x10 + 0x10 * sw);
      x += std::string("    <pci busid=\"0000:") + b +
           ":00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\" "
           "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n";
      for (int gpu = 0; gpu < 8; ++gpu) {
        const int home = gpu == moved ? to : gpu;
        if (home != sw) continue;
        char g[8];
        snprintf(g, sizeof(g), "%02x", 0x11 + 0x10 * gpu);
        x += std::string("      <pci busid=\"0000:") + g +
             ":00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" "
             "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n        <gpu dev=\"" +
             std::to_string(gpu) + "\" sm=\"90\" rank=\"" + std::to_string(gpu) +
             "\" gdr=\"1\"/>\n      </pci>\n";
      }
      char n[8];
      snprintf(n, sizeof(n), "%02x", 0x12 + 0x10 * sw);
      x += std::string("      <pci busid=\"0000:") + n +
           ":00.0\" class=\"0x020700\" vendor=\"0x15b3\" device=\"0x1021\" "
           "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n        <nic>\n          "
           "<net name=\"mlx5_" + std::to_string(sw) +
           "\" dev=\"" + std::to_string(sw) + "\" speed=\"400000\" port=\"1\" gdr=\"1\"/>\n"
           "        </nic>\n      </pci>\n    </pci>\n";
    }
    x += "  </cpu>\n";
  }
  x += "</system>\n";
  return x;
}

TEST(NcclTopologyTest, AnNcclTopologyFileIsJudgedLikeAnHwlocExport) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/hwloc.xml", HwlocEightByEight());
  testing::WriteFile(dir.path() + "/nccl.xml", NcclEightByEight());
  auto hw = platform::LoadPciTopology(dir.path() + "/hwloc.xml");
  ASSERT_TRUE(hw.ok()) << hw.status();
  auto nc = platform::LoadPciTopology(dir.path() + "/nccl.xml");
  ASSERT_TRUE(nc.ok()) << nc.status();
  EXPECT_NE(nc->source.find("NCCL topology"), std::string::npos);
  // The same pairing from both: GPU i is PIX to mlx5_i.
  v1::ProbeResult from_hwloc = JudgeLocality(*hw, Profile());
  v1::ProbeResult from_nccl = JudgeLocality(*nc, Profile());
  for (const v1::ProbeResult* r : {&from_hwloc, &from_nccl}) {
    ASSERT_EQ(r->topology().gpus_size(), 8) << r->DebugString();
    ASSERT_EQ(r->topology().rails_size(), 8);
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(r->topology().rails(i).path(), "PIX");
      ASSERT_EQ(r->topology().rails(i).nics_size(), 1);
      EXPECT_EQ(r->topology().rails(i).nics(0), "NIC" + std::to_string(i));
    }
    EXPECT_EQ(Codes(*r), std::vector<std::string>{});
  }
  EXPECT_EQ(NearestRdmaNics(*hw), NearestRdmaNics(*nc));
  // A file with GPU7 placed in switch 6: NCCL would send GPU7's traffic
  // through mlx5_6.
  testing::WriteFile(dir.path() + "/moved.xml", NcclEightByEight(7, 6));
  auto moved = platform::LoadPciTopology(dir.path() + "/moved.xml");
  ASSERT_TRUE(moved.ok()) << moved.status();
  v1::ProbeResult r;
  CompareNcclTopoFile(*hw, *moved, dir.path() + "/moved.xml", &r);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "NCCL_TOPO_FILE_MISMATCH");
  EXPECT_EQ(r.findings(0).device(), "0000:81:00.0");
  EXPECT_NE(r.findings(0).message().find("nearest RDMA NIC is mlx5_7 on this node, but "
                                         "NCCL_TOPO_FILE"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_NE(r.findings(0).message().find("says mlx5_6"), std::string::npos);
}

// The Azure way: NCCL topology files that name devices by PCI class only
// (no vendor attribute, no <gpu>/<nic> elements), as Azure ships for ND
// H100 v5 and NDv4. Made from the NCCL file above by dropping the vendor
// and device attributes and the <gpu>/<nic> children; NCCL itself reads
// class 0x03 as a GPU and 0x02 as a NIC.
std::string AzureWay(const std::string& nccl) {
  std::string x = std::regex_replace(nccl, std::regex(" (vendor|device)=\"0x[0-9a-f]+\""), "");
  x = std::regex_replace(x, std::regex(">\\s*<gpu [^>]*/>\\s*</pci>"), "/>");
  x = std::regex_replace(x, std::regex(">\\s*<nic>\\s*<net [^>]*/>\\s*</nic>\\s*</pci>"), "/>");
  return x;
}

TEST(NcclTopologyTest, FilesThatNameDevicesByClassOnlyAreReadAsNcclReadsThem) {
  const std::string azure = AzureWay(NcclEightByEight());
  ASSERT_EQ(azure.find("vendor=\"0x"), std::string::npos) << azure;
  ASSERT_EQ(azure.find("<gpu"), std::string::npos) << azure;
  ASSERT_EQ(azure.find("<net"), std::string::npos) << azure;
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/azure.xml", azure);
  auto topo = platform::LoadPciTopology(dir.path() + "/azure.xml");
  ASSERT_TRUE(topo.ok()) << topo.status();
  v1::ProbeResult r = JudgeLocality(*topo, Profile());
  EXPECT_NE(r.verdict(), v1::SKIP) << r.DebugString();
  ASSERT_EQ(r.topology().gpus_size(), 8) << r.DebugString();
  ASSERT_EQ(r.topology().nics_size(), 8);
  ASSERT_EQ(r.topology().rails_size(), 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(r.topology().rails(i).path(), "PIX") << i;
    ASSERT_EQ(r.topology().rails(i).nics_size(), 1);
    EXPECT_EQ(r.topology().rails(i).nics(0), "NIC" + std::to_string(i));
  }
  EXPECT_EQ(Codes(r), std::vector<std::string>{});
  // Azure's own shape: GPU and HCA in pairs under virtual bridges whose
  // vendor is 0x0000 (ND H100 v5: one pair per bridge, bus ids 000N/010N).
  std::string nd = "<system version=\"1\">\n";
  for (int cpu = 0; cpu < 2; ++cpu) {
    nd += "<cpu numaid=\"" + std::to_string(cpu) + "\" arch=\"x86_64\">\n";
    for (int k = 1; k <= 4; ++k) {
      const std::string n = std::to_string(cpu * 4 + k);
      nd += "<pci busid=\"ffff:ff:0" + n + ".0\" class=\"0x060400\" link_speed=\"32.0 GT/s "
            "PCIe\" link_width=\"16\" vendor=\"0x0000\" device=\"0x0000\">\n"
            "<pci busid=\"000" + n + ":00:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" "
            "link_width=\"16\"/>\n<pci busid=\"010" + n + ":00:00.0\" class=\"0x020700\" "
            "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>\n</pci>\n";
    }
    nd += "</cpu>\n";
  }
  nd += "</system>\n";
  testing::WriteFile(dir.path() + "/ndv5.xml", nd);
  topo = platform::LoadPciTopology(dir.path() + "/ndv5.xml");
  ASSERT_TRUE(topo.ok()) << topo.status();
  r = JudgeLocality(*topo, Profile());
  ASSERT_EQ(r.topology().gpus_size(), 8) << r.DebugString();
  ASSERT_EQ(r.topology().rails_size(), 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(r.topology().gpus(i).pci_address(), "000" + std::to_string(i + 1) + ":00:00.0");
    EXPECT_EQ(r.topology().rails(i).path(), "PIX") << i;
    EXPECT_EQ(r.topology().rails(i).nics(0), "NIC" + std::to_string(i));
  }
  EXPECT_EQ(Codes(r), std::vector<std::string>{});
  // Compared with the live topology (hwloc, named HCAs): the file's NICs
  // are matched by bus id, so the right file is no mismatch.
  testing::WriteFile(dir.path() + "/hwloc.xml", HwlocEightByEight());
  auto hw = platform::LoadPciTopology(dir.path() + "/hwloc.xml");
  ASSERT_TRUE(hw.ok());
  testing::WriteFile(dir.path() + "/azure-moved.xml", AzureWay(NcclEightByEight(7, 6)));
  auto same = platform::LoadPciTopology(dir.path() + "/azure.xml");
  auto moved = platform::LoadPciTopology(dir.path() + "/azure-moved.xml");
  ASSERT_TRUE(same.ok() && moved.ok());
  v1::ProbeResult cmp;
  CompareNcclTopoFile(*hw, *same, "azure.xml", &cmp);
  EXPECT_EQ(cmp.findings_size(), 0) << cmp.DebugString();
  CompareNcclTopoFile(*hw, *moved, "azure-moved.xml", &cmp);
  ASSERT_EQ(cmp.findings_size(), 1) << cmp.DebugString();
  EXPECT_NE(cmp.findings(0).message().find("says mlx5_6"), std::string::npos)
      << cmp.findings(0).message();
}

TEST(NcclTopologyTest, TheProbeChecksTheFileTheProfileNames) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/hwloc.xml", HwlocEightByEight());
  testing::WriteFile(dir.path() + "/moved.xml", NcclEightByEight(7, 6));
  Profile profile;
  profile.MutableSection<NcclRules>().topo_file = dir.path() + "/moved.xml";
  ProbeContext ctx;
  ctx.profile = &profile;
  ctx.host.topology_xml = dir.path() + "/hwloc.xml";
  absl::StatusOr<v1::ProbeResult> r = LocalityProbe().Run(ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Codes(*r), std::vector<std::string>{"NCCL_TOPO_FILE_MISMATCH"});
  EXPECT_EQ(r->evidence().at("NCCL_TOPO_FILE"), profile.Section<NcclRules>().topo_file);
  // A profile naming a file that is not there: NCCL would fail too.
  profile.MutableSection<NcclRules>().topo_file = dir.path() + "/absent.xml";
  r = LocalityProbe().Run(ctx);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->findings_size(), 1);
  EXPECT_EQ(r->findings(0).severity(), v1::ERROR);
}

TEST(NcclTopologyTest, VirtualMachineBridgeLinksAreInfoNotFaults) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/vm.xml",
                     "<system version=\"1\"><cpu numaid=\"0\">"
                     "<pci busid=\"0000:00:02.0\" class=\"0x060400\" link_speed=\"2.5 GT/s PCIe\" "
                     "link_width=\"1\"><pci busid=\"0000:01:00.0\" class=\"0x030200\" "
                     "vendor=\"0x10de\" link_speed=\"2.5 GT/s PCIe\" link_width=\"0\">"
                     "<gpu dev=\"0\"/></pci></pci></cpu></system>");
  auto topo = platform::LoadPciTopology(dir.path() + "/vm.xml");
  ASSERT_TRUE(topo.ok()) << topo.status();
  v1::ProbeResult r = JudgeLocality(*topo, Profile());
  bool noted = false;
  for (const auto& f : r.findings()) {
    if (f.code() == "PCIE_VM_LINK_ARTIFACT") {
      noted = true;
      EXPECT_EQ(f.severity(), v1::PASS);
      EXPECT_NE(f.message().find("0000:00:02.0 reports 2.5 GT/s PCIe x1"), std::string::npos);
    }
  }
  EXPECT_TRUE(noted) << r.DebugString();
}

TEST(NcclTopologyTest, MalformedNcclXmlIsAnErrorNamingTheFile) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/bad.xml", "<system><cpu></system>");
  auto topo = platform::LoadPciTopology(dir.path() + "/bad.xml");
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(topo.status().message().find("bad.xml: not well-formed XML"), std::string::npos)
      << topo.status();
}

}  // namespace
}  // namespace nodeprobe
