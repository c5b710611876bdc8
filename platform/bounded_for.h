// File: bounded_for.h
// Runs fn(0) .. fn(n-1) on at most `workers` threads, and returns when all
// have returned. The coordinator's fan-outs (a probe task per node, a
// round's pairs) use it so that a stage over thousands of nodes holds a
// fixed number of threads, not one per node or pair: each worker takes the
// next index when it is free.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace nodeprobe::platform {

inline void BoundedFor(size_t n, size_t workers, const std::function<void(size_t)>& fn) {
  workers = std::max<size_t>(1, std::min(workers, n));
  if (n == 0) return;
  if (workers == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) fn(i);
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace nodeprobe::platform
