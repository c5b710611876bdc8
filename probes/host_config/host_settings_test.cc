// Host settings on captured trees (node_exporter's: powersave on its four
// CPUs; hwloc's Xeon: performance on every CPU) and variants derived from
// them for what a capture lacks (IOMMU groups, NUMA balancing, the rails'
// ARP settings): each rule judges only when the profile asks, a value that
// cannot be read is an ERROR, and with no rule the probe SKIPs.
#include "probes/host_config/host_settings.h"

#include <filesystem>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "probes/framework/profile.h"
#include "probes/host_config/host_config_probe.h"
#include "probes/host_config/pcie_sizes.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::hostcfg {
namespace {

int Count(const v1::ProbeResult& r, const std::string& code) {
  int n = 0;
  for (const v1::Finding& f : r.findings()) n += f.code() == code;
  return n;
}

std::string Messages(const v1::ProbeResult& r) {
  std::string out;
  for (const v1::Finding& f : r.findings()) out += f.code() + ": " + f.message() + "\n";
  return out;
}

// A config space per the PCI spec: a power-management capability at 0x40,
// then the PCI Express capability at 0x60 whose Device Control holds `mps`
// and `mrrs` (encoded: 128 << n), supporting 512-byte payloads.
std::string ConfigSpace(int mps, int mrrs, size_t size = 256) {
  std::string c(size, '\0');
  c[0x06] = 0x10;  // status: capability list
  c[0x34] = 0x40;
  c[0x40] = 0x01;  // power management
  c[0x41] = 0x60;
  c[0x60] = 0x10;  // PCI Express
  c[0x61] = 0x00;
  c[0x64] = 0x02;  // Device Capabilities: 512 bytes supported
  const uint16_t devctl = static_cast<uint16_t>(mps << 5 | mrrs << 12);
  c[0x68] = static_cast<char>(devctl & 0xff);
  c[0x69] = static_cast<char>(devctl >> 8);
  return c;
}

TEST(PcieSizesTest, DeviceControlGivesPayloadAndReadRequest) {
  absl::StatusOr<PcieSizes> s = ParsePcieSizes(ConfigSpace(1, 5));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->max_payload, 256);
  EXPECT_EQ(s->max_read_request, 4096);
  EXPECT_EQ(s->max_payload_supported, 512);
  // What a non-root reader gets: 64 bytes.
  EXPECT_EQ(ParsePcieSizes(ConfigSpace(1, 5).substr(0, 64)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  std::string loop = ConfigSpace(1, 5);
  loop[0x41] = 0x40;  // points at itself
  loop[0x40] = 0x01;
  EXPECT_FALSE(ParsePcieSizes(loop).ok());
  std::string conventional = ConfigSpace(1, 5);
  conventional[0x06] = 0;
  EXPECT_EQ(ParsePcieSizes(conventional).status().code(), absl::StatusCode::kNotFound);
}

// hwloc's capture was taken without root: mlx4_0's config holds 64 bytes.
TEST(HostSettingsTest, PcieSizesOfTheCapturedNicNeedRootThenAreJudged) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  const platform::FileTree sys((*host)->sys_root);
  const platform::FileTree proc((*host)->proc_root);
  HostRules rules;
  rules.pcie_max_read_request_min = 4096;
  HostInputs in{&proc, &sys, {}, false};
  in.rdma = *platform::ReadRdmaDevices(sys);  // as the probe reads them
  v1::ProbeResult r;
  EXPECT_EQ(JudgeHostSettings(in, rules, &r), 1);
  ASSERT_EQ(Count(r, "HOST_SETTING_NOT_READABLE"), 1) << Messages(r);
  EXPECT_TRUE(absl::StrContains(r.findings(0).message(), "0000:82:00.0 (mlx4_0)"));
  EXPECT_TRUE(absl::StrContains(r.findings(0).message(), "only 64 bytes")) << Messages(r);
  // The same function read as root, its read requests at 512 bytes.
  testing::WriteFile((*host)->sys_root + "/devices/pci0000:80/0000:80:02.2/0000:82:00.0/config",
                     ConfigSpace(1, 2));
  v1::ProbeResult root;
  JudgeHostSettings(in, rules, &root);
  ASSERT_EQ(Count(root, "HOST_SETTING_MISMATCH"), 1) << Messages(root);
  EXPECT_TRUE(absl::StrContains(root.findings(0).message(),
                                "Max_Read_Request_Size is 512 bytes, the profile expects at "
                                "least 4096"))
      << Messages(root);
  bool sized = false;
  for (const v1::Setting& s : root.config().settings()) {
    sized |= s.name() == "host.pcie_payload_read_request" && s.value() == "256/512";
  }
  EXPECT_TRUE(sized) << root.config().DebugString();
}

TEST(HostSettingsTest, TheCapturesHugePagesAreCountedAgainstTheMinimum) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  const platform::FileTree sys((*host)->sys_root);
  const platform::FileTree proc((*host)->proc_root);
  HostRules rules;
  rules.hugepages_min = 1024;
  v1::ProbeResult r;
  EXPECT_EQ(JudgeHostSettings({&proc, &sys, {}, false}, rules, &r), 1);
  ASSERT_EQ(Count(r, "HOST_SETTING_MISMATCH"), 1) << Messages(r);
  EXPECT_TRUE(absl::StrContains(r.findings(0).message(),
                                "HugePages_Total is 0 of 2048 kB, the profile expects at least "
                                "1024"))
      << Messages(r);
  // A HugePages_Total line that is not a count is not "no hugetlbfs".
  testing::TempDir garbled;
  testing::WriteFile(garbled.path() + "/meminfo",
                     "MemTotal: 100 kB\nHugePages_Total:    lots\nHugepagesize: 2048 kB\n");
  const platform::FileTree garbled_proc(garbled.path());
  v1::ProbeResult g;
  JudgeHostSettings({&garbled_proc, &sys, {}, false}, rules, &g);
  ASSERT_EQ(Count(g, "HOST_SETTING_NOT_READABLE"), 1) << Messages(g);
  EXPECT_TRUE(absl::StrContains(Messages(g), "is not a count")) << Messages(g);
}

