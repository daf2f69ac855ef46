#include "observation/operation_replay.hpp"

namespace sgdsim::observation {

void replay_operations(const OperationLog& log, protocols::Port& port, bool charges,
                       const std::function<void(const ScheduledOperation&, double time)>& observe) {
  OperationCursor cursor(log);
  while (!cursor.done()) {
    const ScheduledOperation& op = cursor.next();
    switch (op.kind) {
      case Operation::charge:
        if (charges) port.charge(op.terms);
        break;
      case Operation::send:
        // Only the size travels: the network charges time for it, and nobody reads the bytes.
        port.send_size(op.peer, op.bytes);
        break;
      case Operation::silence:
        port.send_silence(op.peer);
        break;
      case Operation::receive:
        port.receive_or_miss(op.peer);
        break;
      case Operation::wait_sends:
        port.wait_sends();
        break;
      case Operation::background:  // a port without a second actor does the pieces at once, in order
        if (charges) port.start_background(op.terms);
        break;
      case Operation::await_background:
        if (charges) port.await_background(op.count);
        break;
      case Operation::yield:
        port.let_others_run();
        break;
      case Operation::now:
        port.now();
        break;
      case Operation::observe:
        observe(op, port.now());
        break;
    }
  }
}

}  // namespace sgdsim::observation
