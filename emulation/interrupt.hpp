#pragma once
// Ctrl-C (SIGINT) and SIGTERM during an emulation: the namespaces it made must go whatever happens. While a
// Watch lives, those signals are blocked in every thread started after it (child processes inherit the mask:
// an `ip` command is not cut in half) and a watcher thread takes them: it records the interruption and calls
// the registered action (which closes the sockets, so every blocked node returns). The code then unwinds
// normally, destructors tear the fabric down, and the command exits as interrupted programs do.
#include <atomic>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <signal.h>

namespace sgdsim::emulation {

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal) : std::runtime_error("interrupted"), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

class Watch {
 public:
  Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  ~Watch();
  // The signal that arrived, or 0.
  int signal() const { return signal_.load(); }
  // Throws Interrupted when a signal arrived.
  void check() const;
  // What to do when one arrives (from the watcher thread); replaces the previous action.
  void on_signal(std::function<void()> action);

 private:
  sigset_t previous_{};
  std::atomic<int> signal_{0};
  std::atomic<bool> done_{false};
  std::mutex mutex_;
  std::function<void()> action_;
  std::thread watcher_;
};

}  // namespace sgdsim::emulation