TEST(HostSettingsTest, TheGovernorOfEveryCapturedCpuIsJudged) {
  auto exporter = testing::NodeExporterHost();
  ASSERT_TRUE(exporter.ok()) << exporter.status();
  const platform::FileTree sys((*exporter)->sys_root);
  const platform::FileTree proc((*exporter)->proc_root);
  HostRules rules;
  rules.cpu_governor = "performance";
  v1::ProbeResult r;
  EXPECT_EQ(JudgeHostSettings({&proc, &sys, {}, true}, rules, &r), 1);
  ASSERT_EQ(Count(r, "HOST_SETTING_MISMATCH"), 1) << Messages(r);
  EXPECT_TRUE(absl::StrContains(r.findings(0).message(), "powersave on 4 CPUs (e.g. cpu0)"))
      << Messages(r);

  auto xeon = testing::HwlocXeonHost({"*/sys/devices/system/cpu"});
  ASSERT_TRUE(xeon.ok()) << xeon.status();
  const platform::FileTree xeon_sys((*xeon)->sys_root);
  v1::ProbeResult fine;
  EXPECT_EQ(JudgeHostSettings({&proc, &xeon_sys, {}, true}, rules, &fine), 1);
  EXPECT_EQ(fine.findings_size(), 0) << Messages(fine);

  // A CPU whose governor is there but cannot be read is said, not skipped.
  testing::TempDir odd;
  testing::WriteFile(odd.path() + "/devices/system/cpu/cpu0/cpufreq/scaling_governor",
                     "performance\n");
  std::filesystem::create_directories(odd.path() +
                                      "/devices/system/cpu/cpu1/cpufreq/scaling_governor");
  const platform::FileTree odd_sys(odd.path());
  v1::ProbeResult unread;
  JudgeHostSettings({&proc, &odd_sys, {}, true}, rules, &unread);
  EXPECT_EQ(Count(unread, "HOST_SETTING_NOT_READABLE"), 1) << Messages(unread);
  EXPECT_TRUE(absl::StrContains(Messages(unread), "first: cpu1")) << Messages(unread);
}

