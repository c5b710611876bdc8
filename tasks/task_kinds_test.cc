// The task table: every kind of Task is in it in field order, protocol 1
// ends before the kernel-events question, and an agent serves its list or,
// with none, protocol 1's kinds.
#include "tasks/task_kinds.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace nodeprobe::tasks {
namespace {

bool Has(const std::vector<std::string>& kinds, const std::string& k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

TEST(TaskKindsTest, TheTableHoldsEveryKindInFieldOrder) {
  const std::vector<std::string> all = AllTaskKinds();
  ASSERT_EQ(all.size(),
            static_cast<size_t>(v1::Task::descriptor()->FindOneofByName("kind")->field_count()));
  EXPECT_EQ(all.front(), "run_probes");
  EXPECT_TRUE(Has(all, "kernel_events"));
  EXPECT_TRUE(Has(all, "run_workload_rank"));
  v1::Task t;
  t.mutable_flap_link();
  EXPECT_EQ(TaskKind(t), "flap_link");
  EXPECT_EQ(TaskKind(v1::Task()), "");
}

TEST(TaskKindsTest, ProtocolOneEndsBeforeTheKernelEventsQuestion) {
  const std::vector<std::string> old = Protocol1Kinds();
  EXPECT_TRUE(Has(old, "run_probes"));
  EXPECT_TRUE(Has(old, "restart_agent"));
  EXPECT_FALSE(Has(old, "kernel_events"));
  EXPECT_FALSE(Has(old, "run_workload_rank"));
}

TEST(TaskKindsTest, AnAgentServesItsListOrWithNoneProtocolOnes) {
  v1::Registration old;
  old.set_node_name("gpu-a");
  EXPECT_TRUE(Serves(old, "run_transfer"));
  EXPECT_FALSE(Serves(old, "kernel_events"));
  EXPECT_EQ(NotServedMessage(old, "kernel_events"),
            "gpu-a's agent (nodeprobe of an unknown version, protocol 1) does not serve the "
            "kernel_events task, so it was not asked; upgrade the agent to this coordinator's "
            "version to have it");
  v1::Registration fake;
  fake.set_protocol(kProtocol);
  fake.add_tasks("run_probes");
  fake.add_tasks("kernel_events");
  EXPECT_TRUE(Serves(fake, "kernel_events"));
  EXPECT_FALSE(Serves(fake, "run_transfer"));  // listed or not served
}

TEST(TaskKindsTest, AnAgentStatesOnlyKindsInTheTable) {
  v1::Registration reg;
  EXPECT_FALSE(StateServed(&reg, {"run_probes", "run_teleport"}));
  EXPECT_EQ(reg.tasks_size(), 0);
  EXPECT_EQ(reg.protocol(), 0u);
  ASSERT_TRUE(StateServed(&reg, AllTaskKinds()));
  EXPECT_EQ(reg.protocol(), kProtocol);
  EXPECT_EQ(static_cast<size_t>(reg.tasks_size()), AllTaskKinds().size());
}

}  // namespace
}  // namespace nodeprobe::tasks
