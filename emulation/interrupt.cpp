#include "emulation/interrupt.hpp"

#include <pthread.h>

#include <ctime>

namespace sgdsim::emulation {

namespace {
sigset_t watched() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}
}  // namespace

Watch::Watch() {
  const sigset_t set = watched();
  pthread_sigmask(SIG_BLOCK, &set, &previous_);
  watcher_ = std::thread([this] {
    const sigset_t set = watched();
    const timespec tick{0, 50'000'000};
    while (!done_.load()) {
      const int signal = sigtimedwait(&set, nullptr, &tick);
      if (signal <= 0) continue;
      signal_.store(signal);
      std::lock_guard lock(mutex_);
      if (action_) action_();
    }
  });
}

Watch::~Watch() {
  done_.store(true);
  watcher_.join();
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

void Watch::check() const {
  if (const int s = signal_.load()) throw Interrupted(s);
}

void Watch::on_signal(std::function<void()> action) {
  std::lock_guard lock(mutex_);
  action_ = std::move(action);
  if (signal_.load() && action_) action_();
}

}  // namespace sgdsim::emulation
