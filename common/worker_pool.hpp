#pragma once
// A fixed set of threads for the real math of a simulation. Tasks are queued in submission order; the thread
// that waits for a task runs it itself when no worker has taken it yet, and otherwise runs other queued tasks
// while it waits, so a pool of N threads keeps N cores busy with N − 1 workers plus the waiting thread. With
// N = 1 there is no worker: every task runs in the thread that waits for it.
//
// The pool decides only *where and when* a task runs, never what it computes: results must not depend on
// the thread (tasks own their data; see LocalStep for the simulator's use).
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sgdsim {

class WorkerPool {
  struct Task;

 public:
  // A submitted task, for wait().
  using Ticket = std::shared_ptr<Task>;

  // `threads` counts the waiting thread: threads − 1 workers are started (at least one thread).
  explicit WorkerPool(std::size_t threads);
  // Tasks nobody waited for are dropped if not started; running ones are finished first.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  std::size_t threads() const { return workers_.size() + 1; }
  Ticket submit(std::function<void()> work);
  // Returns when `ticket`'s task has run (here, if no worker had started it), rethrowing what it threw.
  void wait(const Ticket& ticket);

 private:
  struct Task {
    std::function<void()> work;
    enum class State { queued, running, done } state = State::queued;
    std::exception_ptr error;
  };
  void work_loop();
  // Runs `task` (taken off the queue, lock released) and marks it done.
  void run(Task& task, std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable queued_;  // workers: a task was queued, or the pool closes
  std::condition_variable done_;    // waiters: a task finished
  std::deque<Ticket> queue_;
  bool closing_ = false;
  std::vector<std::thread> workers_;
};

// The number of threads `--threads` means by default: the processors this process may run on (its CPU
// affinity: all the machine's hardware threads unless taskset, Slurm or a container restricts it).
std::size_t default_threads();

}  // namespace sgdsim
