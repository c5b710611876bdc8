#include "probes/memlock/memlock_probe.h"

#include <limits>

#include "gtest/gtest.h"

namespace nodeprobe::preflight {
namespace {

// The limit a container gets by default (the pyxis capture's "max locked
// memory 64 kbytes") against a job of 8 ranks.
TEST(MemlockJudgeTest, AContainersDefaultFailsAndUnlimitedPasses) {
  v1::ProbeResult low;
  JudgeMemlock(64 << 10, 182 << 20, "8 local ranks", "NCCL_IB_HCA=mlx5", &low);
  ASSERT_EQ(low.findings_size(), 1);
  EXPECT_EQ(low.findings(0).code(), "MEMLOCK_TOO_LOW");
  EXPECT_EQ(low.findings(0).severity(), v1::FAIL);
  EXPECT_NE(low.findings(0).message().find("may lock 64 KiB"), std::string::npos)
      << low.findings(0).message();
  EXPECT_NE(low.findings(0).message().find("about 182.0 MiB (8 local ranks"), std::string::npos);
  EXPECT_NE(low.findings(0).remediation().find("LimitMEMLOCK=infinity"), std::string::npos);
  v1::ProbeResult unlimited;
  JudgeMemlock(std::numeric_limits<uint64_t>::max(), 182 << 20, "", "", &unlimited);
  EXPECT_EQ(unlimited.findings_size(), 0);
  EXPECT_EQ(unlimited.evidence().at("getrlimit(RLIMIT_MEMLOCK)"), "unlimited");
}

}  // namespace
}  // namespace nodeprobe::preflight
