// File: mutex.h
// The mutex, scoped lock and condition variable of the daemons (agent,
// coordinator, task threads), carrying clang's thread-safety capability
// attributes so that `-Wthread-safety` (scripts/tsan.sh) checks every
// ABSL_GUARDED_BY member at compile time.
//
// Why not absl::Mutex, which has the same attributes: Debian's abseil is
// built without ThreadSanitizer, so TSan cannot see absl::Mutex's
// happens-before edges and would report every guarded access as a race.
// std::mutex goes through pthread, which TSan intercepts; this file only
// adds the attributes libstdc++ lacks.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"

namespace nodeprobe::platform {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Waits release `mu` while they sleep and hold it again when they return;
// callers loop on their condition (the analysis sees the loop's reads under
// the lock, which it cannot do for a predicate lambda).
class CondVar {
 public:
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    cv_.wait(l);
    l.release();
  }
  // False when `deadline` passed (a timeout), true when woken before it.
  bool WaitUntil(Mutex* mu, absl::Time deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    const bool woken = cv_.wait_until(l, absl::ToChronoTime(deadline)) == std::cv_status::no_timeout;
    l.release();
    return woken;
  }
  bool WaitFor(Mutex* mu, absl::Duration d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    const bool woken = cv_.wait_for(l, absl::ToChronoNanoseconds(d)) == std::cv_status::no_timeout;
    l.release();
    return woken;
  }
  void SignalAll() { cv_.notify_all(); }
  void Signal() { cv_.notify_one(); }

 private:
  std::condition_variable cv_;
};

}  // namespace nodeprobe::platform
