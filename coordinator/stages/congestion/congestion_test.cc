#include "coordinator/stages/congestion/congestion_profile.h"
#include "coordinator/stages/congestion/congestion_stage.h"
#include "gtest/gtest.h"
#include "probes/transfer/transfer_profile.h"

namespace nodeprobe::coordinator {
namespace {

v1::CongestionResult Incast(const std::vector<double>& gbps) {
  v1::CongestionResult r;
  r.set_pattern("incast");
  r.set_receiver("gpu-a");
  r.set_rail("tcp");
  for (size_t i = 0; i < gbps.size(); ++i) {
    v1::PairResult* p = r.add_flows();
    p->set_from_node("gpu-" + std::to_string(i));
    p->set_to_node("gpu-a");
    p->mutable_result()->set_verdict(v1::PASS);
    v1::TransferReport* t = p->mutable_result()->mutable_transfer();
    t->set_transport(v1::TCP);
    t->set_op(v1::STREAM_BW);
    t->add_results()->set_bw_avg_gbps(gbps[i]);
    t->mutable_results(0)->set_size(131072);
  }
  return r;
}

const v1::Finding* Find(const v1::CongestionResult& r, const std::string& code) {
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == code) return &f;
  }
  return nullptr;
}

// Two flows share a 10 Gb/s receiver for 2 s; a third starts 1.5 s late
// and runs its last second alone at full rate. Its average over its own run
// (7.5) would make the sum 17.5 and hide the unfairness; over the window
// all three shared, each had 3.3.
TEST(CongestionTest, TheSumAndFairnessAreTakenOverTheWindowTheFlowsShared) {
  v1::CongestionResult r = Incast({5, 5, 7.5});
  const int64_t t0 = 1'800'000'000'000'000'000;
  auto stamp = [&](int flow, int64_t start, const std::vector<double>& rates) {
    v1::TransferResult* row =
        r.mutable_flows(flow)->mutable_result()->mutable_transfer()->mutable_results(0);
    row->set_intervals_start_unix_ns(start);
    for (double g : rates) row->add_interval_gbps(g);
  };
  std::vector<double> early(15, 5.0);      // 0 .. 1.5 s: two flows at 5
  early.insert(early.end(), 5, 10.0 / 3);  // 1.5 .. 2.0 s: three at 3.33
  stamp(0, t0, early);
  stamp(1, t0, early);
  std::vector<double> late(5, 10.0 / 3);  // 1.5 .. 2.0 s shared
  late.insert(late.end(), 10, 10.0);      // 2.0 .. 3.0 s alone
  stamp(2, t0 + 1'500'000'000, late);
  JudgeCongestion(Profile(), 0, &r);
  EXPECT_NEAR(r.aggregate_gbps(), 10.0, 1e-9);
  EXPECT_NEAR(r.fairness(), 1.0, 1e-9);
  EXPECT_NE(r.window_basis().find("the 0.5 s every flow ran in"), std::string::npos)
      << r.window_basis();
  // Without stamps (an older agent) each flow's own average is used, said so.
  v1::CongestionResult old = Incast({5, 5, 7.5});
  JudgeCongestion(Profile(), 0, &old);
  EXPECT_NEAR(old.aggregate_gbps(), 17.5, 1e-9);
  EXPECT_NE(old.window_basis().find("each flow over its own run"), std::string::npos);
}

TEST(CongestionTest, JainsIndexIsOneForEqualSharesAndOneOverNForOneHog) {
  EXPECT_DOUBLE_EQ(JainIndex({3, 3, 3}), 1.0);
  EXPECT_DOUBLE_EQ(JainIndex({9, 0, 0}), 1.0 / 3);
  EXPECT_NEAR(JainIndex({1, 2, 3}), 36.0 / 42, 1e-12);
  EXPECT_EQ(JainIndex({}), 0);
}

TEST(CongestionTest, GroupsKeepARemainderTooSmallInTheLastGroup) {
  auto g = CongestionGroups(17, 8);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].size(), 8u);
  EXPECT_EQ(g[1].size(), 9u);  // 8 + the 17th node
  g = CongestionGroups(19, 8);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[2].size(), 3u);
  EXPECT_EQ(CongestionGroups(4, 8).size(), 1u);
}

