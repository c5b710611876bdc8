// File: signals.h
// SIGTERM/SIGINT for the long-running commands (serve, coordinator, agent):
// the signals are blocked in every thread and taken by one thread with
// sigwait, which calls `stop` once, so servers shut down cleanly.
#pragma once

#include <functional>
#include <thread>

namespace nodeprobe::controlplane {

class StopOnSignal {
 public:
  // Call before starting other threads: they inherit the blocked mask.
  explicit StopOnSignal(std::function<void()> stop);
  // Ends the waiting thread if no signal came.
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  std::thread thread_;
};

}  // namespace nodeprobe::controlplane
