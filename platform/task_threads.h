// File: task_threads.h
// Threads for short tasks in a long-lived process (a server's connections,
// an agent's tasks): each is joined once it has finished, when the next one
// starts, so a daemon that runs for months does not keep every finished
// thread's stack; the rest are joined on destruction.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <thread>

#include "platform/mutex.h"

namespace nodeprobe::platform {

class TaskThreads {
 public:
  TaskThreads() = default;
  ~TaskThreads() { JoinAll(); }
  TaskThreads(const TaskThreads&) = delete;
  TaskThreads& operator=(const TaskThreads&) = delete;

  void Start(std::function<void()> fn) {
    platform::MutexLock l(&mu_);
    for (auto it = threads_.begin(); it != threads_.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = threads_.erase(it);
      } else {
        ++it;
      }
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    threads_.push_back({std::thread([fn = std::move(fn), done] {
                          fn();
                          *done = true;
                        }),
                        done});
  }

  void JoinAll() {
    std::list<Entry> all;
    {
      platform::MutexLock l(&mu_);
      all.swap(threads_);
    }
    for (Entry& e : all) e.thread.join();
  }

  size_t size() const {
    platform::MutexLock l(&mu_);
    return threads_.size();
  }

  // Threads whose function has not returned yet.
  size_t running() const {
    platform::MutexLock l(&mu_);
    size_t n = 0;
    for (const Entry& e : threads_) n += !e.done->load();
    return n;
  }

 private:
  struct Entry {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  mutable platform::Mutex mu_;
  std::list<Entry> threads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace nodeprobe::platform
