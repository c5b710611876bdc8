// dcgmi diag tables from real machines (tests/fixtures/dcgm): an H100 node
// whose fabric manager was not running (GPU Memory "Fail - All" with a
// cuInit warning per GPU), and ml-engineering's fragments (a Deployment
// Error about GPU 3's pending row remaps; GPU 0 failing GPU Memory with a
// thermal warning while 1-7 pass). The probe SKIPs here, without dcgmi.
#include "probes/gpu_diag/dcgmi_diag.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "probes/framework/profile.h"
#include "probes/gpu_diag/gpu_diag_probe.h"
#include "probes/gpu_diag/gpu_diag_profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::gpu_diag {
namespace {

const DcgmTest* FindTest(const DcgmDiag& d, const std::string& name) {
  for (const DcgmTest& t : d.tests) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

TEST(DcgmiDiagTest, AFailedGpuMemoryTestOnEveryGpuIsAFailWithItsCause) {
  const DcgmDiag d = ParseDcgmiDiag(testing::ReadFixture(
      "dcgm/issue-nccltests264-dcgmi-diag-r3-fail-h100-cuinit-no-fabricmanager.txt"));
  EXPECT_EQ(d.metadata.at("DCGM Version"), "3.3.8");
  EXPECT_EQ(d.metadata.at("Driver Version Detected"), "560.35.03");
  const DcgmTest* mem = FindTest(d, "GPU Memory");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->category, "Hardware");
  ASSERT_EQ(mem->statuses.size(), 1u);
  EXPECT_EQ(mem->statuses[0], std::make_pair(std::string("Fail"), std::string("All")));
  ASSERT_EQ(mem->warnings.size(), 8u);
  // Unwrapped as DCGM wrote it: the fixed-width pieces join into words.
  EXPECT_NE(mem->warnings[0].find("Unable to initialize CUDA library: 'system not yet "
                                  "initialized'"),
            std::string::npos)
      << mem->warnings[0];
  EXPECT_EQ(mem->warnings[7].rfind("GPU 7 Error using CUDA API cuInit", 0), 0u);
  const DcgmTest* persistence = FindTest(d, "Persistence Mode");
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(persistence->category, "Deployment");
  ASSERT_EQ(persistence->info.size(), 1u);
  EXPECT_NE(persistence->info[0].find("Enable persistence mode by running"), std::string::npos);
  ASSERT_NE(FindTest(d, "EUD Test"), nullptr);
  EXPECT_EQ(FindTest(d, "EUD Test")->statuses[0].first, "Skip");

  v1::ProbeResult r;
  JudgeDcgmiDiag(d, &r);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "GPU_DIAG_FAILED");
  EXPECT_EQ(r.findings(0).severity(), v1::FAIL);
  EXPECT_EQ(r.findings(0).device(), "all GPUs");
  EXPECT_NE(r.findings(0).message().find("cuInit"), std::string::npos);
  EXPECT_NE(r.findings(0).message().find("(and 5 more)"), std::string::npos);
  EXPECT_EQ(r.evidence().at("dcgmi.DCGM Version"), "3.3.8");
}

TEST(DcgmiDiagTest, TheGpuThatFailedIsNamedWithItsOwnWarning) {
  const DcgmDiag d =
      ParseDcgmiDiag(testing::ReadFixture("dcgm/ml-engineering-dcgmi-diag-fail-fragments.txt"));
  const DcgmTest* mem = FindTest(d, "GPU Memory");
  ASSERT_NE(mem, nullptr);
  ASSERT_EQ(mem->statuses.size(), 2u);
  EXPECT_EQ(mem->statuses[0].first, "Pass");
  EXPECT_EQ(mem->statuses[1], std::make_pair(std::string("Fail"), std::string("GPU: 0")));
  v1::ProbeResult r;
  JudgeDcgmiDiag(d, &r);
  ASSERT_EQ(r.findings_size(), 2) << r.DebugString();
  // The Deployment check's Error row: GPU 3's pending row remaps.
  EXPECT_EQ(r.findings(0).code(), "GPU_DIAG_FAILED");
  EXPECT_NE(r.findings(0).message().find("GPU 3 has uncorrectable memory errors and row "
                                         "remappings are pending"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_EQ(r.findings(1).device(), "GPU 0");
  EXPECT_NE(r.findings(1).message().find("Thermal violations"), std::string::npos);
  EXPECT_NE(r.findings(1).message().find("is functional"), std::string::npos);
}

TEST(DcgmiDiagTest, EverythingSkippedJudgesNothing) {
  const DcgmDiag d = ParseDcgmiDiag(
      "+---------------------------+------------------------------------------------+\n"
      "+-----  Integration  -------+------------------------------------------------+\n"
      "| PCIe                      | Skip - All                                     |\n"
      "+-----  Hardware  ----------+------------------------------------------------+\n"
      "| GPU Memory                | Skip - All                                     |\n");
  v1::ProbeResult r;
  JudgeDcgmiDiag(d, &r);
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_NE(r.reason().find("PCIe, GPU Memory"), std::string::npos) << r.reason();
  v1::ProbeResult none;
  JudgeDcgmiDiag(ParseDcgmiDiag("Error: unable to connect to host engine\n"), &none);
  EXPECT_EQ(none.verdict(), v1::SKIP);
}

TEST(GpuDiagProbeTest, WithoutDcgmiItSkipsAndSaysWhy) {
  EXPECT_EQ(FindOnPath("dcgmi-that-is-not-there", "/usr/bin:/bin"), "");
  EXPECT_EQ(FindOnPath("sh", "/nonexistent::/bin"), "/bin/sh");
  if (!FindOnPath("dcgmi", "/usr/bin:/usr/local/bin").empty()) {
    GTEST_SKIP() << "DCGM is installed here";
  }
  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(cuda);
    GTEST_SKIP() << "a CUDA driver is installed: hwtests/gpu_checks.sh runs the probe";
  }
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  GpuDiagProbe probe;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict(), v1::SKIP);
  EXPECT_NE(r->reason().find("no dcgmi"), std::string::npos) << r->reason();
  EXPECT_NE(r->reason().find("no NVIDIA driver (libcuda.so.1)"), std::string::npos) << r->reason();
  EXPECT_TRUE(probe.intrusive());
}

TEST(GpuDiagProfileTest, TheLevelIsOneToFourAndTheBarsAreChecked) {
  absl::StatusOr<Profile> good = ParseProfile(
      "gpu_diag:\n  level: 3\n  memory_fraction: 0.8\n  gemm_n: 4096\n  gemm_min_tflops: 600\n",
      "p.yaml");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->Section<GpuDiagRules>().memory_fraction, 0.8);
  EXPECT_EQ(good->Section<GpuDiagRules>().gemm_n, 4096);
  EXPECT_EQ(good->Section<GpuDiagRules>().gemm_min_tflops, 600);
  for (const char* bad_key : {"memory_fraction: 0.99", "gemm_n: 100", "hbm_min_fraction: 0",
                              "memory_passes: 1.5", "gemm_min_tflops: -1"}) {
    EXPECT_FALSE(ParseProfile(absl::StrCat("gpu_diag:\n  ", bad_key, "\n"), "p.yaml").ok())
        << bad_key;
  }
  absl::StatusOr<Profile> bad = ParseProfile("gpu_diag:\n  level: 5\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("p.yaml:2"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace nodeprobe::gpu_diag
