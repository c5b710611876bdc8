#include "probes/workload/logged_step.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <streambuf>

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/workload/placement.h"
#include "probes/workload/step_program.h"
#include "probes/workload/workload_profile.h"
#include "tests/testing/fixtures.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#include <sanitizer/allocator_interface.h>
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#include <sanitizer/allocator_interface.h>
#endif

namespace nodeprobe::workload {
namespace {

using ::testing::HasSubstr;

constexpr char kRank0[] =
    "nccl-coll/cuiboyuan-gfbench_slow-trial-straggler-rank0_2gpu-socket_nccl2.20.5_allreduce-coll-"
    "trace.txt";
constexpr char kRank1[] =
    "nccl-coll/cuiboyuan-gfbench_slow-trial-straggler-rank1_2gpu-socket_nccl2.20.5_allreduce-coll-"
    "trace.txt";
constexpr char kFsdp[] =
    "nccl-coll/ai-on-eks-slinky-slurm-doc_fsdp-llama2-7b_4node-1xa10g_allgather-broadcast-coll.txt";
constexpr char kTrace[] =
    "nccl-coll/pha-Z-nccl-fork_nccl-example-profiler-plugin-trace_4gpu-ring-send-recv.json.txt";
constexpr char kNcclTests[] = "nccl/roce-nogdr_1node-2xa100_nccl2.27.7_all_reduce_perf.log";

void Read(CollLogReader& r, const std::string& fixture) {
  std::ifstream in(testing::FixturePath(fixture), std::ios::binary);
  ASSERT_TRUE(in) << fixture;
  r.AddStream(in);
}

std::string Text(const LoggedOp& op) {
  return absl::StrCat(op.comm, " ", op.op, " ", op.bytes,
                      op.peer >= 0 ? absl::StrCat(" ", op.peer) : "");
}

TEST(CollLogTest, TwoRanksOfOneCommunicatorWithTheStragglerCutWhereBothGot) {
  CollLogReader r;
  Read(r, kRank0);
  Read(r, kRank1);
  ASSERT_TRUE(r.status().ok());
  EXPECT_EQ(r.op_lines(), 17u + 18u);  // the README: 17 ops on rank 0, 18 on rank 1
  ASSERT_EQ(r.ranks().size(), 2u);
  EXPECT_EQ(r.ranks()[0].ops, 17u);
  EXPECT_EQ(r.ranks()[1].ops, 18u);
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_EQ(job->comms.size(), 1u);
  EXPECT_EQ(job->comms[0].id, "0xa6abd45ad74b3dfc");
  EXPECT_EQ(job->comms[0].nranks, 2);
  EXPECT_EQ(job->step.communicators[0].second, (std::vector<int>{0, 1}));
  EXPECT_EQ(job->ranks_per_node, 2);  // both on 2e194b931ff6
  EXPECT_EQ(job->hosts, (std::vector<std::string>{"2e194b931ff6"}));
  for (int rank : {0, 1}) {
    const LoggedRankSummary& s = job->ranks[static_cast<size_t>(rank)];
    EXPECT_EQ(s.step_ops, 1);
    EXPECT_EQ(s.steps_seen, 17) << "rank 1's 18th op has no partner: cut";
    EXPECT_DOUBLE_EQ(s.agreement, 1.0);
    ASSERT_EQ(job->step.programs[static_cast<size_t>(rank)].size(), 1u);
    // count 10 of float32 (datatype 7): 40 bytes.
    EXPECT_EQ(Text(job->step.programs[static_cast<size_t>(rank)][0]), "c0 all_reduce 40");
  }
}

TEST(CollLogTest, OneRankOfTwoSaysWhichRankIsMissing) {
  CollLogReader r;
  Read(r, kRank0);
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(),
              HasSubstr("0xa6abd45ad74b3dfc has 2 ranks and the log holds rank(s) 0 only "
                        "(missing: 1)"));
  EXPECT_THAT(job.status().message(), HasSubstr("NCCL_DEBUG_FILE"));
}

TEST(CollLogTest, LinesCutFromAnIssueThreadWithoutInitAreCountedButRanksAreUnknown) {
  CollLogReader r;
  Read(r, kFsdp);
  ASSERT_TRUE(r.status().ok());
  // srun's "1: " labels: node-3 printed opCount 1606..1609, node-2
  // 1606..1608, node-1 1606..1607; node-0's line is a tuning line.
  EXPECT_EQ(r.op_lines(), 9u);
  std::map<std::string, uint64_t> per_host;
  for (const CollEndpoint& e : r.endpoints()) {
    per_host[e.host] += e.ops;
    EXPECT_EQ(e.rank, -1);
    EXPECT_EQ(e.nranks, 4);
  }
  EXPECT_EQ(per_host,
            (std::map<std::string, uint64_t>{{"node-1", 2}, {"node-2", 3}, {"node-3", 4}}));
  std::map<std::pair<std::string, uint64_t>, int> kinds;
  for (const CollOp& op : r.ops()) ++kinds[{op.name, op.bytes}];
  // AllGather count 2359808 float32; Broadcast 1 int64 and 3145 uint8.
  EXPECT_EQ(kinds[std::make_pair(std::string("AllGather"), uint64_t{2359808} * 4)], 3);
  EXPECT_EQ(kinds[std::make_pair(std::string("Broadcast"), uint64_t{8})], 2);
  EXPECT_EQ(kinds[std::make_pair(std::string("Broadcast"), uint64_t{3145})], 1);
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(), HasSubstr("ranks are unknown"));
  EXPECT_THAT(job.status().message(), HasSubstr("NCCL_DEBUG_SUBSYS=INIT,COLL"));
  EXPECT_THAT(DescribeLog(r), HasSubstr("node-3:278 comm 0x555e2c6387e0 (no Init line: rank "
                                        "unknown) of 4: 4 ops"));
}

