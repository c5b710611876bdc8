#include "platform/stop_signal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "absl/time/clock.h"

namespace nodeprobe::platform {
namespace {

TEST(StopSignalTest, ARaiseFromAnotherThreadWakesAWaitAtOnce) {
  StopSignal stop;
  ASSERT_TRUE(stop.ok());
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const absl::Time start = absl::Now();
  std::thread raiser([&] {
    absl::SleepFor(absl::Milliseconds(50));
    stop.Raise();
  });
  EXPECT_EQ(stop.WaitReadable(pipefd[0], 60000), StopSignal::Woken::kStopped);
  raiser.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_TRUE(stop.raised());
  EXPECT_TRUE(stop.WaitRaised(60000));
  close(pipefd[0]);
  close(pipefd[1]);
}

TEST(StopSignalTest, ReadableAndQuietAreToldApart) {
  StopSignal stop;
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  EXPECT_EQ(stop.WaitReadable(pipefd[0], 10), StopSignal::Woken::kTimedOut);
  EXPECT_FALSE(stop.WaitRaised(10));
  ASSERT_EQ(write(pipefd[1], "x", 1), 1);
  EXPECT_EQ(stop.WaitReadable(pipefd[0], 10), StopSignal::Woken::kReadable);
  // Raised wins over readable: a loop stops even under a flood.
  stop.Raise();
  EXPECT_EQ(stop.WaitReadable(pipefd[0], 10), StopSignal::Woken::kStopped);
  close(pipefd[0]);
  close(pipefd[1]);
}

}  // namespace
}  // namespace nodeprobe::platform
