// The workload stage in the namespace lab: four agents (a, b, d, e around
// the router c), two ranks each, a scaled-down TP 2 x PP 2 x DP 2 shape
// replayed on Gloo over TCP through the coordinator. Healthy, it runs end
// to end and reports the step, the communication share and no late rank;
// with gpu-e's link shaped to 150 Mbit/s and both cores busy with a hog
// started and stopped by PID, WORKLOAD_STRAGGLER names gpu-e and only it,
// five runs out of five; the healthy lab under the same hog has no
// FAIL in five. Label "busy" (RUN_SERIAL): nothing else runs beside them.
#include <sys/stat.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/lab/cpu_hog.h"
#include "tests/lab/fleet_fixture.h"
#include "tests/lab/throttled_fs.h"

namespace nodeprobe::lab {
namespace {

constexpr int kRuns = 5;

// TP inside each node (loopback), pipeline stage 0 on gpu-a and gpu-b,
// stage 1 on gpu-d and gpu-e, data parallel across the node pairs. Per
// step and rank: 8 micro-batches of 1 MiB activations each way between
// the stages and 5 MB of gradients. One layer per stage: the in-node TP
// all-reduces (loopback, CPU-bound on 2 cores) stay a minority of the
// traffic, so the links set the pace even in the sanitizer build.
constexpr char kShape[] = R"(workload:
  tp: 2
  pp: 2
  ranks_per_node: 2
  hidden: 512
  layers: 2
  seq: 1024
  micro_batches: 8
  params_b: 0.01
  compute_ms_per_layer: 0.5
  warmup: 2
  steps: 12
)";

std::string Summary(const v1::StageRun& run);

class WorkloadLabTest : public ClusterLabTest {
 protected:
  WorkloadLabTest() { sender_mbit_ = 2000; }
  void SetUp() override {
    ClusterLabTest::SetUp();
    if (IsSkipped()) return;
    profile_ = dir_.path() + "/workload.yaml";
    testing::WriteFile(profile_, kShape);
  }
  int Workload(std::string* out, const std::string& profile = "") {
    return Client({"run", "--stage", "workload", "--nodes", "gpu-a,gpu-b,gpu-d,gpu-e", "--format",
                   "json", "--timeout", "240", "--profile", profile.empty() ? profile_ : profile},
                  false, out, absl::Seconds(260));
  }
  std::string Path(const std::string& name) { return dir_.path() + "/" + name; }
  // A burst during the steps: 18 measured steps, the burst over steps 6-11,
  // judged per phase. Each run prints its phases for the notes.
  v1::StageRun BurstRun(const std::string& kind, const std::string& extra, const std::string& bar,
                        std::string* out) {
    const std::string profile = Path(absl::StrCat("burst-", kind, "-", bar, ".yaml"));
    testing::WriteFile(profile,
                       absl::StrCat(absl::StrReplaceAll(kShape, {{"steps: 12", "steps: 18"}}),
                                    "  burst_slowdown_max: ", bar, "\n", extra));
    Client({"run", "--stage", "workload", "--nodes", "gpu-a,gpu-b,gpu-d,gpu-e", "--format", "json",
            "--timeout", "240", "--profile", profile, "--burst", kind, "--burst-at", "6",
            "--burst-steps", "6"},
           false, out, absl::Seconds(260));
    const v1::StageRun run = ParseRun(*out);
    std::cerr << kind << " burst, bar " << bar << ": " << Summary(run) << "\n";
    for (const v1::WorkloadReport::Phase& p : run.workload().phases()) {
      std::cerr << "  " << p.ShortDebugString() << "\n";
    }
    for (const v1::StageReport& r : run.node_reports()) {  // what else went wrong
      for (const v1::ProbeResult& p : r.results()) {
        if (p.verdict() != v1::ERROR) continue;
        std::cerr << "  ERROR " << r.node() << " " << p.probe() << ": " << p.reason() << " "
                  << (p.findings_size() > 0 ? p.findings(0).message() : "") << "\n";
      }
    }
    return run;
  }
  std::string profile_;
};

std::string Summary(const v1::StageRun& run) {
  const v1::WorkloadReport& w = run.workload();
  std::string out = absl::StrFormat(
      "%s: step p50 %.1f ms cv %.2f comm %.2f late %d (%s) %.1f ms share %.2f noise %.1f",
      v1::Verdict_Name(run.verdict()), w.step_p50_ms(), w.step_cv(), w.comm_share(), w.late_rank(),
      w.late_node(), w.late_ms(), w.late_share(), w.noise_ms());
  for (const v1::Finding& f : run.findings()) {
    absl::StrAppend(&out, " | ", v1::Verdict_Name(f.severity()), " ", f.code(), " ", f.device());
  }
  return out;
}

TEST_F(WorkloadLabTest, TheShapeRunsEndToEndOnGloo) {
  ASSERT_TRUE(StartFourNodes());
  std::string out;
  const int rc = Workload(&out);
  const v1::StageRun run = ParseRun(out);
  std::cerr << "healthy: " << Summary(run) << "\n";
  EXPECT_NE(rc, 1) << out;
  if (run.workload().steps() == 0) {  // what the ranks' agents said, for the log
    for (const char* h : {"a", "b", "d", "e"}) {
      std::cerr << lab_->ReadLog(absl::StrCat("agent-gpu-", h, "-", h, ".log")) << "\n";
    }
  }
  EXPECT_EQ(run.stage(), v1::WORKLOAD);
  const v1::WorkloadReport& w = run.workload();
  EXPECT_EQ(w.layout(), "tp 2 x pp 2 x dp 2 = 8 ranks, 2 per node");
  EXPECT_EQ(w.library(), "gloo");
  EXPECT_EQ(w.rank_nodes_size(), 8);
  EXPECT_EQ(w.rank_nodes(7), "gpu-e");
  // 12, or 24 when a rank led within the noise and the steps were pooled
  // with a second measurement's (workload_stage.cc).
  EXPECT_TRUE(w.steps() == 12u || (w.steps() == 24u && w.measurements() >= 2)) << out;
  EXPECT_EQ(w.step_ms_size(), static_cast<int>(w.steps()));
  EXPECT_EQ(w.waits_size(), 8);
  EXPECT_GT(w.step_p50_ms(), 10);  // 12 ms of compute per rank at the least
  EXPECT_GT(w.comm_share(), 0);
  EXPECT_LT(w.comm_share(), 1);
  std::set<std::string> groups;
  for (const v1::WorkloadReport::OpTime& o : w.ops()) {
    groups.insert(o.group());
    // Every collective was also timed alone; a send or receive cannot be.
    EXPECT_EQ(o.isolated_ms() > 0, o.group() != "pp") << o.ShortDebugString();
  }
  EXPECT_EQ(groups, (std::set<std::string>{"dp", "pp", "tp"})) << out;
  // The gate's workload item is met by this run alone, and names it.
  std::string json;
  Client({"report", "--run", run.run_id(), "--format", "json"}, false, &json);
  const v1::StageRun reported = ParseRun(json);
  bool met = false;
  for (const v1::GateItem& g : reported.gate().items()) {
    if (g.item() != "workload") continue;
    met = g.state() == v1::GATE_MET && g.values_size() == 1 &&
          g.values(0).find("step p50") != std::string::npos;
  }
  EXPECT_TRUE(met) << json;
  // The HTML record has the step chart and the wait heatmap.
  std::string html;
  Client({"report", "--run", run.run_id(), "--format", "html"}, false, &html);
  EXPECT_NE(html.find("step time (ms) over the measured steps"), std::string::npos);
  EXPECT_NE(html.find("each rank's wait per step"), std::string::npos);
}

// Fidelity: the DP-only shape's 25 MiB gradient buckets as the stage times
// them, one rank per node, against a plain Gloo all-reduce loop of the
// same size between the same four namespaces, in the same test: within
// 10%.
TEST_F(WorkloadLabTest, TheStagesAllReduceMatchesAPlainGlooLoop) {
  ASSERT_TRUE(StartFourNodes());
  const std::string dp = dir_.path() + "/dp.yaml";
  testing::WriteFile(dp,
                     "workload:\n  ranks_per_node: 1\n  params_b: 0.04\n  layers: 2\n"
                     "  hidden: 256\n  seq: 16\n  compute_ms_per_layer: 0.01\n  warmup: 1\n"
                     "  steps: 4\n");
  std::string out;
  Workload(&out, dp);
  const v1::StageRun run = ParseRun(out);
  constexpr uint64_t kBucket = 25ull << 20;
  double stage_ms = 0;
  for (const v1::WorkloadReport::OpTime& o : run.workload().ops()) {
    if (o.group() == "dp" && o.op() == "all_reduce" && o.bytes() == kBucket) {
      stage_ms = o.median_ms();
    }
  }
  ASSERT_GT(stage_ms, 0) << out;
  const std::string store = dir_.path() + "/gloo-store";
  ASSERT_EQ(mkdir(store.c_str(), 0700), 0);
  const std::vector<std::pair<std::string, std::string>> ranks = {
      {"a", "10.83.1.2"}, {"b", "10.83.2.2"}, {"d", "10.83.3.2"}, {"e", "10.83.4.2"}};
  std::vector<pid_t> pids;
  for (size_t r = 0; r < ranks.size(); ++r) {
    auto pid = lab_->Spawn(ranks[r].first,
                           {GLOO_LOOP_BINARY, absl::StrCat(r), "4", store, ranks[r].second,
                            absl::StrCat(kBucket), "12"},
                           absl::StrCat("loop", r, ".log"));
    ASSERT_TRUE(pid.ok());
    pids.push_back(*pid);
  }
  for (pid_t pid : pids) {
    auto rc = lab_->Wait(pid, absl::Seconds(120));
    ASSERT_TRUE(rc.ok() && *rc == 0) << lab_->ReadLog("loop0.log");
  }
  const std::string loop = lab_->ReadLog("loop0.log");
  const size_t at = loop.find("median_ms ");
  ASSERT_NE(at, std::string::npos) << loop;
  const double plain_ms = std::stod(loop.substr(at + 10));
  std::cerr << absl::StrFormat("25 MiB all-reduce: stage %.1f ms, plain Gloo %.1f ms, ratio %.3f\n",
                               stage_ms, plain_ms, stage_ms / plain_ms);
  EXPECT_NEAR(stage_ms / plain_ms, 1.0, 0.10);
}

// A job's NCCL log in NCCL 2.20's words: 4 hosts x 2 ranks, a world
// communicator, one per host (tensor parallel), and pipeline pairs between
// host h and h+2. Each step: a send or receive across the pipeline, a TP
// all-reduce, a world all-reduce and all-gather. A warm-up broadcast first.
std::string EightRankLog(int steps) {
  std::string log;
  for (int r = 0; r < 8; ++r) {
    const int host = r / 2;
    const std::string p =
        absl::StrCat("job-", host, ":", 200 + r, ":", 200 + r, " [", r % 2, "] NCCL INFO ");
    auto init = [&](const std::string& comm, int rank, int n, const std::string& id) {
      absl::StrAppend(&log, p, "comm ", comm, " rank ", rank, " nranks ", n, " cudaDev ", r % 2,
                      " nvmlDev 0 busId 1000 commId ", id, " - Init COMPLETE\n");
    };
    init(absl::StrCat("0xa", r), r, 8, "0x1000");
    init(absl::StrCat("0xb", r), r % 2, 2, absl::StrCat("0x20", host));
    init(absl::StrCat("0xc", r), host / 2, 2, absl::StrCat("0x30", r % 4));
    auto op = [&](const char* name, int count, int datatype, int root, const std::string& comm,
                  int n) {
      absl::StrAppend(&log, p, name, ": opCount 1 sendbuff 0x1 recvbuff 0x2 count ", count,
                      " datatype ", datatype, " op 0 root ", root, " comm ", comm, " [nranks=", n,
                      "] stream 0x9\n");
    };
    op("Broadcast", 4096, 9, 0, absl::StrCat("0xa", r), 8);
    for (int s = 0; s < steps; ++s) {
      op(host < 2 ? "Send" : "Recv", 131072, 9, host < 2 ? 1 : 0, absl::StrCat("0xc", r), 2);
      op("AllReduce", 65536, 7, 0, absl::StrCat("0xb", r), 2);
      op("AllReduce", 262144, 7, 0, absl::StrCat("0xa", r), 8);
      op("AllGather", 1024, 7, 0, absl::StrCat("0xa", r), 8);
    }
  }
  return log;
}

// From a job's log to the replay: `workload from-nccl-log` writes the
// step, the stage replays it on the four nodes, and what the ranks ran is
// exactly the logged ops, per communicator: count and bytes.
TEST_F(WorkloadLabTest, ALoggedStepReplaysExactlyItsOps) {
  ASSERT_TRUE(StartFourNodes());
  const std::string log = dir_.path() + "/job.log";
  const std::string logged = dir_.path() + "/logged.yaml";
  testing::WriteFile(log, EightRankLog(6));
  auto pid = lab_->Spawn("c", {NODEPROBE_BINARY, "workload", "from-nccl-log", log, "--out", logged},
                         "from-log.log");
  ASSERT_TRUE(pid.ok());
  auto rc = lab_->Wait(*pid, absl::Seconds(30));
  ASSERT_TRUE(rc.ok() && *rc == 0) << lab_->ReadLog("from-log.log");
  std::ifstream in(logged);
  const std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(yaml.find("c0: [0, 1, 2, 3, 4, 5, 6, 7]"), std::string::npos) << yaml;
  testing::WriteFile(logged, yaml + "  warmup: 1\n  steps: 4\n");
  std::string out;
  EXPECT_EQ(Workload(&out, logged), 0) << out;
  const v1::StageRun run = ParseRun(out);
  std::cerr << "logged: " << Summary(run) << "\n";
  const v1::WorkloadReport& w = run.workload();
  EXPECT_EQ(w.shape(), "logged");
  EXPECT_TRUE(w.steps() == 4u || (w.steps() == 8u && w.measurements() >= 2)) << out;
  // Per step, summed over the 8 ranks: (op, bytes) -> the count on each
  // communicator that ran it (c0 is the world: the first Init line's).
  std::map<std::string, std::multiset<uint32_t>> ran;
  std::set<std::string> on_world;
  for (const v1::WorkloadReport::OpTime& o : w.ops()) {
    const std::string key = absl::StrCat(o.op(), " ", o.bytes());
    ran[key].insert(o.count());
    if (o.group() == "c0") on_world.insert(key);
  }
  const std::map<std::string, std::multiset<uint32_t>> want = {
      {"all_reduce 1048576", {8}},          // the world's, on every rank
      {"all_gather 32768", {8}},            // 1024 floats x 8 ranks
      {"all_reduce 262144", {2, 2, 2, 2}},  // each host's pair
      {"send 262144", {1, 1, 1, 1}},        // 131072 bf16, stage 0 to 1
      {"recv 262144", {1, 1, 1, 1}},
  };
  EXPECT_EQ(ran, want) << out;
  EXPECT_EQ(on_world, (std::set<std::string>{"all_reduce 1048576", "all_gather 32768"}));
}

bool Stalls(const v1::StageRun& run) {
  for (const v1::Finding& f : run.findings()) {
    if (f.code() == "WORKLOAD_BURST_STALLS") return true;
  }
  return false;
}

// Bulk TCP from each node to the next over the lab's links, during steps
// 6-11: the steps during it are slower, the phases say so, and the finding
// follows the bar (a low one fires, a high one does not).
TEST_F(WorkloadLabTest, AnEastWestBurstRaisesTheStepsTailAndIsJudgedPerPhase) {
  ASSERT_TRUE(StartFourNodes());
  std::string out;
  const v1::StageRun low = BurstRun("east-west", "", "1.05", &out);
  ASSERT_EQ(low.workload().phases_size(), 3) << out;
  const v1::WorkloadReport::Phase& before = low.workload().phases(0);
  const v1::WorkloadReport::Phase& during = low.workload().phases(1);
  EXPECT_EQ(before.steps(), 6u);
  EXPECT_EQ(during.first_step(), 6u);
  EXPECT_EQ(low.workload().phases(2).steps(), 6u);
  EXPECT_GT(during.step_p99_ms(), 1.2 * before.step_p99_ms()) << out;
  EXPECT_TRUE(Stalls(low)) << out;
  const v1::StageRun high = BurstRun("east-west", "", "50", &out);
  ASSERT_EQ(high.workload().phases_size(), 3) << out;
  EXPECT_FALSE(Stalls(high)) << out;
  // The HTML step chart shades the window.
  std::string html;
  Client({"report", "--run", low.run_id(), "--format", "html"}, false, &html);
  EXPECT_NE(html.find("<title>east-west burst</title>"), std::string::npos);
}

// A competing collective job (the nodes' first ranks all-reducing 4 MiB
// in a loop on their own Gloo context) during steps 6-11: the steps during
// it are slower, the phases say so, the low bar fires, and the job's loop
// ends on every node (the stage ends, no rank hangs).
TEST_F(WorkloadLabTest, ACompetingJobRaisesTheStepsTailAndEndsWithTheWindow) {
  ASSERT_TRUE(StartFourNodes());
  std::string out;
  const v1::StageRun low = BurstRun("competing", "", "1.05", &out);
  ASSERT_EQ(low.workload().phases_size(), 3) << out;
  const v1::WorkloadReport::Phase& before = low.workload().phases(0);
  const v1::WorkloadReport::Phase& during = low.workload().phases(1);
  EXPECT_EQ(during.first_step(), 6u);
  EXPECT_EQ(low.workload().phases(2).steps(), 6u);
  EXPECT_GT(during.step_p99_ms(), 1.2 * before.step_p99_ms()) << out;
  EXPECT_TRUE(Stalls(low)) << out;
  EXPECT_NE(low.verdict(), v1::ERROR) << out;
}

// Checkpoints into a throttled loop device shared by the nodes (as the
// storage storm's lab) during steps 6-11: reported per phase, no finding
// with a high bar, nothing left on the filesystem.
TEST_F(WorkloadLabTest, AStorageBurstIsReportedPerPhaseAndLeavesNothingBehind) {
  if (absl::Status ok = ThrottledFs::Available(); !ok.ok()) GTEST_SKIP() << ok.message();
  ThrottledFs shared(dir_.path());
  ASSERT_TRUE(shared.status().ok()) << shared.status();
  shared.Throttle(16 << 20, 64 << 20);
  // Each agent in the cgroup: its task workers follow it.
  ASSERT_TRUE(StartFourNodes([&](pid_t agent) { shared.Add(agent); }));
  const std::string storage = absl::StrCat("storage:\n  paths: [", shared.mount(),
                                           "]\n  writers: 1\n  shard_mb: 8\n  metadata_files: 0\n");
  std::string out;
  // No slowdown is asserted: the lab's "shared" filesystem is a loop
  // device on the host, not on the nodes' links (measured 1.00-1.06x);
  // the east-west burst above is the one that shares the wire.
  const v1::StageRun run = BurstRun("storage", storage, "50", &out);
  ASSERT_EQ(run.workload().phases_size(), 3) << out;
  EXPECT_EQ(run.workload().burst().path(), shared.mount());
  EXPECT_EQ(run.workload().phases(1).steps(), 6u);
  EXPECT_NE(run.verdict(), v1::ERROR) << out;
  EXPECT_FALSE(Stalls(run)) << out;
  EXPECT_TRUE(shared.LeftBehind().empty()) << shared.LeftBehind()[0];
  // Without a path the flag is refused before anything runs, naming the key.
  const std::string bare = Path("bare.yaml");
  testing::WriteFile(bare, kShape);
  EXPECT_EQ(Client({"run", "--stage", "workload", "--nodes", "gpu-a,gpu-b,gpu-d,gpu-e", "--profile",
                    bare, "--burst", "storage"},
                   false, &out),
            2);
  EXPECT_NE(out.find("storage.paths"), std::string::npos) << out;
}

// Data parallel only, one rank per node: a 12.5 MB gradient all-reduced
// each step across the four nodes (~80 ms at the lab's 2 Gbit/s, ~50 ms on
// two nodes), held to 300 ms a step.
constexpr char kDpShape[] = R"(workload:
  ranks_per_node: 1
  params_b: 0.00625
  layers: 1
  hidden: 256
  seq: 64
  compute_ms_per_layer: 0.5
  warmup: 1
  steps: 4
  step_time_max_ms: 300
)";

