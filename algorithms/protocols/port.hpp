#pragma once
// The small transport port a protocol sees: send real bytes, receive, charge work. No SimGrid types here, so
// protocol code can be read and tested without the simulator.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
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

// A price of the run's price table (prices.hpp): what one unit of some work is, e.g. one minibatch gradient
// of the model, one coordinate through a codec configuration, one float of mixing arithmetic.
using PriceId = std::uint32_t;

// A piece of a node's work in units that do not depend on the device profile: `amount` units of `price`.
struct Charge {
  PriceId price = 0;
  double amount = 0;
};

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
  // Work in the background (start_background): the seconds it ran while the node's own thread waited on the
  // network (communication hidden behind computation), and while that thread computed too (two kinds of work
  // at once, each counted in work_s).
  double hidden_s = 0;
  double concurrent_work_s = 0;
};

// What a receive found.
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
  // The same for a message of `payload` bytes that nobody reads (a recorded run's replay): only its size
  // matters. By default a zero-filled message of that size; a simulated network needs no buffer.
  virtual void send_size(std::size_t to, std::size_t payload) { send(to, Bytes(payload)); }
  // Tells `to` "no message this round" at zero cost and zero bits: an oracle, the idealisation of protocols
  // whose analysis assumes silent nodes are known by fiat.
  virtual void send_silence(std::size_t to) = 0;
  // Blocks until the next item from `from` (in its sending order) is settled: a message, a silence, or, on a
  // network that loses messages (a receive timeout, docs/protocols.md "Failures"), `missing` when nothing
  // arrived within that many simulated seconds (a link or node down, a late sender). Such a network settles
  // every message by the receive waiting for it: that receive gets it, or nobody does. A network without
  // failures never answers `missing`.
  virtual Received receive_or_miss(std::size_t from) = 0;
  // Awaits every send since the previous wait_sends() and returns the destinations of those that nobody will
  // receive, in send order (always empty on a network without failures).
  virtual std::vector<std::size_t> wait_sends() = 0;
  // Charges one piece of work: its simulated seconds are the sum of its terms' prices (in order, all of one
  // kind of work; e.g. an encoding and the memory's arithmetic around it), spent on this node's host (seconds
  // at the host's nominal speed: a host slowed by the network's dynamics takes longer). The port prices it
  // with the run's price table.
  virtual void charge(std::span<const Charge> terms) = 0;
  void charge(const Charge& term) { charge(std::span<const Charge>(&term, 1)); }
  // Starts `pieces` of work (one charge each, e.g. a backward pass layer by layer) on this node's host, one
  // after the other and concurrently with what the node does next: the host is shared between them and the
  // node's own work as the simulator shares a host between executions (DDP's backward pass running while
  // gradient buckets are reduced). Returns at once, after the work charged so far. The pieces of the previous
  // start must all have been awaited. The default does the pieces at once, in order (no overlap).
  virtual void start_background(std::span<const Charge> pieces) {
    for (const Charge& piece : pieces) charge(piece);
  }
  // Blocks until the first `count` pieces of the last start_background() are done.
  virtual void await_background(std::size_t count) { (void)count; }
  // Lets the other nodes that are ready at this simulated instant run before this one goes on, without
  // spending simulated time or executing the work charged so far: their real math can then overlap this
  // node's (LocalStep::gradient). Whether a port does anything here never depends on the thread count.
  virtual void let_others_run() {}
  // Simulated seconds, once the work charged so far is done: work is charged lazily and executed at the next
  // send, receive, wait or now().
  virtual double now() = 0;
  virtual const Counters& counters() const = 0;

  // receive_or_miss() for protocols that need not tell silence from a missing message: the message, or
  // nullopt.
  std::optional<Bytes> receive(std::size_t from) {
    Received received = receive_or_miss(from);
    if (received.status != Received::Status::message) return std::nullopt;
    return std::move(received.bytes);
  }
};

}  // namespace sgdsim::protocols
