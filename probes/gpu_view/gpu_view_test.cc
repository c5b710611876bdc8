// The job's GPU view: counts against the grant (environments as Slurm and
// the NVIDIA container runtime set them), rails on hwloc's captured LLNL
// Lassen node (4 V100, mlx5_0..3, each GPU's nearest NICs at NODE) with
// only some NICs given to the container, and the probe itself through the
// NVML test double.
#include "probes/gpu_view/gpu_view.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "probes/framework/profile.h"
#include "probes/gpu_view/gpu_view_probe.h"
#include "probes/locality/locality_probe.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::gpu_view {
namespace {

std::vector<std::string> Codes(const v1::ProbeResult& r) {
  std::vector<std::string> out;
  for (const v1::Finding& f : r.findings()) out.push_back(f.code());
  return out;
}

v1::ProbeResult Granted(const job::Env& env, int flag, int seen) {
  v1::ProbeResult r;
  JudgeGrant(env, GrantOf(env, flag), {seen, "NVML"}, &r);
  return r;
}

TEST(GpuGrantTest, TheFlagThenSlurmStateTheGrant) {
  EXPECT_EQ(GrantOf({}, 0).count, -1);
  EXPECT_EQ(GrantOf({{"SLURM_GPUS_ON_NODE", "4"}}, 2).source, "--gpus 2");
  EXPECT_EQ(GrantOf({{"SLURM_STEP_GPUS", "0,1"}, {"SLURM_GPUS_ON_NODE", "8"}}, 0).count, 2);
  EXPECT_EQ(GrantOf({{"SLURM_GPUS_ON_NODE", "8"}}, 0).count, 8);
}

TEST(GpuGrantTest, FewerUsableThanGrantedFails) {
  v1::ProbeResult r = Granted({{"SLURM_GPUS_ON_NODE", "8"}}, 0, 4);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"GPU_GRANT_NOT_VISIBLE"});
  EXPECT_NE(r.findings(0).message().find("granted 8 GPUs (SLURM_GPUS_ON_NODE=8) and can use 4"),
            std::string::npos)
      << r.findings(0).message();
}

TEST(GpuGrantTest, ACudaIndexPastTheVisibleGpusFails) {
  v1::ProbeResult r =
      Granted({{"CUDA_VISIBLE_DEVICES", "0,1,5,2"}, {"SLURM_STEP_GPUS", "0,1,5,2"}}, 0, 4);
  // CUDA stops at 5: two usable of four granted.
  EXPECT_EQ(Codes(r), (std::vector<std::string>{"GPU_GRANT_NOT_VISIBLE", "GPU_GRANT_NOT_VISIBLE"}));
  EXPECT_NE(r.findings(0).message().find("names GPU 5 but 4 are visible"), std::string::npos);
  EXPECT_EQ(r.evidence().at("gpu.usable"), "2 (CUDA_VISIBLE_DEVICES=0,1,5,2)");
}

TEST(GpuGrantTest, MoreUsableThanGrantedWarnsAndAMatchPasses) {
  EXPECT_EQ(Codes(Granted({{"SLURM_STEP_GPUS", "0,1"}}, 0, 8)),
            std::vector<std::string>{"GPU_GRANT_EXCEEDED"});
  EXPECT_TRUE(
      Codes(Granted({{"SLURM_STEP_GPUS", "0,1"}, {"CUDA_VISIBLE_DEVICES", "0,1"}}, 0, 8)).empty());
  EXPECT_TRUE(Codes(Granted({}, 0, 8)).empty()) << "no grant stated: nothing to compare";
  EXPECT_EQ(Granted({}, 0, 8).evidence().at("gpu.granted"), "not stated");
}

// The CUDA runtime's reading of CUDA_VISIBLE_DEVICES, not the container
// runtime's: "all" and "abc" are no GPU, it stops at the first entry that
// is neither an ordinal nor a UUID, and a process sees one MIG instance.
TEST(GpuGrantTest, GpusCudaWillNotSeeAreNotCounted) {
  for (const char* cvd : {"all", "abc"}) {
    v1::ProbeResult r = Granted({{"CUDA_VISIBLE_DEVICES", cvd}}, 8, 8);
    EXPECT_EQ(r.evidence().at("gpu.usable"), absl::StrCat("0 (CUDA_VISIBLE_DEVICES=", cvd, ")"));
    ASSERT_FALSE(r.findings().empty()) << cvd;
    EXPECT_EQ(r.findings(0).code(), "GPU_GRANT_NOT_VISIBLE");
    EXPECT_NE(r.findings(0).message().find(absl::StrCat("names GPU ", cvd)), std::string::npos)
        << r.findings(0).message();
  }
  v1::ProbeResult partial = Granted({{"CUDA_VISIBLE_DEVICES", "0,abc,1"}}, 3, 4);
  EXPECT_EQ(partial.evidence().at("gpu.usable"), "1 (CUDA_VISIBLE_DEVICES=0,abc,1)");
  v1::ProbeResult mig = Granted(
      {{"CUDA_VISIBLE_DEVICES", "MIG-4b0e5c2a-1111-2222-3333-444455556666,"
                                "MIG-9a7d2b3c-1111-2222-3333-444455556666"}},
      2, 8);
  EXPECT_EQ(Codes(mig), std::vector<std::string>{"GPU_GRANT_NOT_VISIBLE"});
  EXPECT_EQ(job::CudaVisibleEntries("0,1,GPU-8f6e2f1c-aaaa", nullptr).size(), 3u);
  std::string stopped;
  EXPECT_EQ(job::CudaVisibleEntries("0,-1,2", &stopped).size(), 1u);
  EXPECT_EQ(stopped, "-1");
  // On purpose: no GPU, and no finding about an entry.
  EXPECT_TRUE(Codes(Granted({{"CUDA_VISIBLE_DEVICES", "-1"}}, 0, 8)).empty());
}

class LassenRailsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto topo = platform::LoadPciTopology(testing::FixturePath("hwloc/coral-lassen.xml"));
    ASSERT_TRUE(topo.ok()) << topo.status();
    topo_ = *topo;
  }
  v1::ProbeResult Judged(const std::set<std::string>& visible, bool uses_rdma,
                         const job::Env& env = {}) {
    v1::ProbeResult r;
    JudgeRails(topo_, {}, visible, uses_rdma, env, &r);
    return r;
  }
  platform::PciTopology topo_;
};

TEST_F(LassenRailsTest, EveryNicGivenPassesWithEachGpusRailInEvidence) {
  v1::ProbeResult r = Judged({"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}, true);
  EXPECT_TRUE(Codes(r).empty()) << r.DebugString();
  int gpus = 0;
  for (const auto& [k, v] : r.evidence()) {
    if (k.rfind("gpu.", 0) != 0) continue;
    ++gpus;
    EXPECT_NE(v.find("nearest visible NIC mlx5_"), std::string::npos) << v;
    EXPECT_NE(v.find("(NODE)"), std::string::npos) << v;
  }
  EXPECT_EQ(gpus, 4);
}

TEST_F(LassenRailsTest, OnlyTheOtherSocketsNicsGivenWarnsForTheFarGpus) {
  // Which socket's NICs are mlx5_2/3 is the capture's; the test takes the
  // GPUs whose host rail is mlx5_0/1 as the ones that must warn.
  const std::map<std::string, RdmaRail> host = RdmaRails(topo_);
  int far = 0;
  for (const auto& [gpu, rail] : host)
    far += !rail.nics.count("mlx5_2") && !rail.nics.count("mlx5_3");
  ASSERT_GT(far, 0);
  v1::ProbeResult r = Judged({"mlx5_2", "mlx5_3"}, true);
  EXPECT_EQ(Codes(r), std::vector<std::string>(far, "GPU_NEAREST_NIC_NOT_VISIBLE"));
  EXPECT_NE(r.findings(0).message().find("not visible here: its traffic goes to mlx5_"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_NE(r.findings(0).message().find("(SYS)"), std::string::npos);
  EXPECT_TRUE(Codes(Judged({"mlx5_2", "mlx5_3"}, false)).empty()) << "no RDMA: no rail to judge";
}

TEST_F(LassenRailsTest, AGdrLevelBelowTheGpusPathWarnsForEach) {
  const std::set<std::string> all = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};
  EXPECT_EQ(Codes(Judged(all, true, {{"NCCL_NET_GDR_LEVEL", "PHB"}})),
            std::vector<std::string>(4, "NCCL_GDR_LEVEL_EXCLUDES_NIC"));
  EXPECT_EQ(Codes(Judged(all, true, {{"NCCL_NET_GDR_LEVEL", "LOC"}})).size(), 4u);
  EXPECT_TRUE(Codes(Judged(all, true, {{"NCCL_NET_GDR_LEVEL", "SYS"}})).empty());
  EXPECT_TRUE(Codes(Judged(all, true, {{"NCCL_NET_GDR_LEVEL", "4"}})).empty()) << "legacy SYS";
}

// The probe, through NVML's test double: two GPUs seen, four granted.
TEST(GpuViewProbeTest, TwoSeenOfFourGrantedFailsAndNoneAtAllSkips) {
  setenv("NODEPROBE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
  setenv("FAKE_NVML_GPUS", "name=NVIDIA H100,bus=0000:19:00.0;name=NVIDIA H100,bus=0000:3b:00.0",
         1);
  GpuViewProbe probe;
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  ctx.arguments.Set(job::kGpusGranted, "4");
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Codes(*r), std::vector<std::string>{"GPU_GRANT_NOT_VISIBLE"}) << r->DebugString();
  EXPECT_EQ(r->evidence().at("gpu.seen"), "2 (NVML)");
  setenv("FAKE_NVML_GPUS", "", 1);
  ctx.arguments = ProbeArguments();
  r = probe.Run(ctx);
  ASSERT_TRUE(r.ok());
  if (getenv("SLURM_GPUS_ON_NODE") == nullptr && getenv("SLURM_STEP_GPUS") == nullptr) {
    EXPECT_EQ(r->verdict(), v1::SKIP) << r->DebugString();
  }
  unsetenv("FAKE_NVML_GPUS");
  unsetenv("NODEPROBE_NVML_LIBRARY");
}

}  // namespace
}  // namespace nodeprobe::gpu_view
