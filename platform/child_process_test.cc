#include "platform/child_process.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

// Reads stdout until the child closes it or the deadline passes.
absl::Status ReadToEnd(ChildProcess& child, absl::Time deadline) {
  while (!child.eof()) {
    absl::Status s = child.ReadMore(deadline);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

TEST(ChildProcessTest, CollectsOutputStdinAndHowItEnded) {
  auto child = ChildProcess::Start("/bin/sh", {"-c", "cat; echo oops >&2; exit 3"}, "hello\n");
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE(ReadToEnd(*child, absl::Now() + absl::Seconds(5)).ok());
  EXPECT_EQ(*child->buffer(), "hello\n");
  EXPECT_EQ(child->Ending(), "exited with status 3: oops");
}

TEST(ChildProcessTest, KillsAHungChildAtItsDeadline) {
  absl::Time start = absl::Now();
  auto child = ChildProcess::Start("/bin/sleep", {"60"});
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(ReadToEnd(*child, absl::Now() + absl::Milliseconds(300)).code(),
            absl::StatusCode::kDeadlineExceeded);
  child->Kill();
  EXPECT_EQ(child->pid(), -1);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(ChildProcessTest, ReadsWhatArrivedThenKills) {
  auto child = ChildProcess::Start("/bin/sh", {"-c", "echo port 42; sleep 60"});
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(child->ReadMore(absl::Now() + absl::Seconds(5)).ok());
  EXPECT_EQ(*child->buffer(), "port 42\n");
  child->Kill();
  EXPECT_EQ(child->pid(), -1);
}

TEST(ChildProcessTest, ADeathBySignalIsNamed) {
  auto child = ChildProcess::Start("/bin/sh", {"-c", "kill -SEGV $$"});
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(ReadToEnd(*child, absl::Now() + absl::Seconds(5)).ok());
  EXPECT_NE(child->Ending().find("died with signal 11"), std::string::npos) << child->Ending();
}

}  // namespace
}  // namespace nodeprobe::platform
