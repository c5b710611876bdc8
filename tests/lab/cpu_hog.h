// Load for the judgement-under-load tests: processes that spin on a CPU
// each until the hog is destroyed, then are killed by their PIDs (never by
// name).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace nodeprobe::lab {

class CpuHog {
 public:
  explicit CpuHog(int n) {
    for (int i = 0; i < n; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        for (volatile uint64_t x = 0;; ++x) {
        }
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~CpuHog() {
    for (pid_t pid : pids_) kill(pid, SIGKILL);
    for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }
  CpuHog(const CpuHog&) = delete;
  CpuHog& operator=(const CpuHog&) = delete;
  size_t size() const { return pids_.size(); }

 private:
  std::vector<pid_t> pids_;
};

}  // namespace nodeprobe::lab