TEST(CollLogTest, TheProfilerPluginTraceIsARingOfSendsAndReceives) {
  CollLogReader r;
  Read(r, kTrace);
  ASSERT_TRUE(r.status().ok());
  EXPECT_EQ(r.op_lines(), 8u);  // 4 ranks x (one Send, one Recv) begin events
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->step.communicators[0].second, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(job->step.programs.size(), 4u);
  // 268435456 float32 = 1 GiB; rank r sends to r+1 and receives from r-1.
  for (int rank = 0; rank < 4; ++rank) {
    const std::vector<LoggedOp>& p = job->step.programs[static_cast<size_t>(rank)];
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(Text(p[0]), absl::StrCat("c0 send 1073741824 ", (rank + 1) % 4));
    EXPECT_EQ(Text(p[1]), absl::StrCat("c0 recv 1073741824 ", (rank + 3) % 4));
  }
  ASSERT_EQ(job->notes.size(), 1u);
  EXPECT_THAT(job->notes[0], HasSubstr("taken as the 4 seen"));
}

TEST(CollLogTest, ANcclTestsSweepIsNotATrainingStep) {
  CollLogReader r;
  Read(r, kNcclTests);
  ASSERT_TRUE(r.status().ok());
  EXPECT_EQ(r.op_lines(), 990u);
  // One process, two GPUs: two ranks of commId 0x54fe282d32a87d85.
  ASSERT_EQ(r.ranks().size(), 2u);
  EXPECT_EQ(r.ranks()[0].ops, 495u);
  EXPECT_EQ(r.ranks()[0].cuda_dev, 0);
  EXPECT_EQ(r.ranks()[1].cuda_dev, 1);
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(), HasSubstr("do not repeat as a training step's do"));
}

TEST(CollLogTest, TwoJobsInOneLogAreRefusedWithTheReason) {
  CollLogReader r;
  Read(r, kRank0);
  Read(r, kRank1);
  Read(r, kTrace);
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(), HasSubstr("the log holds 2 jobs that share no communicator"));
}

