#include "algorithms/protocols/requests.hpp"

#include <stdexcept>

namespace sgdsim::protocols {

Requester& requester(Port& port) {
  if (auto* requests = dynamic_cast<Requester*>(&port)) return *requests;
  throw std::logic_error("node " + std::to_string(port.self()) +
                         "'s port sends no requests (an asynchronous protocol needs a port with servers)");
}

RequestInbox& request_inbox(Port& port) {
  if (auto* inbox = dynamic_cast<RequestInbox*>(&port)) return *inbox;
  throw std::logic_error("node " + std::to_string(port.self()) +
                         "'s port is not a server's: it takes no requests");
}

}  // namespace sgdsim::protocols
