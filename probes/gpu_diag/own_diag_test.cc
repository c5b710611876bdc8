// gpu-diag's own tests through the test doubles of the CUDA driver, cuBLAS
// (tests/fakes/fake_cuda.cc: host memory, host kernels, a virtual clock)
// and NVML (fake_nvml.cc): a healthy H100 passes with its figures; a stuck
// bit, slow HBM, a slow GEMM, a throttle under load and a module the driver
// refuses each give their finding; a model not in the table is not judged
// without gpu_diag.gemm_min_tflops; and the probe puts it together.
#include "probes/gpu_diag/own_diag.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/gpu_diag/gemm_peaks.h"
#include "probes/gpu_diag/gpu_diag_probe.h"

namespace nodeprobe::gpu_diag {
namespace {

constexpr char kH100[] =
    "name=NVIDIA H100 80GB HBM3,bus=0000:19:00.0,mem_clock_max=2619,bus_width=5120,"
    "sm_clock=1980,power=650000,temp=61";

class OwnDiagTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The driver is loaded once per process: always the double here.
    setenv("NODEPROBE_CUDA_LIBRARY", FAKE_CUDA_LIBRARY, 1);
    setenv("NODEPROBE_CUBLAS_LIBRARY", FAKE_CUDA_LIBRARY, 1);
    setenv("NODEPROBE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
    setenv("FAKE_NVML_GPUS", kH100, 1);
    setenv("FAKE_CUDA_FREE_BYTES", "4194304", 1);  // 4 MiB: quick on the host
    for (const char* v :
         {"FAKE_CUDA_GBPS", "FAKE_CUDA_TFLOPS", "FAKE_CUDA_STUCK_WORD", "FAKE_CUDA_MODULE_RC"}) {
      unsetenv(v);
    }
    rules_.gemm_n = 1024;
  }

  v1::ProbeResult Judged() {
    absl::StatusOr<std::vector<OwnDiagGpu>> gpus =
        RunOwnDiag("fake image", rules_, absl::InfiniteFuture());
    EXPECT_TRUE(gpus.ok()) << gpus.status();
    v1::ProbeResult r;
    if (gpus.ok()) JudgeOwnDiag(*gpus, rules_, &r);
    return r;
  }

