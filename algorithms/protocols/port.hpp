#pragma once
// The small transport port a protocol sees: send real bytes, receive, spend flops. No SimGrid types here, so
// protocol code can be read and tested without the simulator.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace sgdsim::protocols {

using Bytes = std::vector<std::uint8_t>;

// What a node's host spends simulated time on, besides waiting for the network.
enum class Work { gradient, encode, decode, mixing, update };
inline constexpr std::size_t work_kinds = 5;
inline constexpr std::array<std::string_view, work_kinds> work_names = {"gradient", "encode", "decode",
                                                                        "mixing", "update"};

// What one node has sent so far: payload bytes, bytes on the wire (payload plus the headers the network
// charges per message or per segment, see sim/simulation.hpp), and the simulated seconds its host spent on
// each kind of work.
struct Counters {
  std::uint64_t payload_bytes = 0;
  std::uint64_t wire_bytes = 0;
  std::uint64_t messages = 0;
  std::array<double, work_kinds> work_s{};
  // Failures (networks with a receive timeout): sends that did not reach their destination, and receives
  // that gave up.
  std::uint64_t lost = 0;
  std::uint64_t timed_out = 0;
};

// What receive_or_miss() found.
struct Received {
  enum class Status { message, silence, missing } status = Status::missing;
  Bytes bytes;  // the message (status message)
};

class Port {
 public:
  virtual ~Port() = default;
  virtual std::size_t self() const = 0;
  // Starts sending `bytes` to node `to` (any node: multi-hop routes are the network's business). The
  // simulated size is bytes.size() plus the network's headers. Completes in the background; wait_sends()
  // awaits all pending sends.
  virtual void send(std::size_t to, Bytes bytes) = 0;
  // Tells `to` "no message this round" at zero cost and zero bits: an oracle, the idealisation of protocols
  // whose analysis assumes silent nodes are known by fiat.
  virtual void send_silence(std::size_t to) = 0;
  // Blocks until the next message from `from` arrives (in order per sender); nullopt when it was silence.
  virtual std::optional<Bytes> receive(std::size_t from) = 0;
  virtual void wait_sends() = 0;

  // Failures (docs/protocols.md, "Failures"). On a network with a receive timeout, receive_or_miss() is
  // receive() that gives up after that many simulated seconds: `missing` when nothing from `from` arrived in
  // time (a link or node down, a late sender). A message is then either received by the receive that waits
  // for it or by nobody, and its sender learns which: after wait_sends(), undelivered() lists the
  // destinations of the sends since the previous wait_sends() that nobody will receive, in send order. On a
  // network without failures these are receive() and an empty list.
  virtual Received receive_or_miss(std::size_t from) {
    std::optional<Bytes> message = receive(from);
    if (!message) return {Received::Status::silence, {}};
    return {Received::Status::message, std::move(*message)};
  }
  virtual std::vector<std::size_t> undelivered() const { return {}; }
  // True when the network can lose messages (receives time out): protocols that must keep replicas
  // consistent then frame their messages for repairs.
  virtual bool lossy() const { return false; }
  // Spends simulated compute time for `flops` floating-point operations of model math on this node's host
  // (counted as Work::gradient).
  virtual void compute(double flops) = 0;
  // Spends `seconds` of this node's host's time on `work` (seconds at the host's nominal speed: a host slowed
  // by the network's dynamics takes longer).
  virtual void spend(Work work, double seconds) = 0;
  // Lets the other nodes that are ready at this simulated instant run before this one goes on, without
  // spending simulated time or executing the work charged so far: their real math can then overlap this
  // node's (LocalStep::gradient). Whether a port does anything here never depends on the thread count.
  virtual void let_others_run() {}
  // Simulated seconds, once the work charged so far is done: work is charged lazily and executed at the next
  // send, receive, wait or now().
  virtual double now() = 0;
  virtual const Counters& counters() const = 0;

  // Requests and their server, for asynchronous protocols (Protocol::serves()). request() starts sending
  // `bytes` to the server of node `to` (a second actor on that node's host, see Protocol::serve), not to its
  // run(); the server's reply comes back through receive(to) like any message. receive_request(), on a
  // server's port only, blocks until a request from any node arrives and returns its sender and bytes, in
  // arrival order. Ports of networks without servers refuse both.
  virtual void request(std::size_t to, Bytes bytes) {
    (void)to;
    (void)bytes;
    throw std::logic_error("this port has no servers to send requests to");
  }
  virtual std::pair<std::size_t, Bytes> receive_request() {
    throw std::logic_error("receive_request() called on a port that is not a server's");
  }
};

}  // namespace sgdsim::protocols
