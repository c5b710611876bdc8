// `nodeprobe run --probe nccl` end to end over the fake CUDA runtime and
// NCCL (tests/fakes/fake_nccl.cc): four fake GPUs in four rank workers, the
// nccl-tests math, a wrong result, a hang aborted at its deadline, a rank
// that dies mid-collective, and the SKIPs without a GPU or a library.
#include <dlfcn.h>
#include <sys/stat.h>

#include <chrono>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe {
namespace {

using ::nodeprobe::testing::CommandResult;

class NcclCollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("NODEPROBE_CUDART_LIBRARY", FAKE_NCCL_LIBRARY, 1);
    setenv("NODEPROBE_NCCL_LIBRARY", FAKE_NCCL_LIBRARY, 1);
    setenv("FAKE_CUDA_DEVICES", "4", 1);
    for (const char* v : {"FAKE_NCCL_FAIL_RANK", "FAKE_NCCL_FAIL", "FAKE_NCCL_FAIL_AFTER"}) {
      unsetenv(v);
    }
    // A directory of this test's own: gtest's TempDir() is /tmp/ for every
    // test process, and ctest -j runs these side by side.
    profile_ = dir_.path() + "/nccl-profile.yaml";
    Profile(
        "nccl:\n  collectives: [all_reduce, all_gather, reduce_scatter, alltoall, broadcast, "
        "reduce, sendrecv]\n  min_bytes: 4096\n  max_bytes: 65536\n  step_factor: 16\n"
        "  iters: 4\n  warmup_iters: 1\n  op_timeout_s: 2\n"
        "  env: { NCCL_IB_HCA: \"=mlx5_0:1\" }\n");
  }
  void Profile(const std::string& yaml) { testing::WriteFile(profile_, yaml); }

  // Runs the probe; the report's nccl result.
  v1::ProbeResult Run(CommandResult* raw = nullptr) { return RunWith({}, raw); }
  v1::ProbeResult RunWith(const std::vector<std::string>& extra, CommandResult* raw) {
    std::vector<std::string> args = {"run",     "--stage",  "single-node", "--probe",
                                     "nccl",    "--profile", profile_,     "--format",
                                     "json",    "--node-name", "gpu01"};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = testing::RunBinary(NODEPROBE_BINARY, args);
    if (raw != nullptr) *raw = r;
    v1::StageReport report;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out << r.err;
    EXPECT_EQ(report.results_size(), 1);
    return report.results_size() ? report.results(0) : v1::ProbeResult();
  }

  static const v1::Finding* FindingOf(const v1::ProbeResult& r, const std::string& code) {
    for (const v1::Finding& f : r.findings()) {
      if (f.code() == code) return &f;
    }
    return nullptr;
  }

  testing::TempDir dir_;
  std::string profile_;
};

