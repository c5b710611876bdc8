// The copy-bandwidth bar and its judgement; the measurement itself runs on
// a GPU (hwtests/gpu_checks.sh). Here the probe only proves it skips.
#include "probes/gpu/gpu_pcie_bw_probe.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace nodeprobe {
namespace {

int Fails(const v1::ProbeResult& r) {
  int n = 0;
  for (const v1::Finding& f : r.findings()) n += f.code() == "GPU_PCIE_BW_BELOW_EXPECTED";
  return n;
}

TEST(GpuPcieBwTest, SlowDirectionsFailAndHealthyOnesPass) {
  GpuLink link{"0000:1b:00.0", pcie::PcieLink{32.0, 16}};  // Gen5 x16: bar 57.6 GB/s
  v1::ProbeResult healthy;
  JudgeCopyBandwidth(link, {53.0, 54.0, 100.0}, &healthy);
  EXPECT_EQ(Fails(healthy), 0) << healthy.DebugString();
  EXPECT_EQ(healthy.measurements_size(), 3);
  v1::ProbeResult slow;
  JudgeCopyBandwidth(link, {26.0, 54.0, 80.0}, &slow);  // H2D at x8 speed
  ASSERT_EQ(Fails(slow), 2) << slow.DebugString();
  EXPECT_NE(slow.findings(0).message().find("h2d copies move 26.0 GB/s, 45% of the 57.6 GB/s"),
            std::string::npos)
      << slow.findings(0).message();
  EXPECT_EQ(slow.findings(0).device(), "0000:1b:00.0");
}

TEST(GpuPcieBwTest, AnUnknownLinkIsMeasuredWithoutABar) {
  v1::ProbeResult r;
  JudgeCopyBandwidth(GpuLink{"0000:1b:00.0", std::nullopt}, {1.0, 1.0, 2.0}, &r);
  EXPECT_EQ(Fails(r), 0);
  EXPECT_EQ(r.measurements_size(), 3);
  EXPECT_EQ(r.evidence().at("expected.0000:1b:00.0"), "link speed/width not readable: no bar");
}

TEST(GpuPcieBwTest, WithoutADriverItSkipsWithTheReason) {
  if (access("/proc/driver/nvidia/version", F_OK) == 0) GTEST_SKIP() << "this host has a GPU";
  GpuPcieBwProbe probe;
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), v1::SKIP);
  EXPECT_NE(r->reason().find("libcuda.so.1"), std::string::npos) << r->reason();
}

}  // namespace
}  // namespace nodeprobe
