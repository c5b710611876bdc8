// Garbage in, never "healthy" out: small sysfs trees built for the purpose,
// each holding one bad value (or a FIFO, a link loop, a link out of the
// tree, random bytes), run through the probes that read them. Each case
// asserts the exact finding code and that the probe's verdict is not PASS
// or SKIP. Every case is bounded: FileTree never blocks.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <random>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "probes/builtin_probes.h"
#include "probes/framework/stage_runner.h"
#include "probes/rdma_devices/rdma_profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

using testing::WriteFile;

// A node with one ConnectX port (mlx5_0 at 0000:01:00.0 behind root port
// 0000:00:01.0) and an H100 GPU (0000:02:00.0 behind 0000:00:02.0), every
// value as a healthy Linux 6.x writes it.
class Tree {
 public:
  Tree() : sys_(dir_.path() + "/sys") {
    Pci("0000:00:01.0", "", "0x8086", "0x060400", "16.0 GT/s PCIe", 16);
    Pci("0000:01:00.0", "0000:00:01.0", "0x15b3", "0x020700", "16.0 GT/s PCIe", 16);
    Pci("0000:00:02.0", "", "0x8086", "0x060400", "32.0 GT/s PCIe", 16);
    Pci("0000:02:00.0", "0000:00:02.0", "0x10de", "0x030200", "32.0 GT/s PCIe", 16);
    const std::string dev = sys_ + "/class/infiniband/mlx5_0";
    W("class/infiniband/mlx5_0/fw_ver", "28.39.1002");
    W("class/infiniband/mlx5_0/board_id", "MT_0000000838");
    W("class/infiniband/mlx5_0/node_guid", "0c42:a103:0001:0002");
    W("class/infiniband/mlx5_0/node_type", "1: CA");
    Link("class/infiniband/mlx5_0/device",
         "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
    const std::string p = "class/infiniband/mlx5_0/ports/1/";
    W(p + "state", "4: ACTIVE");
    W(p + "phys_state", "5: LinkUp");
    W(p + "link_layer", "InfiniBand");
    W(p + "rate", "400 Gb/sec (4X NDR)");
    W(p + "lid", "0x12");
    W(p + "sm_lid", "0x1");
    W(p + "gids/0", "fe80:0000:0000:0000:0c42:a103:0001:0002");
    // Every error counter the judgement reads (an absent one is not seen).
    for (const char* c : {"symbol_error", "link_error_recovery", "link_downed", "port_rcv_errors",
                          "port_xmit_discards", "local_link_integrity_errors",
                          "excessive_buffer_overrun_errors"}) {
      W(p + "counters/" + c, "0");
    }
  }
  void W(const std::string& rel, const std::string& value) {
    WriteFile(sys_ + "/" + rel, value + "\n");
  }
  void Link(const std::string& rel, const std::string& target) {
    std::filesystem::create_directories(std::filesystem::path(sys_ + "/" + rel).parent_path());
    std::filesystem::remove(sys_ + "/" + rel);
    ASSERT_EQ(symlink(target.c_str(), (sys_ + "/" + rel).c_str()), 0) << rel;
  }
  void Remove(const std::string& rel) { std::filesystem::remove_all(sys_ + "/" + rel); }
  void Pci(const std::string& addr, const std::string& parent, const std::string& vendor,
           const std::string& cls, const std::string& speed, int width) {
    const std::string path = parent.empty() ? "devices/pci0000:00/" + addr
                                            : "devices/pci0000:00/" + parent + "/" + addr;
    W(path + "/vendor", vendor);
    W(path + "/device", "0x1234");
    W(path + "/class", cls);
    W(path + "/current_link_speed", speed);
    W(path + "/max_link_speed", speed);
    W(path + "/current_link_width", std::to_string(width));
    W(path + "/max_link_width", std::to_string(width));
    W(path + "/numa_node", "0");
    Link("bus/pci/devices/" + addr, "../../../" + path);
    pci_paths_[addr] = path;
  }
  std::string PciPath(const std::string& addr) { return pci_paths_[addr]; }
  const std::string& sys() const { return sys_; }

 private:
  testing::TempDir dir_;
  std::string sys_;
  std::map<std::string, std::string> pci_paths_;
};

v1::ProbeResult RunProbe(const std::string& name, const Tree& tree, const Profile& profile = {}) {
  ProbeRegistry registry = BuiltinProbes();
  ProbeContext ctx;
  ctx.host.sys_root = tree.sys();
  ctx.host.proc_root = tree.sys() + "/../proc";
  ctx.host.etc_root = tree.sys() + "/../etc";
  ctx.profile = &profile;
  absl::StatusOr<v1::ProbeResult> r = registry.Find(name)->Run(ctx);
  if (!r.ok()) {
    v1::ProbeResult e;
    e.set_verdict(v1::ERROR);
    e.set_reason(std::string(r.status().message()));
    return e;
  }
  FinalizeResult(profile, &*r);
  return *r;
}

bool Has(const v1::ProbeResult& r, const std::string& code, const std::string& text = "") {
  for (const auto& f : r.findings()) {
    if (f.code() == code && absl::StrContains(f.message(), text)) return true;
  }
  return false;
}

TEST(GarbageSysfsTest, TheHealthyTreePasses) {
  Tree t;
  Profile p;
  p.MutableSection<RdmaExpectations>().rate_gbps = 400;
  v1::ProbeResult rdma = RunProbe("rdma-devices", t, p);
  EXPECT_EQ(rdma.verdict(), v1::PASS) << rdma.DebugString();
  v1::ProbeResult pcie = RunProbe("pcie", t);
  EXPECT_EQ(pcie.verdict(), v1::PASS) << pcie.DebugString();
}

struct Case {
  const char* name;
  std::function<void(Tree&)> spoil;
  const char* probe;
  const char* code;     // expected finding, or "" for a probe-level ERROR
  const char* message;  // a part of its message
};

TEST(GarbageSysfsTest, EveryBadValueIsNamedAndNothingPasses) {
  const std::string rate = "class/infiniband/mlx5_0/ports/1/rate";
  const std::vector<Case> cases = {
      {"nan rate", [&](Tree& t) { t.W(rate, "nan Gb/sec (4X)"); }, "rdma-devices",
       "SYSFS_VALUE_INVALID", "ports/1/rate: unexpected port rate 'nan Gb/sec (4X)'"},
      {"inf rate", [&](Tree& t) { t.W(rate, "inf Gb/sec (4X)"); }, "rdma-devices",
       "SYSFS_VALUE_INVALID", "unexpected port rate"},
      {"unknown link layer",
       [](Tree& t) { t.W("class/infiniband/mlx5_0/ports/1/link_layer", "Unknown"); },
       "rdma-devices", "SYSFS_VALUE_INVALID", "unexpected link layer"},
      {"empty ports", [](Tree& t) {
         t.Remove("class/infiniband/mlx5_0/ports");
         std::filesystem::create_directories(t.sys() + "/class/infiniband/mlx5_0/ports");
       },
       "rdma-devices", "SYSFS_VALUE_INVALID", "has no ports"},
      {"class/infiniband loops", [](Tree& t) {
         t.Remove("class/infiniband");
         t.Link("class/infiniband", "infiniband");
       },
       "rdma-devices", "", "too many symbolic links"},
      {"rate is a FIFO", [&](Tree& t) {
         t.Remove(rate);
         ASSERT_EQ(mkfifo((t.sys() + "/" + rate).c_str(), 0644), 0);
       },
       "rdma-devices", "SYSFS_VALUE_INVALID", "not a regular file (a FIFO)"},
      {"rate links out of the tree", [&](Tree& t) {
         t.Remove(rate);
         t.Link(rate, "/etc/hostname");
       },
       "rdma-devices", "SYSFS_VALUE_INVALID", "ports/1/rate"},
      {"rate links up and out of the tree", [&](Tree& t) {
         t.Remove(rate);
         t.Link(rate, "../../../../../../../../../../../../etc/hostname");
       },
       "rdma-devices", "SYSFS_VALUE_INVALID", "ports/1/rate"},
      {"nan GT/s", [](Tree& t) {
         t.W(t.PciPath("0000:02:00.0") + "/current_link_speed", "nan GT/s");
       },
       "pcie", "SYSFS_VALUE_INVALID", "unexpected link speed 'nan GT/s'"},
      {"GPU width 0", [](Tree& t) {
         t.W(t.PciPath("0000:02:00.0") + "/current_link_width", "0");
       },
       "pcie", "SYSFS_VALUE_INVALID", "link width (0: the link is down"},
      {"GPU class unreadable", [](Tree& t) {
         t.Remove(t.PciPath("0000:02:00.0") + "/class");
         std::filesystem::create_directories(t.sys() + "/" + t.PciPath("0000:02:00.0") + "/class");
       },
       "pcie", "SYSFS_VALUE_INVALID", "0000:02:00.0 cannot be identified"},
      {"GPU vendor garbage", [](Tree& t) {
         t.W(t.PciPath("0000:02:00.0") + "/vendor", "\xff\xfe");
       },
       "pcie", "SYSFS_VALUE_INVALID", "cannot be identified"},
      {"HCA without its driver", [](Tree& t) { t.Remove("class/infiniband"); },
       "rdma-devices", "RDMA_DRIVER_NOT_BOUND",
       "NVIDIA/Mellanox ConnectX or BlueField 0000:01:00.0 (15b3:1234) has no RDMA device"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Tree t;
    c.spoil(t);
    Profile p;
    p.MutableSection<RdmaExpectations>().rate_gbps = 400;
    const absl::Time start = absl::Now();
    v1::ProbeResult r = RunProbe(c.probe, t, p);
    EXPECT_LT(absl::Now() - start, absl::Seconds(5));
    EXPECT_NE(r.verdict(), v1::PASS) << r.DebugString();
    EXPECT_NE(r.verdict(), v1::SKIP) << r.DebugString();
    if (std::string(c.code).empty()) {
      EXPECT_EQ(r.verdict(), v1::ERROR);
      EXPECT_TRUE(absl::StrContains(r.reason(), c.message)) << r.reason();
    } else {
      EXPECT_TRUE(Has(r, c.code, c.message)) << r.DebugString();
    }
    // Nothing from outside the tree ends up in the evidence.
    for (const auto& [path, value] : r.evidence()) {
      EXPECT_TRUE(absl::StartsWith(path, t.sys()) || !absl::StartsWith(path, "/")) << path;
    }
  }
}

TEST(GarbageSysfsTest, AnHcaWithoutItsDriverFailsWhenTheProfileExpectsRdma) {
  Tree t;
  t.Remove("class/infiniband");
  Profile p;
  EXPECT_EQ(RunProbe("rdma-devices", t, p).verdict(), v1::WARN);
  p.MutableSection<RdmaExpectations>().link_layer = "InfiniBand";
  EXPECT_EQ(RunProbe("rdma-devices", t, p).verdict(), v1::FAIL);
}

TEST(GarbageSysfsTest, OlderKernelsWithoutMaxLinkFilesAreStillReported) {
  Tree t;
  const std::string gpu = t.PciPath("0000:02:00.0");
  t.Remove(gpu + "/max_link_speed");
  t.Remove(gpu + "/max_link_width");
  t.W(gpu + "/current_link_width", "8");
  // Only the 64-byte header readable (an unprivileged read): it says a
  // capability list starts at 0x60, beyond what was read.
  std::string header(64, '\0');
  header[0x06] = 0x10;
  header[0x34] = 0x60;
  WriteFile(t.sys() + "/" + gpu + "/config", header);
  v1::ProbeResult r = RunProbe("pcie", t);
  EXPECT_NE(r.verdict(), v1::SKIP);
  bool reported = false;
  for (const auto& [k, v] : r.evidence()) {
    if (k == "0000:02:00.0") {
      reported = absl::StrContains(v, "x8; not judged") &&
                 absl::StrContains(v, "beyond the 64 readable bytes");
    }
  }
  EXPECT_TRUE(reported) << r.DebugString();
  // With the full config space, the Link Capabilities register says x16:
  // the x8 link is judged, and it is degraded.
  std::string config(256, '\0');
  config[0x06] = 0x10;
  config[0x34] = 0x40;
  config[0x40] = 0x10;  // PCI Express capability
  const uint32_t caps = 0x5 | (16 << 4);  // 32 GT/s x16
  for (int i = 0; i < 4; ++i) config[0x4C + i] = static_cast<char>((caps >> (8 * i)) & 0xFF);
  WriteFile(t.sys() + "/" + gpu + "/config", config);
  r = RunProbe("pcie", t);
  EXPECT_TRUE(Has(r, "PCIE_LINK_WIDTH_DEGRADED", "runs x8 of x16")) << r.DebugString();
}

TEST(GarbageSysfsTest, RandomBytesEverywhereNeverPassAndStayValidText) {
  Tree t;
  std::mt19937 rng(42);
  for (const auto& e : std::filesystem::recursive_directory_iterator(t.sys())) {
    if (!e.is_regular_file() || e.is_symlink()) continue;
    std::string junk(1 + rng() % 40, '\0');
    for (char& ch : junk) ch = static_cast<char>(rng());
    WriteFile(e.path().string(), junk);
  }
  for (const char* probe : {"rdma-devices", "pcie", "gpudirect", "inventory", "mtu"}) {
    SCOPED_TRACE(probe);
    v1::ProbeResult r = RunProbe(probe, t);
    if (std::string(probe) == "rdma-devices" || std::string(probe) == "pcie") {
      EXPECT_NE(r.verdict(), v1::PASS) << r.DebugString();
    }
    // No repair here: what the probes read must already be valid text
    // (FileTree escapes it), or the message would not parse on the other
    // side of a worker's pipe.
    std::string wire;
    ASSERT_TRUE(r.SerializeToString(&wire));
    v1::ProbeResult back;
    EXPECT_TRUE(back.ParseFromString(wire)) << "invalid UTF-8 left in " << probe;
  }
}

}  // namespace
}  // namespace nodeprobe