const v1::Finding* SlowSubset(const v1::StageRun& run) {
  for (const v1::Finding& f : run.findings()) {
    if (f.code() == "WORKLOAD_SLOW_SUBSET") return &f;
  }
  return nullptr;
}

// Two "leaves", {a, b} and {d, e}: what router c forwards between them is
// shaped to 200 Mbit/s (an HTB class per egress port, chosen by source
// prefix); inside a leaf the links are untouched. Every node's own link is
// fine, the job is slow, no rank stands out: the runs on parts name the two
// leaves, in at most 2 log2(4) = 4 runs.
TEST_F(WorkloadLabTest, ASlowLinkBetweenTwoLeavesIsFoundByRunningParts) {
  ASSERT_TRUE(StartFourNodes());
  const std::vector<std::pair<std::string, std::vector<std::string>>> egress = {
      {"ca", {"10.83.3.0/24", "10.83.4.0/24"}},
      {"cb", {"10.83.3.0/24", "10.83.4.0/24"}},
      {"cd", {"10.83.1.0/24", "10.83.2.0/24"}},
      {"ce", {"10.83.1.0/24", "10.83.2.0/24"}}};
  for (const auto& [dev, from] : egress) {
    ASSERT_TRUE(lab_->Exec("c", absl::StrCat("tc qdisc replace dev ", dev,
                                             " root handle 1: htb default 10"))
                    .ok());
    ASSERT_TRUE(lab_->Exec("c", absl::StrCat("tc class add dev ", dev,
                                             " parent 1: classid 1:10 htb rate 10gbit"))
                    .ok());
    ASSERT_TRUE(lab_->Exec("c", absl::StrCat("tc class add dev ", dev,
                                             " parent 1: classid 1:20 htb rate 200mbit"))
                    .ok());
    for (const std::string& prefix : from) {
      ASSERT_TRUE(lab_->Exec("c", absl::StrCat("tc filter add dev ", dev,
                                               " parent 1: protocol ip u32 match ip src ", prefix,
                                               " flowid 1:20"))
                      .ok());
    }
  }
  const std::string dp = Path("dp.yaml");
  testing::WriteFile(dp, kDpShape);
  std::string out;
  EXPECT_EQ(Workload(&out, dp), 1) << out;
  const v1::StageRun run = ParseRun(out);
  std::cerr << "leaves: " << Summary(run) << "\n";
  for (const auto& p : run.workload().bisection())
    std::cerr << "  " << p.ShortDebugString() << "\n";
  const v1::Finding* f = SlowSubset(run);
  ASSERT_NE(f, nullptr) << out;
  EXPECT_EQ(f->severity(), v1::FAIL);
  EXPECT_EQ(f->device(), "gpu-a,gpu-b | gpu-d,gpu-e") << f->message();
  EXPECT_LE(run.workload().bisection_size(), 4);
}

