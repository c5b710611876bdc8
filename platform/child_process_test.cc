#include "platform/child_process.h"

#include <signal.h>
#include <unistd.h>

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

// The agent writes each task to its worker's stdin; a worker that died
// before reading (exec failed) must not take the agent with it.
TEST(ChildProcessTest, AWriteToAGoneReaderIsShortNotSigpipe) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  EXPECT_EQ(WriteWithoutSigpipe(fds[1], "task"), 0u);  // alive to say so
  sigset_t pending;
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0) << "the SIGPIPE raised here was left pending";
  close(fds[1]);
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(WriteWithoutSigpipe(fds[1], "task"), 4u);
  close(fds[0]);
  close(fds[1]);
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

// RunProgram: to its end, its deadline or its output cap, never further.
TEST(RunProgramTest, EndsAtTheEndTheDeadlineOrTheCap) {
  absl::StatusOr<ProgramOutput> ok = RunProgram("/bin/sh", {"-c", "echo hi; exit 3"},
                                                absl::Now() + absl::Seconds(10));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->out, "hi\n");
  EXPECT_FALSE(ok->exited_cleanly);
  EXPECT_NE(ok->ending.find("3"), std::string::npos) << ok->ending;
  const absl::Time start = absl::Now();
  absl::StatusOr<ProgramOutput> slow =
      RunProgram("/bin/sleep", {"60"}, absl::Now() + absl::Milliseconds(300));
  EXPECT_TRUE(absl::IsDeadlineExceeded(slow.status())) << slow.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
  absl::StatusOr<ProgramOutput> loud =
      RunProgram("/usr/bin/yes", {}, absl::Now() + absl::Seconds(30), 1 << 20);
  EXPECT_TRUE(absl::IsResourceExhausted(loud.status())) << loud.status();
  // exec fails in the child: a program that ran and failed, with its why.
  absl::StatusOr<ProgramOutput> missing =
      RunProgram("/nonexistent/prog", {}, absl::Now() + absl::Seconds(5));
  EXPECT_TRUE(!missing.ok() || !missing->exited_cleanly);
}

}  // namespace
}  // namespace nodeprobe::platform