TEST(HostSettingsTest, TheIommuModeComesFromTheGroupsTheKernelMade) {
  testing::TempDir dir;
  const std::string root = dir.path();
  const platform::FileTree sys(root);
  EXPECT_EQ(ReadIommuMode(sys).mode, "");  // nothing readable: unknown, not "off"
  testing::WriteFile(root + "/class/net/lo/type", "772");
  EXPECT_EQ(ReadIommuMode(sys).mode, "off");
  testing::WriteFile(root + "/class/iommu/dmar0/uevent", "");
  testing::WriteFile(root + "/kernel/iommu_groups/0/type", "identity");
  testing::WriteFile(root + "/kernel/iommu_groups/1/type", "identity");
  EXPECT_EQ(ReadIommuMode(sys).mode, "passthrough");
  testing::WriteFile(root + "/kernel/iommu_groups/2/type", "DMA-FQ");
  const IommuMode mode = ReadIommuMode(sys);
  EXPECT_EQ(mode.mode, "translated");
  EXPECT_TRUE(absl::StrContains(mode.basis, "1 groups DMA-FQ, 2 groups identity")) << mode.basis;
  {
    // A type the kernel does not write, or a group whose type cannot be
    // read (a FIFO in a forged capture is skipped unread): unknown, never
    // passthrough.
    testing::TempDir odd_dir;
    const std::string odd = odd_dir.path();
    testing::WriteFile(odd + "/class/iommu/dmar0/uevent", "");
    testing::WriteFile(odd + "/kernel/iommu_groups/0/type", "identity");
    testing::WriteFile(odd + "/kernel/iommu_groups/1/type", "sideways");
    EXPECT_EQ(ReadIommuMode(platform::FileTree(odd)).mode, "");
    testing::WriteFile(odd + "/kernel/iommu_groups/1/type", "identity");
    std::filesystem::create_directories(odd + "/kernel/iommu_groups/2/type");  // not a file
    const IommuMode unread = ReadIommuMode(platform::FileTree(odd));
    EXPECT_EQ(unread.mode, "") << unread.basis;
    EXPECT_TRUE(absl::StrContains(unread.basis, "1 groups unreadable")) << unread.basis;
  }

  testing::TempDir proc_dir;
  const platform::FileTree proc(proc_dir.path());
  testing::WriteFile(proc_dir.path() + "/cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on quiet");
  HostRules rules;
  rules.iommu = "passthrough";
  v1::ProbeResult r;
  EXPECT_EQ(JudgeHostSettings({&proc, &sys, {}, true}, rules, &r), 1);
  ASSERT_EQ(Count(r, "HOST_SETTING_MISMATCH"), 1) << Messages(r);
  EXPECT_TRUE(absl::StrContains(r.findings(0).message(), "iommu=pt")) << Messages(r);
  rules.iommu = "any";
  v1::ProbeResult any;
  EXPECT_EQ(JudgeHostSettings({&proc, &sys, {}, true}, rules, &any), 0);
}

TEST(HostSettingsTest, NumaBalancingIsJudgedAndAnAbsentSwitchIsOff) {
  testing::TempDir proc_dir;
  testing::TempDir sys_dir;
  const platform::FileTree proc(proc_dir.path());
  const platform::FileTree sys(sys_dir.path());
  HostRules rules;
  rules.numa_balancing = false;
  v1::ProbeResult absent;
  EXPECT_EQ(JudgeHostSettings({&proc, &sys, {}, true}, rules, &absent), 1);
  EXPECT_EQ(absent.findings_size(), 0) << Messages(absent);
  testing::WriteFile(proc_dir.path() + "/sys/kernel/numa_balancing", "1");
  v1::ProbeResult on;
  JudgeHostSettings({&proc, &sys, {}, true}, rules, &on);
  ASSERT_EQ(Count(on, "HOST_SETTING_MISMATCH"), 1) << Messages(on);
  EXPECT_TRUE(absl::StrContains(on.findings(0).message(), "kernel.numa_balancing=0"));
}