// One node's own link shaped (gpu-e's sender at 200 Mbit/s): the same
// runs name it alone.
TEST_F(WorkloadLabTest, ASingleShapedNodeIsNamedAloneByRunningParts) {
  ASSERT_TRUE(StartFourNodes());
  ASSERT_TRUE(lab_->Shape("e", "ec", 200).ok());
  const std::string dp = Path("dp.yaml");
  testing::WriteFile(dp, kDpShape);
  std::string out;
  EXPECT_EQ(Workload(&out, dp), 1) << out;
  const v1::StageRun run = ParseRun(out);
  std::cerr << "one node: " << Summary(run) << "\n";
  for (const auto& p : run.workload().bisection())
    std::cerr << "  " << p.ShortDebugString() << "\n";
  const v1::Finding* f = SlowSubset(run);
  if (run.workload().late_rank() >= 0) {
    // The straggler rule explained it first: then no runs on parts.
    EXPECT_EQ(run.workload().late_node(), "gpu-e") << out;
    EXPECT_EQ(f, nullptr);
    return;
  }
  ASSERT_NE(f, nullptr) << out;
  EXPECT_EQ(f->device(), "gpu-e") << f->message();
  EXPECT_LE(run.workload().bisection_size(), 4);
}

TEST_F(WorkloadLabTest, AShapeThatDoesNotFitIsRefusedNamingTheKey) {
  ASSERT_TRUE(StartFourNodes());
  const std::string big = dir_.path() + "/big.yaml";
  testing::WriteFile(big, "workload:\n  tp: 4\n  ranks_per_node: 2\n");
  std::string out;
  EXPECT_EQ(Workload(&out, big), 2) << out;
  EXPECT_NE(out.find("workload.tp"), std::string::npos) << out;
}

