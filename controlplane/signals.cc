#include "controlplane/signals.h"

#include <pthread.h>
#include <signal.h>

namespace nodeprobe::controlplane {
namespace {

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

StopOnSignal::StopOnSignal(std::function<void()> stop) {
  sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([set, stop = std::move(stop)] {
    int sig = 0;
    sigwait(&set, &sig);
    stop();
  });
}

StopOnSignal::~StopOnSignal() {
  // Wakes the sigwait when the command ended for another reason; calling
  // stop() again is harmless for every user (Stop/Shutdown are idempotent).
  pthread_kill(thread_.native_handle(), SIGTERM);
  thread_.join();
}

}  // namespace nodeprobe::controlplane
