// WorkerPool: every task runs exactly once, its exception reaches the thread that waits for it, and a pool of
// one thread runs everything in the waiting thread.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/worker_pool.hpp"

using sgdsim::WorkerPool;

TEST_CASE("a worker pool runs every task once, whichever thread takes it") {
  for (std::size_t threads : {1, 2, 3}) {
    WorkerPool pool(threads);
    CHECK(pool.threads() == threads);
    std::vector<int> runs(200, 0);  // each slot written by its own task only
    std::vector<WorkerPool::Ticket> tickets;
    for (std::size_t k = 0; k < runs.size(); ++k)
      tickets.push_back(pool.submit([&runs, k] { runs[k] += 1; }));
    // Waited for in an order unlike submission's: some are taken here, some by workers.
    for (std::size_t k = runs.size(); k-- > 0;) pool.wait(tickets[k]);
    for (std::size_t k = 0; k < runs.size(); ++k) CHECK(runs[k] == 1);
  }
}

TEST_CASE("with one thread, a task runs in the thread that waits for it, when it waits") {
  WorkerPool pool(1);
  std::thread::id ran_on;
  bool ran = false;
  const WorkerPool::Ticket ticket = pool.submit([&] {
    ran = true;
    ran_on = std::this_thread::get_id();
  });
  CHECK(!ran);
  pool.wait(ticket);
  CHECK(ran);
  CHECK(ran_on == std::this_thread::get_id());
}

TEST_CASE("a task's exception is rethrown to the thread that waits for it, and the pool goes on") {
  for (std::size_t threads : {1, 2}) {
    WorkerPool pool(threads);
    const WorkerPool::Ticket bad = pool.submit([] { throw std::domain_error("task failed"); });
    std::atomic<int> after{0};
    const WorkerPool::Ticket good = pool.submit([&] { after = 1; });
    CHECK_THROWS_MATCHES(pool.wait(bad), std::domain_error, Catch::Message("task failed"));
    pool.wait(good);
    CHECK(after == 1);
  }
}

TEST_CASE("a pool can be destroyed with tasks nobody waited for, and refuses zero threads") {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(2);
    for (int k = 0; k < 50; ++k) pool.submit([&] { ++ran; });
  }
  CHECK(ran <= 50);  // started ones finished; the others were dropped
  CHECK_THROWS_AS(WorkerPool(0), std::invalid_argument);
}
