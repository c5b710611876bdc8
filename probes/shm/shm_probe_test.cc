#include "probes/shm/shm_probe.h"

#include "gtest/gtest.h"

namespace nodeprobe::preflight {
namespace {

// Docker's default 64 MiB /dev/shm against 8 ranks' segments (the
// nccl-tests capture failed extending one of 5 967 872 bytes).
TEST(ShmJudgeTest, TooLittleFreeFailsWithTheFiguresAndEnoughPasses) {
  v1::ProbeResult small;
  JudgeShm(64 << 20, 60 << 20, 91 << 20, "8 local ranks x 2 channels", &small);
  ASSERT_EQ(small.findings_size(), 1);
  EXPECT_EQ(small.findings(0).code(), "SHM_TOO_SMALL");
  EXPECT_EQ(small.findings(0).severity(), v1::FAIL);
  EXPECT_NE(small.findings(0).message().find("60.0 MiB free (of 64.0 MiB)"), std::string::npos)
      << small.findings(0).message();
  EXPECT_NE(small.findings(0).remediation().find("--shm-size"), std::string::npos);
  v1::ProbeResult roomy;
  JudgeShm(16ull << 30, 16ull << 30, 91 << 20, "", &roomy);
  EXPECT_EQ(roomy.findings_size(), 0);
}

}  // namespace
}  // namespace nodeprobe::preflight