TEST(HostSettingsTest, OnlyRailsSharingASubnetNeedTheirArpSettings) {
  const std::vector<RailAddress> rails = {{"ens1np0", "10.0.0.1", 24},
                                          {"ens2np0", "10.0.0.2", 24},
                                          {"ens3np0", "10.0.1.1", 24},
                                          {"ens4np0", "10.0.2.1", 31}};
  EXPECT_EQ(RailsSharingASubnet(rails), (std::vector<std::string>{"ens1np0", "ens2np0"}));
  EXPECT_TRUE(RailsSharingASubnet({rails[2], rails[3]}).empty());

  testing::TempDir proc_dir;
  testing::TempDir sys_dir;
  const platform::FileTree proc(proc_dir.path());
  const platform::FileTree sys(sys_dir.path());
  const std::string conf = proc_dir.path() + "/sys/net/ipv4/conf/";
  for (const auto& [path, value] :
       std::vector<std::pair<std::string, std::string>>{{"all/arp_ignore", "0"},
                                                        {"all/arp_announce", "0"},
                                                        {"all/rp_filter", "0"},
                                                        {"ens1np0/arp_ignore", "1"},
                                                        {"ens1np0/arp_announce", "2"},
                                                        {"ens1np0/rp_filter", "2"},
                                                        {"ens2np0/arp_ignore", "0"},
                                                        {"ens2np0/arp_announce", "2"},
                                                        {"ens2np0/rp_filter", "1"}}) {
    testing::WriteFile(conf + path, value);
  }
  HostRules rules;
  rules.rail_arp = true;
  v1::ProbeResult r;
  EXPECT_EQ(JudgeHostSettings({&proc, &sys, rails, true}, rules, &r), 1);
  ASSERT_EQ(Count(r, "HOST_SETTING_MISMATCH"), 1) << Messages(r);
  EXPECT_EQ(r.findings(0).device(), "ens2np0 ARP/rp_filter");
  EXPECT_TRUE(absl::StrContains(r.findings(0).message(), "arp_ignore=0 rp_filter=1"))
      << Messages(r);
  // conf/all raises every interface: the kernel takes the larger.
  testing::WriteFile(conf + "all/arp_ignore", "1");
  testing::WriteFile(conf + "ens2np0/rp_filter", "2");
  v1::ProbeResult fixed;
  JudgeHostSettings({&proc, &sys, rails, true}, rules, &fixed);
  EXPECT_EQ(fixed.findings_size(), 0) << Messages(fixed);
  // A capture has no addresses: said, not passed.
  v1::ProbeResult captured;
  JudgeHostSettings({&proc, &sys, {}, false}, rules, &captured);
  EXPECT_EQ(Count(captured, "HOST_SETTING_NOT_READABLE"), 1) << Messages(captured);
}

TEST(HostConfigProbeTest, WithoutAHostKeyItSkipsAndWithOneItJudges) {
  auto exporter = testing::NodeExporterHost();
  ASSERT_TRUE(exporter.ok()) << exporter.status();
  Profile profile;
  ProbeContext ctx;
  ctx.host.sys_root = (*exporter)->sys_root;
  ctx.host.proc_root = (*exporter)->proc_root;
  ctx.profile = &profile;
  HostConfigProbe probe;
  absl::StatusOr<v1::ProbeResult> none = probe.Run(ctx);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->verdict(), v1::SKIP);
  EXPECT_TRUE(absl::StrContains(none->reason(), "host.*")) << none->reason();
  EXPECT_GT(none->evidence_size(), 0);
  profile.MutableSection<HostRules>().cpu_governor = "powersave";
  absl::StatusOr<v1::ProbeResult> judged = probe.Run(ctx);
  ASSERT_TRUE(judged.ok());
  EXPECT_NE(judged->verdict(), v1::SKIP);
  EXPECT_EQ(judged->findings_size(), 0) << Messages(*judged);
}

}  // namespace
}  // namespace nodeprobe::hostcfg
