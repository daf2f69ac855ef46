#pragma once
// The request path of asynchronous protocols (Protocol::serves(), e.g. AD-PSGD). Besides its run(), every
// node then runs a server, a second actor on its host: run()'s port also sends requests to the other nodes'
// servers, and each server's port receives them. Two small interfaces beside Port, which the ports of
// synchronous protocols (and decorators of them) need not implement.
#include <cstddef>
#include <utility>

#include "algorithms/protocols/port.hpp"

namespace sgdsim::protocols {

// What run()'s port of an asynchronous protocol also does.
class Requester {
 public:
  virtual ~Requester() = default;
  // Starts sending `bytes` to node `to`'s server, not to its run(). Like a send of the same port: counted in
  // its counters and awaited by its wait_sends(), which lists it when it reached nobody. The server's reply
  // comes back through the port's receive(to) like any message.
  virtual void request(std::size_t to, Bytes bytes) = 0;
};

// What a server's port also does.
class RequestInbox {
 public:
  virtual ~RequestInbox() = default;
  // Blocks until a request from any node arrives; returns its sender and bytes, in arrival order.
  virtual std::pair<std::size_t, Bytes> receive_request() = 0;
};

// The request side of `port`. Throws std::logic_error when the port has none (a port of a simulation without
// servers, or of a server for the requester).
Requester& requester(Port& port);
RequestInbox& request_inbox(Port& port);

}  // namespace sgdsim::protocols