TEST(CollLogTest, ACutLineIsNeverAnOperation) {
  CollLogReader r;
  Read(r, kRank0);
  Read(r, kRank1);
  r.AddLine(
      "2e194b931ff6:15981:15981 [1] NCCL INFO AllReduce: opCount 12 sendbuff 0x7c7cc6600400 "
      "recvbuff 0x7c7c");
  EXPECT_EQ(r.garbled_lines(), 1u);
  EXPECT_EQ(r.op_lines(), 35u);
}

TEST(CollLogTest, ALogWithoutCollLinesSaysWhatToSet) {
  CollLogReader r;
  std::istringstream in(testing::ReadFixture("nccl/ib-nogdr_2node_vllm_nccl2.21.5.log"));
  r.AddStream(in);
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(), HasSubstr("NCCL_DEBUG_SUBSYS=INIT,COLL"));
}

// Ranks whose steps have more than one op, several communicators and a
// pipeline pair: a synthetic 4-rank log in NCCL 2.20's words.
std::string FourRankLog(int steps) {
  std::string log;
  const char* world = "0x1111111111111111";
  const char* pair[] = {"0x2222222222222222", "0x3333333333333333"};
  for (int r = 0; r < 4; ++r) {
    const std::string p =
        absl::StrCat("host", r / 2, ":", 100 + r, ":", 100 + r, " [", r % 2, "] NCCL INFO ");
    absl::StrAppend(&log, p, "comm 0xa", r, " rank ", r, " nranks 4 cudaDev ", r % 2,
                    " nvmlDev 0 busId 1000 commId ", world, " - Init COMPLETE\n");
    absl::StrAppend(&log, p, "comm 0xb", r, " rank ", r / 2, " nranks 2 cudaDev ", r % 2,
                    " nvmlDev 0 busId 1000 commId ", pair[r % 2], " - Init COMPLETE\n");
    // Warm-up: a broadcast of the parameters, once.
    absl::StrAppend(
        &log, p,
        "Broadcast: opCount 0 sendbuff 0x1 recvbuff 0x1 count 1024 datatype 9 op 0 root 0 comm 0xa",
        r, " [nranks=4] stream 0x9\n");
    for (int s = 0; s < steps; ++s) {
      const bool first = r / 2 == 0;  // pipeline stage 0 sends forward
      absl::StrAppend(&log, p, first ? "Send" : "Recv", ": opCount ", s,
                      " sendbuff 0x1 recvbuff 0x2 count 4096 datatype 9 op 0 root ", first ? 1 : 0,
                      " comm 0xb", r, " [nranks=2] stream 0x9\n");
      absl::StrAppend(&log, p, "AllReduce: opCount ", s,
                      " sendbuff 0x1 recvbuff 0x1 count 65536 datatype 7 op 0 root 0 comm 0xa", r,
                      " [nranks=4] stream 0x9\n");
      absl::StrAppend(&log, p, "AllGather: opCount ", s,
                      " sendbuff 0x1 recvbuff 0x1 count 256 datatype 7 op 0 root 0 comm 0xa", r,
                      " [nranks=4] stream 0x9\n");
    }
  }
  return log;
}

