// Counters judged over the window between two local runs: NVLink growth
// rules, the baseline file kept and read back (and refused when it is not
// one), and the probe twice through NVML's test double with the state
// directory a test directory.
#include <cstdlib>
#include <fstream>

#include "gtest/gtest.h"
#include "probes/fault_counters/counter_baseline.h"
#include "probes/fault_counters/fault_counters_probe.h"
#include "probes/framework/profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::counters {
namespace {

v1::CounterBaseline WithLink(absl::Time at, uint64_t replay, uint64_t recovery, uint64_t crc) {
  v1::GpuReport gpus;
  v1::GpuInfo* g = gpus.add_gpus();
  g->set_bus_id("0000:19:00.0");
  v1::NvLinkErrors* l = g->add_nvlink_errors();
  l->set_link(3);
  l->set_replay(replay);
  l->set_recovery(recovery);
  l->set_crc_flit(crc);
  return MakeBaseline(at, "boot", {}, {}, &gpus);
}

std::vector<std::string> Codes(const v1::ProbeResult& r) {
  std::vector<std::string> out;
  for (const v1::Finding& f : r.findings()) out.push_back(f.code() + " " + f.device());
  return out;
}

TEST(NvlinkGrowthTest, ErrorsFasterThanTheRuleOrAnyRecoveryWarn) {
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  const FaultRules rules;  // 60 per hour
  v1::ProbeResult slow;
  JudgeNvlinkGrowth(WithLink(t0, 10, 0, 5), WithLink(t0 + absl::Hours(1), 30, 0, 15),
                    absl::Hours(1), rules, &slow);
  EXPECT_TRUE(Codes(slow).empty()) << "30 in an hour";
  ASSERT_EQ(slow.measurements_size(), 1);
  EXPECT_EQ(slow.measurements(0).value(), 30);
  v1::ProbeResult fast;
  JudgeNvlinkGrowth(WithLink(t0, 10, 0, 5), WithLink(t0 + absl::Hours(1), 100, 0, 95),
                    absl::Hours(1), rules, &fast);
  ASSERT_EQ(Codes(fast), std::vector<std::string>{"GPU_NVLINK_ERRORS 0000:19:00.0 link 3"});
  EXPECT_NE(fast.findings(0).message().find("+90 replay, +90 CRC flit"), std::string::npos)
      << fast.findings(0).message();
  v1::ProbeResult retrained;
  JudgeNvlinkGrowth(WithLink(t0, 0, 0, 0), WithLink(t0 + absl::Hours(8), 0, 1, 0), absl::Hours(8),
                    rules, &retrained);
  EXPECT_EQ(Codes(retrained).size(), 1u);
  v1::ProbeResult reloaded;  // counters went back: a new baseline
  JudgeNvlinkGrowth(WithLink(t0, 500, 2, 500), WithLink(t0 + absl::Hours(1), 1, 0, 0),
                    absl::Hours(1), rules, &reloaded);
  EXPECT_TRUE(Codes(reloaded).empty());
}

TEST(BaselineFileTest, KeptReadBackAndRefusedWhenNotOne) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/fault-counters.json";
  EXPECT_EQ(LoadBaseline(path).status().code(), absl::StatusCode::kNotFound);
  kernel::AerSnapshot aer;
  aer["0000:00:1c.5"].corrected = 7;
  aer["0000:00:1c.5"].bits["RxErr"] = 7;
  const v1::CounterBaseline b = MakeBaseline(absl::FromUnixSeconds(1'700'000'000), "boot", aer,
                                             {{"mlx5_0:1", {{"symbol_error", 3}}}}, nullptr);
  ASSERT_TRUE(SaveBaseline(path, b).ok());
  absl::StatusOr<v1::CounterBaseline> back = LoadBaseline(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(AerOf(*back), aer);
  EXPECT_EQ(PortsOf(*back).at("mlx5_0:1").at("symbol_error"), 3u);
  testing::WriteFile(path, "{\"taken\": \"yesterday\"}");
  EXPECT_EQ(LoadBaseline(path).status().code(), absl::StatusCode::kDataLoss);
}

class FaultCountersProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("NODEPROBE_STATE_DIR", dir_.path().c_str(), 1);
    setenv("NODEPROBE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
  }
  void TearDown() override {
    unsetenv("NODEPROBE_STATE_DIR");
    unsetenv("NODEPROBE_NVML_LIBRARY");
    unsetenv("FAKE_NVML_GPUS");
  }
  v1::ProbeResult Run(const std::string& errors) {
    setenv("FAKE_NVML_GPUS",
           ("name=NVIDIA H100,bus=0000:19:00.0,nvlink=18/18,nvlink_errors=" + errors).c_str(), 1);
    FaultCountersProbe probe;
    Profile profile;
    ProbeContext ctx;
    ctx.profile = &profile;
    absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : v1::ProbeResult();
  }
  testing::TempDir dir_;
};

TEST_F(FaultCountersProbeTest, TheFirstRunKeepsABaselineAndTheNextJudgesGrowth) {
  v1::ProbeResult first = Run("0/0/0/0");
  EXPECT_TRUE(Codes(first).empty()) << first.DebugString();
  EXPECT_NE(first.evidence().at("fault-counters.window").find("this reading is the baseline"),
            std::string::npos);
  EXPECT_NE(first.evidence().at("fault-counters.read").find("1 GPUs with NVLink error counters"),
            std::string::npos)
      << first.evidence().at("fault-counters.read");
  // Between the two runs every one of the 18 links retrained once.
  v1::ProbeResult second = Run("0/1/0/0");
  EXPECT_EQ(Codes(second).size(), 18u) << second.DebugString();
  EXPECT_NE(second.evidence().at("fault-counters.window").find("growth since"), std::string::npos);
  // A baseline from another boot is not compared.
  std::ifstream in(dir_.path() + "/fault-counters.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("\"bootId\":\"");
  ASSERT_NE(at, std::string::npos) << text;
  text.insert(at + 10, "other-");
  testing::WriteFile(dir_.path() + "/fault-counters.json", text);
  v1::ProbeResult third = Run("0/5/0/0");
  EXPECT_TRUE(Codes(third).empty()) << third.DebugString();
  EXPECT_NE(third.evidence().at("fault-counters.window").find("another boot"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::counters
