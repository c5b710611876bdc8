#include "platform/child_process.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

TEST(ChildProcessTest, CollectsOutput) {
  auto out = RunChild("/bin/echo", {"hello"}, absl::Now() + absl::Seconds(5));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "hello\n");
}

TEST(ChildProcessTest, KillsAHungChildAtItsDeadline) {
  absl::Time start = absl::Now();
  auto out = RunChild("/bin/sleep", {"60"}, absl::Now() + absl::Milliseconds(300));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(ChildProcessTest, ReadsTheFirstLineThenKills) {
  auto child = ChildProcess::Start("/bin/sh", {"-c", "echo port 42; sleep 60"});
  ASSERT_TRUE(child.ok());
  auto line = child->ReadLine(absl::Now() + absl::Seconds(5));
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(*line, "port 42");
  child->Kill();
  EXPECT_EQ(child->pid(), -1);
}

}  // namespace
}  // namespace nodeprobe::platform