TEST(CollLogTest, AStepOfSeveralCommunicatorsRoundTripsThroughTheProfile) {
  CollLogReader r;
  std::istringstream in(FourRankLog(12));
  r.AddStream(in);
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->ranks_per_node, 2);
  EXPECT_EQ(job->hosts, (std::vector<std::string>{"host0", "host1"}));
  EXPECT_EQ(job->ranks[0].step_ops, 3);
  EXPECT_EQ(job->ranks[0].steps_seen, 12);  // 37 ops: the warm-up broadcast and 12 x 3
  ASSERT_EQ(job->step.programs[2].size(), 3u);
  // The world's commId spans every rank: its order is the job's.
  EXPECT_EQ(job->step.communicators[0].second, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(Text(job->step.programs[0][0]), "c1 send 8192 2");  // 4096 bf16 to the pair's rank 1
  EXPECT_EQ(Text(job->step.programs[2][0]), "c1 recv 8192 0");
  EXPECT_EQ(Text(job->step.programs[3][1]), "c0 all_reduce 262144");
  EXPECT_EQ(Text(job->step.programs[3][2]), "c0 all_gather 4096");  // 256 x 4 B x 4 ranks

  const std::string yaml = LoggedWorkloadYaml(*job, {"four.log"});
  absl::StatusOr<Profile> p = ParseProfile(yaml, "logged.yaml");
  ASSERT_TRUE(p.ok()) << p.status() << "\n" << yaml;
  const WorkloadShape shape = p->Section<WorkloadRules>().Shape();
  EXPECT_EQ(shape.name, "logged");
  absl::StatusOr<Placement> pl = Place(shape, 2, 0);
  ASSERT_TRUE(pl.ok()) << pl.status();
  for (int rank = 0; rank < 4; ++rank) {
    std::vector<std::string> replayed;
    for (const Op& op : StepProgram(shape, *pl, rank)) {
      if (op.kind == OpKind::kCompute) continue;
      replayed.push_back(absl::StrCat(GroupLabel(*pl, op), " ", OpKindName(op.kind), " ", op.bytes,
                                      op.peer >= 0 ? absl::StrCat(" ", op.peer) : ""));
    }
    std::vector<std::string> logged;
    for (const LoggedOp& op : job->step.programs[static_cast<size_t>(rank)])
      logged.push_back(Text(op));
    EXPECT_EQ(replayed, logged) << "rank " << rank;
  }
  // The job's node count is the log's.
  absl::StatusOr<Placement> wrong = Place(shape, 4, 0);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("workload.programs has 4 ranks"));
}

TEST(CollLogTest, RanksThatWouldWaitForEachOtherAreRefused) {
  // Rank 1 issues the two communicators' all-reduces in the other order:
  // NCCL ran them on two streams; op by op they would wait forever.
  std::string log;
  for (int r = 0; r < 2; ++r) {
    const std::string p = absl::StrCat("h:", r, ":", r, " [0] NCCL INFO ");
    absl::StrAppend(&log, p, "comm 0xa", r, " rank ", r,
                    " nranks 2 cudaDev 0 busId 1 commId 0xaa - Init COMPLETE\n");
    absl::StrAppend(&log, p, "comm 0xb", r, " rank ", r,
                    " nranks 2 cudaDev 0 busId 1 commId 0xbb - Init COMPLETE\n");
    for (int s = 0; s < 4; ++s) {
      for (const char* c : {r == 0 ? "0xa" : "0xb", r == 0 ? "0xb" : "0xa"}) {
        absl::StrAppend(
            &log, p,
            "AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x1 count 64 datatype 7 op 0 root 0 comm ",
            c, r, " [nranks=2] stream 0x9\n");
      }
    }
  }
  CollLogReader r;
  std::istringstream in(log);
  r.AddStream(in);
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(), HasSubstr("would wait forever"));
}