TEST_F(NcclCollectivesTest, FourFakeGpusRunEverySizeWithNcclTestsMath) {
  CommandResult raw;
  const v1::ProbeResult r = Run(&raw);
  EXPECT_EQ(raw.exit_code, 0) << raw.out;
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  const v1::CollectiveReport& c = r.collective();
  EXPECT_EQ(c.nranks(), 4u);
  EXPECT_EQ(c.nccl_version(), "2.99.0");
  ASSERT_EQ(c.ranks_size(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(c.ranks(i).rank(), static_cast<uint32_t>(i));
    EXPECT_EQ(c.ranks(i).gpu(), i);  // rank = local CUDA ordinal
    EXPECT_EQ(c.ranks(i).state(), "done");
    EXPECT_EQ(c.ranks(i).node(), "gpu01");
  }
  ASSERT_EQ(c.rows_size(), 7 * 2);  // 4096 and 65536 B for each collective
  for (const v1::CollectiveRow& row : c.rows()) {
    SCOPED_TRACE(row.collective() + " " + std::to_string(row.size()));
    EXPECT_GT(row.time_us(), 0);
    EXPECT_EQ(row.wrong(), 0);  // every element checked and right
    EXPECT_NEAR(row.algbw_gbps(), row.size() / (row.time_us() * 1e-6) / 1e9, 1e-9);
    const double factor = row.collective() == "all_reduce"   ? 2.0 * 3 / 4
                          : row.collective() == "broadcast" || row.collective() == "reduce" ||
                                  row.collective() == "sendrecv"
                              ? 1.0
                              : 3.0 / 4;
    EXPECT_NEAR(row.busbw_gbps(), row.algbw_gbps() * factor, 1e-9);
    EXPECT_GE(row.max_time_us(), row.time_us());  // the slowest rank beside the mean
    EXPECT_EQ(row.in_place_wrong(), row.collective() == "alltoall" ||
                                            row.collective() == "sendrecv"
                                        ? -1
                                        : 0);
  }
  // What was set for NCCL is evidence, and NCCL's own log was read.
  EXPECT_EQ(c.env().at("NCCL_IB_HCA"), "=mlx5_0:1");
  EXPECT_EQ(c.env().at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(c.log().versions(0), "2.99.0+fake");
  EXPECT_EQ(r.evidence().at("rank_order"), "local CUDA ordinal (rank r = GPU r)");
}

TEST_F(NcclCollectivesTest, AWrongResultIsFailNamingTheRank) {
  setenv("FAKE_NCCL_FAIL_RANK", "2", 1);
  setenv("FAKE_NCCL_FAIL", "wrong", 1);
  CommandResult raw;
  const v1::ProbeResult r = Run(&raw);
  EXPECT_EQ(raw.exit_code, 1);
  EXPECT_EQ(r.verdict(), v1::FAIL);
  const v1::Finding* f = FindingOf(r, "NCCL_WRONG_RESULT");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_TRUE(absl::StrContains(f->message(), "rank 2 on gpu01 (GPU 2)")) << f->message();
  EXPECT_FALSE(absl::StrContains(f->message(), "rank 1")) << f->message();
}

// A collective that misses its write in place (the fake's "nowrite" on
// rank 1's last all_gather, the in-place check): caught, because the check
// fills the receive buffer with -1 first, in place too.
TEST_F(NcclCollectivesTest, AMissingInPlaceWriteIsCaught) {
  Profile("nccl:\n  collectives: [all_gather]\n  sizes: [65536]\n  iters: 2\n"
          "  warmup_iters: 1\n  op_timeout_s: 2\n");
  // Out of place: 1 + 2 timed + 1 check; in place: 1 + 2 timed, then the check.
  setenv("FAKE_NCCL_FAIL_RANK", "1", 1);
  setenv("FAKE_NCCL_FAIL", "nowrite", 1);
  setenv("FAKE_NCCL_FAIL_AFTER", "7", 1);
  CommandResult raw;
  const v1::ProbeResult r = Run(&raw);
  EXPECT_EQ(r.verdict(), v1::FAIL) << r.DebugString();
  ASSERT_NE(FindingOf(r, "NCCL_WRONG_RESULT"), nullptr) << r.DebugString();
  ASSERT_GT(r.collective().rows_size(), 0);
  EXPECT_EQ(r.collective().rows(0).wrong(), 0);
  EXPECT_GT(r.collective().rows(0).in_place_wrong(), 0);
}

TEST_F(NcclCollectivesTest, AHangIsAbortedAtItsDeadlineAndNamed) {
  setenv("FAKE_NCCL_FAIL_RANK", "1", 1);
  setenv("FAKE_NCCL_FAIL", "hang", 1);
  setenv("FAKE_NCCL_FAIL_AFTER", "3", 1);
  const auto start = std::chrono::steady_clock::now();
  CommandResult raw;
  const v1::ProbeResult r = Run(&raw);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.verdict(), v1::ERROR);
  EXPECT_EQ(raw.exit_code, 3);
  const v1::Finding* f = FindingOf(r, "NCCL_TIMEOUT");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_TRUE(absl::StrContains(f->message(), "rank 1 on gpu01 (GPU 1): in all_reduce"))
      << f->message();
  EXPECT_EQ(r.collective().ranks(1).state(), "timeout");
  // op_timeout_s is 2: aborted then, plus the others' grace, well before
  // the stage's own deadline.
  EXPECT_LT(took, 20) << took;
}

TEST_F(NcclCollectivesTest, ARankThatDiesIsNamedAndTheOthersStop) {
  setenv("FAKE_NCCL_FAIL_RANK", "3", 1);
  setenv("FAKE_NCCL_FAIL", "exit", 1);
  setenv("FAKE_NCCL_FAIL_AFTER", "2", 1);
  const v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::ERROR);
  const v1::Finding* f = FindingOf(r, "NCCL_TIMEOUT");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_TRUE(absl::StrContains(f->message(), "rank 3 on gpu01 (GPU 3): its worker exited"))
      << f->message();
  EXPECT_EQ(r.collective().ranks(3).state(), "lost");
  // The survivors saw NCCL's remote error and said so themselves.
  EXPECT_NE(FindingOf(r, "NCCL_ASYNC_ERROR"), nullptr);
}