TEST_F(WorkloadLabTest, ARankWhoseAgentDiesEndsTheStageNamingItsNode) {
  port_ = StartCoordinator(false);
  pid_t agent_e = -1;
  for (const auto& [host, node] : std::vector<std::pair<std::string, std::string>>{
           {"a", "gpu-a"}, {"b", "gpu-b"}, {"d", "gpu-d"}, {"e", "gpu-e"}}) {
    const pid_t pid = StartAgent(host, node, false);
    if (node == "gpu-e") agent_e = pid;
  }
  for (const char* node : {"gpu-a", "gpu-b", "gpu-d", "gpu-e"})
    ASSERT_TRUE(WaitForAgent(node, false));
  const std::string long_run = dir_.path() + "/long.yaml";
  testing::WriteFile(long_run, absl::StrReplaceAll(kShape, {{"steps: 12", "steps: 100000"}}));
  auto pid =
      lab_->Spawn("c",
                  {NODEPROBE_BINARY, "run", "--stage", "workload", "--nodes",
                   "gpu-a,gpu-b,gpu-d,gpu-e", "--format", "json", "--timeout", "120", "--profile",
                   long_run, "--coordinator", absl::StrCat("10.83.1.1:", port_), "--insecure"},
                  "dies.log");
  ASSERT_TRUE(pid.ok());
  ASSERT_TRUE(lab_->WaitForLog("dies.log", "x pp 2 x dp 2", absl::Seconds(60)).ok())
      << lab_->ReadLog("dies.log");
  absl::SleepFor(absl::Seconds(3));  // the ranks are in their steps
  kill(agent_e, SIGKILL);
  const absl::Time killed = absl::Now();
  auto rc = lab_->Wait(*pid, absl::Seconds(100));
  ASSERT_TRUE(rc.ok()) << rc.status();
  std::cerr << "ended " << absl::ToDoubleSeconds(absl::Now() - killed) << " s after the kill\n";
  const std::string out = lab_->ReadLog("dies.log");
  const v1::StageRun run = ParseRun(out);
  EXPECT_NE(*rc, 0) << out;
  EXPECT_EQ(run.verdict(), v1::ERROR) << out;
  bool named = false;
  for (const v1::Finding& f : run.findings()) {
    named |= f.code() == "WORKLOAD_NOT_RUN" && f.message().find("gpu-e") != std::string::npos;
  }
  EXPECT_TRUE(named) << out;
}

