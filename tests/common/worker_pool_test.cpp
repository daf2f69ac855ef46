// WorkerPool: every task runs exactly once, its exception reaches the thread that waits for it, and a pool of
// one thread runs everything in the waiting thread.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/worker_pool.hpp"
#include "tests/support/child.hpp"

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

TEST_CASE("a pool that cannot start all its threads runs with those it could start") {
  // In a child: an address-space limit just above what the process uses leaves room for a few thread
  // stacks only (as on clusters that limit virtual memory); asking for 4096 threads must not abort.
  const sgdsim::testing::ChildResult result = sgdsim::testing::in_child([] {
    std::size_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t used = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
    const rlimit limit{used + (rlim_t{64} << 20), used + (rlim_t{64} << 20)};
    if (setrlimit(RLIMIT_AS, &limit) != 0) throw std::runtime_error("setrlimit failed");
    WorkerPool pool(4096);
    std::atomic<int> ran{0};
    std::vector<WorkerPool::Ticket> tickets;
    for (int k = 0; k < 100; ++k) tickets.push_back(pool.submit([&ran] { ++ran; }));
    for (const auto& ticket : tickets) pool.wait(ticket);
    return std::to_string(pool.threads()) + " " + std::to_string(ran.load());
  });
  INFO(result.error);
  REQUIRE(result.exit_code == 0);
  std::istringstream figures(result.output);
  std::size_t threads = 0;
  int ran = 0;
  figures >> threads >> ran;
  CHECK(threads >= 1);
  CHECK(threads < 4096);
  CHECK(ran == 100);
}