TEST(CollLogTest, AProgramThatNamesAnUnknownCommunicatorOrABadOpIsOneLine) {
  for (const auto& [yaml, expect] : std::vector<std::pair<std::string, std::string>>{
           {"workload:\n  communicators: {c0: [0, 1]}\n  programs: [[c0 all_reduce 8], [c0 "
            "all_reduce]]\n",
            "too short"},
           {"workload:\n  communicators: {c0: [0, 1]}\n  programs: [[c0 reduce 8], [c0 "
            "all_reduce 8]]\n",
            "has no operation one of"},
           {"workload:\n  communicators: {c0: [0, 1]}\n  programs: [[c0 send 8 from 1], [c0 "
            "recv 8 from 0]]\n",
            "needs \"to N\""},
       }) {
    absl::StatusOr<Profile> p = ParseProfile(yaml, "w.yaml");
    ASSERT_FALSE(p.ok()) << yaml;
    EXPECT_THAT(p.status().message(), HasSubstr(expect)) << yaml;
    EXPECT_THAT(p.status().message(), HasSubstr("workload.programs[")) << yaml;
  }
  absl::StatusOr<Profile> p = ParseProfile(
      "workload:\n  communicators: {c0: [0, 1]}\n  programs: [[c9 all_reduce 8], [c0 "
      "all_reduce 8]]\n",
      "w.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<Placement> pl = Place(p->Section<WorkloadRules>().Shape(), 1, 2);
  ASSERT_FALSE(pl.ok());
  EXPECT_THAT(pl.status().message(),
              HasSubstr("workload.programs[0] 'c9 all_reduce' names a communicator"));
}

// A log of any size streams through a fixed memory: lines made on the fly
// (two ranks' all-reduces, as the straggler fixture's), never whole.
class GeneratedLog : public std::streambuf {
 public:
  explicit GeneratedLog(uint64_t bytes) : left_(bytes) {}

 protected:
  int_type underflow() override {
    if (left_ == 0) return traits_type::eof();
    buffer_.clear();
    if (lines_ == 0) {
      for (int r = 0; r < 2; ++r) {
        absl::StrAppend(
            &buffer_, "gen:", 10 + r, ":", 10 + r, " [", r, "] NCCL INFO comm 0xc", r, " rank ", r,
            " nranks 2 cudaDev 0 nvmlDev 0 busId 4f000 commId 0xfeed - Init COMPLETE\n");
      }
    }
    while (buffer_.size() < (1 << 16)) {
      const int r = static_cast<int>(lines_++ % 2);
      absl::StrAppend(&buffer_, "gen:", 10 + r, ":", 10 + r, " [", r,
                      "] NCCL INFO AllReduce: opCount ", lines_,
                      " sendbuff 0x7c7cc6600200 recvbuff "
                      "0x7c7cc6600200 count 10 datatype 7 op 0 root 0 comm 0xc",
                      r, " [nranks=2] stream 0x1f956590\n");
    }
    if (buffer_.size() > left_) buffer_.resize(left_);
    left_ -= buffer_.size();
    setg(buffer_.data(), buffer_.data(), buffer_.data() + buffer_.size());
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  uint64_t left_;
  uint64_t lines_ = 0;
  std::string buffer_;
};

[[maybe_unused]] long RssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NP_SANITIZED 1
#endif
#endif

#ifdef NP_SANITIZED
// The sanitizers are ~10x slower, and their RSS is their quarantine and
// shadow memory, not ours: what the reader holds is the live heap.
constexpr uint64_t kBigLog = 64ull << 20;
long HeldKb() { return static_cast<long>(__sanitizer_get_current_allocated_bytes() / 1024); }
#else
constexpr uint64_t kBigLog = 1ull << 30;
long HeldKb() { return RssKb(); }
#endif

TEST(CollLogTest, AGigabyteLogIsReadInBoundedMemory) {
  GeneratedLog gen(kBigLog);
  std::istream in(&gen);
  const long before = HeldKb();
  CollLogReader r;
  r.AddStream(in);
  const long after = HeldKb();
  ASSERT_TRUE(r.status().ok()) << r.status();
  EXPECT_GT(r.op_lines(), kBigLog / 200);
  // Two ranks' tails of kTailOps ops and the distinct ops: well under 32 MB
  // whatever the log's size.
  EXPECT_LT(after - before, 32 * 1024)
      << "RSS grew by " << after - before << " kB reading " << (kBigLog >> 20) << " MiB";
  absl::StatusOr<LoggedJob> job = BuildLoggedJob(r);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->ranks[0].step_ops, 1);
  EXPECT_GT(job->ranks[0].steps_seen, 1000);
}

}  // namespace
}  // namespace nodeprobe::workload
