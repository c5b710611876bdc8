#include "platform/task_threads.h"

#include <chrono>

#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

TEST(TaskThreadsTest, FinishedThreadsAreJoinedWhenTheNextStarts) {
  TaskThreads threads;
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i) {
    threads.Start([&] { ++ran; });
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Each task finished long before the next started: at most a few remain.
  EXPECT_LE(threads.size(), 3u);
  threads.JoinAll();
  EXPECT_EQ(ran.load(), 50);
  EXPECT_EQ(threads.size(), 0u);
}

TEST(TaskThreadsTest, RunningCountsOnlyThreadsStillInTheirFunction) {
  TaskThreads threads;
  std::atomic<bool> release{false};
  for (int i = 0; i < 3; ++i) {
    threads.Start([&] {
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  }
  threads.Start([] {});  // returns at once
  for (int i = 0; i < 1000 && threads.running() > 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(threads.running(), 3u);
  EXPECT_EQ(threads.size(), 4u);  // the finished one is joined only at the next Start
  release = true;
  threads.JoinAll();
  EXPECT_EQ(threads.running(), 0u);
}

}  // namespace
}  // namespace nodeprobe::platform