  GpuDiagRules rules_;
};

double Measured(const v1::ProbeResult& r, const std::string& name) {
  for (const v1::Measurement& m : r.measurements()) {
    if (m.name() == name) return m.value();
  }
  return -1;
}

std::vector<std::string> Codes(const v1::ProbeResult& r) {
  std::vector<std::string> out;
  for (const v1::Finding& f : r.findings()) out.push_back(f.code());
  return out;
}

TEST_F(OwnDiagTest, AHealthyH100PassesWithItsFigures) {
  const v1::ProbeResult r = Judged();
  EXPECT_TRUE(Codes(r).empty()) << r.DebugString();
  EXPECT_NEAR(Measured(r, "hbm_triad_gbps"), 3000, 30);
  EXPECT_NEAR(Measured(r, "hbm_theoretical_gbps"), 3352.3, 0.5);  // 2619 MHz x 2 x 5120 bits
  EXPECT_NEAR(Measured(r, "gemm_tflops"), 700, 7);
  EXPECT_EQ(Measured(r, "memory_bad_words"), 0);
  EXPECT_GE(Measured(r, "memory_tested_bytes"), 0.9 * 4194304 * 0.8);
  EXPECT_EQ(Measured(r, "load_max_temperature_c"), 61);
}

TEST_F(OwnDiagTest, AStuckBitIsFoundByThePatternsThatSetIt) {
  setenv("FAKE_CUDA_STUCK_WORD", "1000", 1);  // bit 0 stuck at 0 in word 1000
  rules_.memory_passes = 2;
  const v1::ProbeResult r = Judged();
  ASSERT_EQ(Codes(r), std::vector<std::string>{"GPU_MEMORY_TEST_ERRORS"}) << r.DebugString();
  EXPECT_EQ(r.findings(0).severity(), v1::FAIL);
  // Bit 0 is 1 in 0xffffffff, 0x55555555 and (word 1000 being even)
  // address^0xffffffff: three fills a pass; 0xaaaaaaaa and zero cannot see it.
  EXPECT_EQ(Measured(r, "memory_bad_words"), 6);
  const std::string& m = r.findings(0).message();
  EXPECT_NE(m.find("0xffffffff, 0x55555555, address^0xffffffff"), std::string::npos) << m;
  EXPECT_NE(m.find("0xfa0"), std::string::npos) << m;  // byte offset 4000
}

TEST_F(OwnDiagTest, SlowHbmFailsAndASlowGemmWarns) {
  setenv("FAKE_CUDA_GBPS", "1500", 1);
  setenv("FAKE_CUDA_TFLOPS", "300", 1);
  const v1::ProbeResult r = Judged();
  ASSERT_EQ(Codes(r),
            (std::vector<std::string>{"GPU_HBM_BANDWIDTH_LOW", "GPU_GEMM_BELOW_EXPECTED"}))
      << r.DebugString();
  EXPECT_EQ(r.findings(0).severity(), v1::FAIL);
  EXPECT_EQ(r.findings(1).severity(), v1::WARN);
  EXPECT_NE(r.findings(1).message().find("50% of the H100's datasheet dense bf16 peak 989"),
            std::string::npos)
      << r.findings(1).message();
}

TEST_F(OwnDiagTest, AModelOutsideTheTableIsJudgedOnlyAgainstTheProfilesBar) {
  setenv("FAKE_NVML_GPUS", "name=NVIDIA Future GPU,bus=0000:19:00.0", 1);
  setenv("FAKE_CUDA_TFLOPS", "300", 1);
  v1::ProbeResult r = Judged();
  EXPECT_TRUE(Codes(r).empty()) << r.DebugString();
  EXPECT_NE(r.evidence().at("gpu-diag.0000:19:00.0.gemm_bar").find("not in the table"),
            std::string::npos);
  EXPECT_EQ(Measured(r, "hbm_theoretical_gbps"), -1);  // NVML gave no clock: not judged
  rules_.gemm_min_tflops = 400;
  r = Judged();
  EXPECT_EQ(Codes(r), std::vector<std::string>{"GPU_GEMM_BELOW_EXPECTED"});
}

TEST_F(OwnDiagTest, AThermalSlowdownDuringTheLoadWarns) {
  setenv("FAKE_NVML_GPUS", (std::string(kH100) + ",throttle=0x40").c_str(), 1);
  const v1::ProbeResult r = Judged();
  ASSERT_EQ(Codes(r), std::vector<std::string>{"GPU_THROTTLED_UNDER_LOAD"});
  EXPECT_NE(r.findings(0).message().find("hw_thermal_slowdown"), std::string::npos);
}

TEST_F(OwnDiagTest, KernelsTheDriverRefusesAreSaidNotHidden) {
  setenv("FAKE_CUDA_MODULE_RC", "222", 1);  // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
  v1::ProbeResult r = Judged();
  ASSERT_EQ(Codes(r), std::vector<std::string>{"GPU_DIAG_NOT_RUN"});
  EXPECT_NE(r.findings(0).message().find("CUDA error 222"), std::string::npos);
  EXPECT_NE(r.findings(0).message().find("older than the nvcc"), std::string::npos);
  unsetenv("FAKE_CUDA_MODULE_RC");
  absl::StatusOr<std::vector<OwnDiagGpu>> none = RunOwnDiag("", rules_, absl::InfiniteFuture());
  ASSERT_TRUE(none.ok());
  EXPECT_NE(none->at(0).error.find("built without nvcc"), std::string::npos);
}

TEST_F(OwnDiagTest, TheProbeRunsThemOnEveryGpuTheDriverSees) {
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  setenv("FAKE_NVML_GPUS",
         (std::string(kH100) + ";name=NVIDIA H100 80GB HBM3,bus=0000:1a:00.0").c_str(), 1);
  setenv("PATH", "/nonexistent", 1);  // no dcgmi from PATH (its own places still count)
  absl::StatusOr<Profile> profile = ParseProfile("gpu_diag:\n  gemm_n: 1024\n", "p.yaml");
  ASSERT_TRUE(profile.ok()) << profile.status();
  ProbeContext ctx;
  ctx.profile = &*profile;
  GpuDiagProbe probe;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  unsetenv("FAKE_CUDA_DEVICES");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_NE(r->verdict(), v1::SKIP) << "the double was not loaded: " << r->reason();
  int gemms = 0;
  for (const v1::Measurement& m : r->measurements()) gemms += m.name() == "gemm_tflops";
  EXPECT_EQ(gemms, 2) << r->DebugString();
  EXPECT_EQ(r->findings_size(), 0) << r->DebugString();
  EXPECT_NE(r->evidence().at("gpu-diag.own_tests").find("on 2 GPU(s)"), std::string::npos);
}

TEST(GemmPeakTest, TheMoreSpecificModelWins) {
  EXPECT_EQ(GemmPeakOf("NVIDIA H100 PCIe").tflops, 756);
  EXPECT_EQ(GemmPeakOf("NVIDIA H100 80GB HBM3").tflops, 989.4);
  EXPECT_EQ(GemmPeakOf("NVIDIA H200 NVL").tflops, 835);
  EXPECT_EQ(GemmPeakOf("NVIDIA L40S").tflops, 362);
  EXPECT_EQ(GemmPeakOf("NVIDIA L4").tflops, 121);
  EXPECT_EQ(GemmPeakOf("Tesla V100-SXM2-16GB").tflops, 0);
}

}  // namespace
}  // namespace nodeprobe::gpu_diag