TEST(CongestionTest, TheSumIsJudgedAgainstTheProfileThenTheRailThenNothing) {
  Profile profile;
  v1::CongestionResult r = Incast({0.1, 0.1, 0.1});
  JudgeCongestion(profile, 0, &r);
  EXPECT_NEAR(r.aggregate_gbps(), 0.3, 1e-9);
  EXPECT_EQ(r.expected_gbps(), 0);
  EXPECT_NE(r.expected_basis().find("no bar"), std::string::npos);
  EXPECT_EQ(r.verdict(), v1::PASS);

  r = Incast({30, 30, 30});
  JudgeCongestion(profile, 100, &r);  // a 100G rail: bar 90
  EXPECT_DOUBLE_EQ(r.expected_gbps(), 90);
  EXPECT_EQ(Find(r, "CONGESTION_AGGREGATE_BELOW_EXPECTED"), nullptr);

  profile.MutableSection<TransferBars>().tcp_stream_min_gbps = 0.5;  // the profile's bar wins
  r = Incast({0.1, 0.1, 0.1});
  JudgeCongestion(profile, 100, &r);
  EXPECT_DOUBLE_EQ(r.expected_gbps(), 0.5);
  const v1::Finding* f = Find(r, "CONGESTION_AGGREGATE_BELOW_EXPECTED");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), v1::FAIL);
  EXPECT_EQ(f->device(), "gpu-a:tcp");
  EXPECT_NE(f->message().find("0.30 Gb/s from 3 senders"), std::string::npos) << f->message();
  EXPECT_EQ(r.verdict(), v1::FAIL);
}

TEST(CongestionTest, UnevenSharesWarnWithEverySendersFigure) {
  Profile profile;
  v1::CongestionResult r = Incast({8, 1, 1});
  JudgeCongestion(profile, 0, &r);
  EXPECT_NEAR(r.fairness(), 100.0 / 198, 1e-9);
  const v1::Finding* f = Find(r, "CONGESTION_UNFAIR");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), v1::WARN);
  EXPECT_NE(f->message().find("gpu-0 8.00"), std::string::npos) << f->message();
  profile.MutableSection<CongestionRules>().min_fairness = 0.5;
  r = Incast({8, 1, 1});
  JudgeCongestion(profile, 0, &r);
  EXPECT_EQ(Find(r, "CONGESTION_UNFAIR"), nullptr);
}

TEST(CongestionTest, LatencyBlowUpUnderLoadWarns) {
  Profile profile;
  v1::CongestionResult r = Incast({1, 1});
  r.mutable_idle_latency()->set_p99_us(50);
  r.mutable_loaded_latency()->set_p99_us(400);
  JudgeCongestion(profile, 0, &r);
  EXPECT_EQ(Find(r, "CONGESTION_LATENCY"), nullptr);  // x8 < x10
  r.mutable_loaded_latency()->set_p99_us(5000);
  r.clear_findings();
  JudgeCongestion(profile, 0, &r);
  const v1::Finding* f = Find(r, "CONGESTION_LATENCY");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message().find("x100.0"), std::string::npos) << f->message();
  EXPECT_EQ(r.verdict(), v1::WARN);
}

TEST(CongestionTest, NoFlowIsAnErrorNotAPass) {
  v1::CongestionResult r = Incast({});
  JudgeCongestion(Profile{}, 0, &r);
  EXPECT_NE(Find(r, "NOTHING_MEASURED"), nullptr);
  EXPECT_EQ(r.verdict(), v1::ERROR);
}

}  // namespace
}  // namespace nodeprobe::coordinator