TEST_F(NcclCollectivesTest, TheProfileBarJudgesBusBwAtTheLargestSize) {
  Profile(
      "nccl:\n  collectives: [all_reduce]\n  sizes: [4096]\n  iters: 2\n  warmup_iters: 1\n"
      "  all_reduce_busbw_min_gbps: 3000\n");
  CommandResult raw;
  const v1::ProbeResult r = Run(&raw);
  EXPECT_EQ(raw.exit_code, 1);
  const v1::Finding* f = FindingOf(r, "NCCL_BUSBW_BELOW_EXPECTED");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_TRUE(absl::StrContains(f->message(), "below the profile's 3000.00 GB/s"));
  EXPECT_TRUE(absl::StrContains(r.evidence().at("expected.all_reduce"), "profile"));
}

TEST_F(NcclCollectivesTest, WithNoBarNvlinkIsTheHardwareBound) {
  // The fake's four GPUs (0000:10:00.0 ...) on NVLink 4, 18 links each, as
  // NVML would say; the fake moves well under 1 GB/s, far below 450.
  std::string gpus;
  for (int i = 0; i < 4; ++i) {
    gpus += "name=NVIDIA H100,bus=0000:1" + std::to_string(i) +
            ":00.0,nvlink=18/18,nvlink_version=4;";
  }
  setenv("FAKE_NVML_GPUS", gpus.c_str(), 1);
  setenv("NODEPROBE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
  Profile("nccl:\n  collectives: [all_reduce]\n  sizes: [65536]\n  iters: 2\n"
          "  warmup_iters: 1\n");
  CommandResult raw;
  v1::ProbeResult r = Run(&raw);
  EXPECT_EQ(raw.exit_code, 0) << raw.out;  // WARN
  const v1::Finding* f = FindingOf(r, "NCCL_BUSBW_BELOW_HARDWARE");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_EQ(f->severity(), v1::WARN);
  EXPECT_TRUE(absl::StrContains(r.evidence().at("expected.all_reduce"),
                                "NVLink 4: 18 active links x 25 GB/s"))
      << r.evidence().at("expected.all_reduce");
  // The operator's own share: nothing to say, the ratio still recorded.
  Profile("nccl:\n  collectives: [all_reduce]\n  sizes: [65536]\n  iters: 2\n"
          "  warmup_iters: 1\n  hardware_min_fraction: 0.000001\n");
  r = Run(&raw);
  unsetenv("FAKE_NVML_GPUS");
  unsetenv("NODEPROBE_NVML_LIBRARY");
  EXPECT_EQ(FindingOf(r, "NCCL_BUSBW_BELOW_HARDWARE"), nullptr) << r.DebugString();
  EXPECT_TRUE(absl::StrContains(r.evidence().at("expected.all_reduce"), "% of the hardware's"));
}

TEST_F(NcclCollectivesTest, ABusyGpuIsSkipNodeBusyUnlessForced) {
  // NVML says this test's own process computes on the first GPU.
  const std::string gpus = "name=NVIDIA H100,bus=0000:10:00.0,procs=1,pids=" +
                           std::to_string(getpid()) + ";name=NVIDIA H100,bus=0000:11:00.0";
  setenv("FAKE_NVML_GPUS", gpus.c_str(), 1);
  setenv("NODEPROBE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
  Profile("nccl:\n  collectives: [all_reduce]\n  sizes: [4096]\n  iters: 2\n"
          "  warmup_iters: 1\n");
  CommandResult raw;
  v1::ProbeResult r = Run(&raw);
  EXPECT_EQ(raw.exit_code, 0) << raw.out;
  EXPECT_EQ(r.verdict(), v1::SKIP) << r.DebugString();
  const v1::Finding* f = FindingOf(r, "NODE_BUSY");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_TRUE(absl::StrContains(f->message(), "GPU 0000:10:00.0: pid " + std::to_string(getpid()) +
                                                  " (cli_test)"))
      << f->message();
  EXPECT_EQ(r.collective().nranks(), 0u);  // nothing ran
  // The operator who knows.
  r = RunWith({"--force"}, &raw);
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  EXPECT_EQ(FindingOf(r, "NODE_BUSY"), nullptr);
  unsetenv("FAKE_NVML_GPUS");
  unsetenv("NODEPROBE_NVML_LIBRARY");
  // A sweep leaves intrusive probes alone unless the profile asks.
  r = RunWith({"--sweep"}, &raw);
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_TRUE(absl::StrContains(r.reason(), "guard.intrusive_in_sweep")) << r.reason();
  Profile("nccl:\n  collectives: [all_reduce]\n  sizes: [4096]\n  iters: 2\n"
          "  warmup_iters: 1\nguard:\n  intrusive_in_sweep: true\n");
  r = RunWith({"--sweep"}, &raw);
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
}

TEST_F(NcclCollectivesTest, NoGpuIsSkipWithTheReason) {
  setenv("FAKE_CUDA_DEVICES", "0", 1);
  CommandResult raw;
  const v1::ProbeResult r = Run(&raw);
  EXPECT_EQ(raw.exit_code, 0);
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_TRUE(absl::StrContains(r.reason(), "no usable GPU")) << r.reason();
}

TEST_F(NcclCollectivesTest, AMissingLibraryIsSkipNamingIt) {
  setenv("NODEPROBE_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  const v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_TRUE(absl::StrContains(r.reason(), "no NCCL (libnccl.so.2)")) << r.reason();
}

// The real libraries where /usr/local/cuda has them, on a host without a
// GPU driver: loaded, and an honest SKIP.
TEST_F(NcclCollectivesTest, RealNcclWithoutADriverIsSkip) {
  struct stat st;
  if (stat("/usr/local/cuda/lib64/libnccl.so.2", &st) != 0) {
    GTEST_SKIP() << "no NCCL under /usr/local/cuda here";
  }
  if (stat("/dev/nvidiactl", &st) == 0) GTEST_SKIP() << "this host has a GPU driver";
  unsetenv("NODEPROBE_CUDART_LIBRARY");
  unsetenv("NODEPROBE_NCCL_LIBRARY");
  const v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_TRUE(absl::StrContains(r.reason(), "no usable GPU") ||
              absl::StrContains(r.reason(), "no CUDA runtime") ||
              absl::StrContains(r.reason(), "no NVIDIA driver"))
      << r.reason();
  // No driver at all is said as that, not as "insufficient".
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY);
  if (driver == nullptr) {
    EXPECT_TRUE(absl::StrContains(r.reason(), "no NVIDIA driver")) << r.reason();
    EXPECT_FALSE(absl::StrContains(r.reason(), "insufficient")) << r.reason();
  } else {
    dlclose(driver);
  }
}

// `nodeprobe nccl`: nccl-tests' flags, its table, and one-line errors.
TEST_F(NcclCollectivesTest, TheNcclCommandTakesNcclTestsFlagsAndPrintsItsTable) {
  CommandResult r = testing::RunBinary(
      NODEPROBE_BINARY, {"nccl", "-b", "4K", "-e", "64K", "-f", "4", "--collective", "all_reduce",
                         "-n", "2", "-w", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "# NCCL 2.99.0, 4 ranks")) << r.out;
  for (const char* size : {" 4096 ", " 16384 ", " 65536 "}) {
    EXPECT_TRUE(absl::StrContains(r.out, size)) << size << "\n" << r.out;
  }
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"nccl", "--sizes", "1Q"},
        std::vector<std::string>{"nccl", "-b", "1M", "-e", "1K"},
        std::vector<std::string>{"nccl", "--collective", "allreduce"}}) {
    CommandResult e = testing::RunBinary(NODEPROBE_BINARY, bad);
    EXPECT_EQ(e.exit_code, 2) << bad[1];
    EXPECT_EQ(testing::LineCount(e.err), 1) << e.err;
  }
}

}  // namespace
}  // namespace nodeprobe
