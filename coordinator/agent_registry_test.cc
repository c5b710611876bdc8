#include "coordinator/agent_registry.h"

#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace nodeprobe::coordinator {
namespace {

std::shared_ptr<AgentSession> Session(const std::string& node, const std::string& address,
                                      const std::string& identity) {
  return std::make_shared<AgentSession>(
      node, address, v1::Registration(), [](const v1::CoordinatorMessage&) { return true; },
      [] {}, identity);
}

TEST(AgentRegistryTest, TheSameIdentityReconnectsAndReplacesItsOldSession) {
  AgentRegistry registry;
  auto first = Session("gpu01", "10.0.0.1", "cert-A");
  ASSERT_TRUE(registry.Add(first).ok());
  auto again = Session("gpu01", "10.0.0.1", "cert-A");
  ASSERT_TRUE(registry.Add(again).ok());
  EXPECT_FALSE(first->alive());  // the old stream is ended
  EXPECT_EQ(registry.Find("gpu01"), again);
}

TEST(AgentRegistryTest, AnotherIdentityCannotTakeALiveNodesName) {
  AgentRegistry registry;
  auto holder = Session("gpu01", "10.0.0.1", "cert-A");
  ASSERT_TRUE(registry.Add(holder).ok());
  absl::Status taken = registry.Add(Session("gpu01", "10.0.0.9", "10.0.0.9"));
  EXPECT_EQ(taken.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(taken.message().find("already connected from 10.0.0.1"), std::string::npos) << taken;
  EXPECT_TRUE(holder->alive());
  EXPECT_EQ(registry.Find("gpu01"), holder);
  // Once the holder is gone, the name is free.
  holder->Lose();
  auto next = Session("gpu01", "10.0.0.9", "10.0.0.9");
  EXPECT_TRUE(registry.Add(next).ok());
  EXPECT_EQ(registry.Find("gpu01"), next);
}

TEST(AgentRegistryTest, ATasksResultIsTimedByKindOnceAndOnlyAResult) {
  AgentRegistry registry;
  std::vector<std::pair<std::string, absl::Duration>> seen;
  registry.set_task_observer(
      [&](const std::string& kind, absl::Duration took) { seen.emplace_back(kind, took); });
  auto s = Session("gpu01", "10.0.0.1", "cert-A");
  ASSERT_TRUE(registry.Add(s).ok());
  v1::CoordinatorMessage msg;
  msg.mutable_task()->set_task_id("t1");
  msg.mutable_task()->mutable_serve_transfer();
  s->Expect("t1");
  ASSERT_TRUE(s->Send(msg));
  v1::AgentMessage endpoint;
  endpoint.mutable_endpoint()->set_task_id("t1");
  s->Deliver("t1", endpoint);  // the server's port: not the end of the task
  EXPECT_TRUE(seen.empty());
  v1::AgentMessage result;
  result.mutable_result()->set_task_id("t1");
  s->Deliver("t1", result);
  s->Deliver("t1", result);  // a duplicate is not a second latency
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].first, "serve_transfer");
  EXPECT_GE(seen[0].second, absl::ZeroDuration());
}

// A cancelled stage: the wait in progress ends at once with CANCELLED (not
// at its deadline, not as a lost agent), the agent is told to cancel the
// task, and once the stage releases the node the next stage waits normally.
TEST(AgentSessionTest, ACancelledStageEndsItsWaitAtOnceAndCancelsTheAgentsTask) {
  std::vector<std::string> cancels;
  auto s = std::make_shared<AgentSession>(
      "gpu01", "10.0.0.1", v1::Registration(),
      [&](const v1::CoordinatorMessage& m) {
        if (m.has_cancel()) cancels.push_back(m.cancel().task_id());
        return true;
      },
      [] {}, "cert-A");
  s->CancelStage();  // no stage runs: nothing to cancel
  EXPECT_FALSE(s->cancelled());
  ASSERT_TRUE(s->TryAcquire());
  s->Expect("t1");
  const absl::Time start = absl::Now();
  std::thread canceller([&] {
    absl::SleepFor(absl::Milliseconds(100));
    s->CancelStage();
  });
  absl::StatusOr<v1::AgentMessage> r = s->Await("t1", absl::Now() + absl::Seconds(30));
  canceller.join();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled) << r.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(cancels, std::vector<std::string>{"t1"});
  EXPECT_TRUE(s->alive());
  s->Release();
  ASSERT_TRUE(s->TryAcquire());
  s->Expect("t2");
  EXPECT_EQ(s->Await("t2", absl::Now() + absl::Milliseconds(50)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace nodeprobe::coordinator
