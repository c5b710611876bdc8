// The gpu probe through the real dlopen path, against the NVML test double
// (tests/fakes/fake_nvml.cc). GPU names and bus ids are those of the
// 8x H100 node in tests/fixtures/nccl/nccl-tests_1node-8xh100_v2.17.8.log;
// the faults are states NVML documents, set one per GPU.
#include "probes/gpu/gpu_probe.h"

#include <cstdlib>

#include "gtest/gtest.h"
#include "platform/nvml.h"

namespace nodeprobe {
namespace {

constexpr char kHealthy[] =
    "name=NVIDIA H100 80GB HBM3,bus=0000:1b:00.0,vbios=96.00.74.00.01,ecc=1,"
    "remap=0/0/0/0,nvlink=18/18,persistence=1";

class GpuProbeTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("NODEPROBE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1); }
  void TearDown() override {
    unsetenv("NODEPROBE_NVML_LIBRARY");
    unsetenv("FAKE_NVML_GPUS");
    unsetenv("FAKE_NVML_INIT_RC");
  }
  // The probe against the fake's `gpus`, reading the host at `host`.
  v1::ProbeResult Run(const std::string& gpus, platform::HostPaths host = {}) {
    setenv("FAKE_NVML_GPUS", gpus.c_str(), 1);
    GpuProbe probe;
    Profile profile;
    ProbeContext ctx;
    ctx.profile = &profile;
    ctx.host = std::move(host);
    absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : v1::ProbeResult();
  }
};

int Count(const v1::ProbeResult& r, const std::string& code, v1::Verdict severity) {
  int n = 0;
  for (const v1::Finding& f : r.findings()) n += f.code() == code && f.severity() == severity;
  return n;
}

TEST_F(GpuProbeTest, HealthyGpusAreReadInNvmlOrderWithoutFindings) {
  v1::ProbeResult r = Run(std::string(kHealthy) +
                          ";name=NVIDIA H100 80GB HBM3,bus=0000:43:00.0,ecc=1,remap=0/0/0/0,"
                          "nvlink=18/18");
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
  ASSERT_EQ(r.gpu().gpus_size(), 2);
  const v1::GpuInfo& g = r.gpu().gpus(0);
  EXPECT_EQ(g.name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.bus_id(), "0000:1b:00.0");
  EXPECT_EQ(g.vbios(), "96.00.74.00.01");
  EXPECT_TRUE(g.ecc_enabled());
  EXPECT_TRUE(g.persistence_mode());
  EXPECT_EQ(g.nvlinks_active(), 18u);
  EXPECT_EQ(r.gpu().gpus(1).bus_id(), "0000:43:00.0");
  EXPECT_EQ(r.gpu().driver_version(), "550.54.15");
}

TEST_F(GpuProbeTest, EveryFaultIsNamedOnItsGpu) {
  v1::ProbeResult r = Run(
      "name=NVIDIA H100 80GB HBM3,bus=0000:1b:00.0,ecc=1,remap=0/1/1/0,nvlink=18/18;"
      "name=NVIDIA H100 80GB HBM3,bus=0000:43:00.0,ecc=1,ecc_volatile=3,nvlink=18/18;"
      "name=NVIDIA H100 80GB HBM3,bus=0000:52:00.0,ecc=1,throttle=0x48,nvlink=16/18;"
      "name=NVIDIA H100 80GB HBM3,bus=0000:61:00.0,ecc=0,procs=2,remap=0/0/0/1;"
      "lost=1");
  EXPECT_EQ(Count(r, "GPU_REMAP_PENDING", v1::FAIL), 1);
  EXPECT_EQ(Count(r, "GPU_ECC_UNCORRECTED", v1::FAIL), 1);
  EXPECT_EQ(Count(r, "GPU_THROTTLED", v1::WARN), 1);
  EXPECT_EQ(Count(r, "GPU_NVLINK_DOWN", v1::FAIL), 1);
  EXPECT_EQ(Count(r, "GPU_ECC_DISABLED", v1::WARN), 1);
  EXPECT_EQ(Count(r, "GPU_BUSY", v1::WARN), 1);
  EXPECT_EQ(Count(r, "GPU_ROW_REMAP_FAILED", v1::FAIL), 1);
  EXPECT_EQ(Count(r, "GPU_UNREADABLE", v1::FAIL), 1);
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == "GPU_NVLINK_DOWN") {
      EXPECT_EQ(f.device(), "0000:52:00.0");
      EXPECT_NE(f.message().find("2 of 18 link(s) down (16,17)"), std::string::npos)
          << f.message();
    }
    if (f.code() == "GPU_THROTTLED") {
      EXPECT_NE(f.message().find("hw_slowdown, hw_thermal_slowdown"), std::string::npos)
          << f.message();
    }
    if (f.code() == "GPU_UNREADABLE") {
      EXPECT_NE(f.message().find("GPU is lost"), std::string::npos) << f.message();
    }
  }
}

TEST_F(GpuProbeTest, NoDriverIsSkipWithTheReason) {
  setenv("NODEPROBE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  v1::ProbeResult r = Run(kHealthy);
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_NE(r.reason().find("no NVIDIA driver"), std::string::npos) << r.reason();
  EXPECT_EQ(r.findings_size(), 0);
}

TEST_F(GpuProbeTest, ADriverWithoutItsModuleIsSkipAndNoGpuIsSkip) {
  setenv("FAKE_NVML_INIT_RC", "9", 1);  // NVML_ERROR_DRIVER_NOT_LOADED
  v1::ProbeResult r = Run(kHealthy);
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_NE(r.reason().find("nvmlInit failed with NVML error 9"), std::string::npos);
  unsetenv("FAKE_NVML_INIT_RC");
  v1::ProbeResult none = Run("");
  EXPECT_EQ(none.verdict(), v1::SKIP);
  EXPECT_EQ(none.reason(), "the NVIDIA driver reports no GPU");
}

TEST_F(GpuProbeTest, ACapturedTreeIsNeverJudgedByThisMachinesGpus) {
  platform::HostPaths capture;
  capture.sys_root = "/tmp/capture/sys";
  v1::ProbeResult r = Run("lost=1", capture);
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_EQ(r.findings_size(), 0);
}

}  // namespace
}  // namespace nodeprobe
