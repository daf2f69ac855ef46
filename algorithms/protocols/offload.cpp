#include "algorithms/protocols/offload.hpp"

namespace sgdsim::protocols {

void offload(const Environment& environment, Port& port, const std::function<void()>& work,
             std::optional<WallClock::Part> part) {
  WorkerPool* pool = environment.pool;
  if (!pool) {
    port.let_others_run();
    WallClock::Scope timer(part ? environment.clock : nullptr, part.value_or(WallClock::Part::gradient));
    work();
    return;
  }
  // Until the task is done it may use the caller's stack (what `work` captured): if SimGrid kills this node
  // while the others run, the unwinding waits for it first.
  struct Await {
    WorkerPool& pool;
    WorkerPool::Ticket ticket;
    ~Await() {
      if (!ticket) return;
      try {
        pool.wait(ticket);
      } catch (...) {  // unwinding already: the node is being stopped
      }
    }
  } pending{*pool, pool->submit(work)};
  port.let_others_run();
  WallClock::Scope timer(part ? environment.clock : nullptr, part.value_or(WallClock::Part::gradient));
  WorkerPool::Ticket ticket = std::move(pending.ticket);
  pool->wait(ticket);
}

}  // namespace sgdsim::protocols