TEST_F(WorkloadLabTest, UnderAHogAHealthyLabHasNoFail) {
  ASSERT_TRUE(StartFourNodes());
  CpuHog hog(2);
  ASSERT_EQ(hog.size(), 2u);
  for (int i = 0; i < kRuns; ++i) {
    std::string out;
    const int rc = Workload(&out);
    const v1::StageRun run = ParseRun(out);
    std::cerr << "healthy run " << i + 1 << ": " << Summary(run) << "\n";
    EXPECT_NE(rc, 1) << out;
    EXPECT_TRUE(run.has_workload()) << out;
    for (const v1::Finding& f : run.findings()) EXPECT_NE(f.severity(), v1::FAIL) << out;
  }
}

// gpu-e's sender at 150 Mbit/s: its ~26 MB a step then take ~1.4 s, more
// than a whole step of the sanitizer build under the hog (~0.93 s on CI's
// machine). At 600 Mbit/s (0.35 s) the CPU, not the link, set that build's
// pace: the token bucket refilled between the slow sends and gpu-e's lead
// came and went (CI: 54, 60, then 12 ms). A fault the machine cannot show
// is not one the judge can name.
TEST_F(WorkloadLabTest, UnderAHogTheShapedNodeAndOnlyItIsNamed) {
  ASSERT_TRUE(lab_->Shape("e", "ec", 150).ok());
  ASSERT_TRUE(StartFourNodes());
  CpuHog hog(2);
  for (int i = 0; i < kRuns; ++i) {
    std::string out;
    Workload(&out);
    const v1::StageRun run = ParseRun(out);
    std::cerr << "shaped run " << i + 1 << ": " << Summary(run) << "\n";
    std::set<std::string> named;
    for (const v1::Finding& f : run.findings()) {
      if (f.code() != "WORKLOAD_STRAGGLER") continue;
      named.insert(f.device().substr(0, 5));
      // Its node's own probes are healthy here: the finding says so.
      EXPECT_NE(f.message().find("its node's own probes found nothing"), std::string::npos)
          << f.message();
    }
    EXPECT_EQ(named, std::set<std::string>{"gpu-e"}) << out;
    EXPECT_EQ(run.workload().late_node(), "gpu-e") << out;
  }
}

