#include "common/worker_pool.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <system_error>

namespace sgdsim {

WorkerPool::WorkerPool(std::size_t threads) {
  if (threads == 0) throw std::invalid_argument("a worker pool needs at least one thread");
  workers_.reserve(threads - 1);
  for (std::size_t k = 1; k < threads; ++k) {
    try {
      workers_.emplace_back([this] { work_loop(); });
    } catch (const std::system_error& e) {
      // No room for another thread (an address-space or process limit, as on many clusters). Results do
      // not depend on the count: go on with the threads there are, and say so.
      std::fprintf(stderr, "sgdsim: note: only %zu of %zu threads could be started (%s); running with %zu\n",
                   workers_.size() + 1, threads, e.what(), workers_.size() + 1);
      break;
    }
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    queue_.clear();
  }
  queued_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

WorkerPool::Ticket WorkerPool::submit(std::function<void()> work) {
  auto task = std::make_shared<Task>();
  task->work = std::move(work);
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(task);
  }
  queued_.notify_one();
  return task;
}

void WorkerPool::run(Task& task, std::unique_lock<std::mutex>& lock) {
  task.state = Task::State::running;
  lock.unlock();
  try {
    task.work();
  } catch (...) {
    task.error = std::current_exception();
  }
  task.work = nullptr;  // what it captured is released by the thread that ran it
  lock.lock();
  task.state = Task::State::done;
  done_.notify_all();
}

void WorkerPool::work_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    queued_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (closing_) return;
    Ticket task = std::move(queue_.front());
    queue_.pop_front();
    run(*task, lock);
  }
}

void WorkerPool::wait(const Ticket& ticket) {
  std::unique_lock lock(mutex_);
  if (ticket->state == Task::State::queued) {
    queue_.erase(std::find(queue_.begin(), queue_.end(), ticket));
    run(*ticket, lock);
  }
  while (ticket->state != Task::State::done) {
    // Someone else runs it: help with the queue meanwhile rather than idle.
    if (!queue_.empty()) {
      Ticket other = std::move(queue_.front());
      queue_.pop_front();
      run(*other, lock);
    } else {
      done_.wait(lock);
    }
  }
  if (ticket->error) std::rethrow_exception(ticket->error);
}

std::size_t default_threads() {
  // The processors this process may run on (taskset, a Slurm or container cpuset), not all the machine's.
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0)
    return static_cast<std::size_t>(CPU_COUNT(&allowed));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace sgdsim