// GPU nodes: the same four agents with two fake GPUs each (CUDA and NCCL
// replaced by tests/fakes/fake_nccl.cc through the loader's variables, as
// the collective lab does): the stage picks NCCL, one rank per GPU, and
// every group's communicator meets through rank 0's store.
class WorkloadNcclLabTest : public WorkloadLabTest {
 protected:
  void SetUp() override {
    WorkloadLabTest::SetUp();
    if (IsSkipped()) return;
    UseFakeGpus(FAKE_NCCL_LIBRARY, 2);
    testing::WriteFile(profile_,
                       "nccl:\n  collectives: [all_reduce]\n  sizes: [4096]\n  iters: 2\n"
                       "  warmup_iters: 1\n  op_timeout_s: 5\n"
                       "workload:\n  tp: 2\n  pp: 2\n  hidden: 256\n  layers: 2\n  seq: 64\n"
                       "  micro_batches: 2\n  params_b: 0.001\n  compute_ms_per_layer: 0.2\n"
                       "  warmup: 1\n  steps: 4\n");
    wait_profile_ = profile_;
  }
  void TearDown() override { ClearFakeGpus(); }
};

TEST_F(WorkloadNcclLabTest, GpuNodesReplayOnNcclOneRankPerGpu) {
  ASSERT_TRUE(StartFourNodes());
  std::string out;
  const int rc = Workload(&out);
  const v1::StageRun run = ParseRun(out);
  std::cerr << "nccl: " << Summary(run) << "\n";
  EXPECT_NE(rc, 1) << out;
  const v1::WorkloadReport& w = run.workload();
  EXPECT_EQ(w.library(), "nccl") << out;
  EXPECT_EQ(w.layout(), "tp 2 x pp 2 x dp 2 = 8 ranks, 2 per node");
  // The profile's 4 steps, or 8 when a rank led within the noise and the
  // stage measured again and pooled the steps (workload_stage.cc).
  EXPECT_TRUE(w.steps() == 4u || (w.steps() == 8u && w.measurements() >= 2)) << out;
  EXPECT_EQ(w.step_ms_size(), static_cast<int>(w.steps())) << out;
  std::set<std::string> groups;
  for (const v1::WorkloadReport::OpTime& o : w.ops()) groups.insert(o.group());
  EXPECT_EQ(groups, (std::set<std::string>{"dp", "pp", "tp"})) << out;
  for (const v1::Finding& f : run.findings()) EXPECT_NE(f.code(), "WORKLOAD_NOT_RUN") << out;
}

}  // namespace
}  // namespace nodeprobe::lab
