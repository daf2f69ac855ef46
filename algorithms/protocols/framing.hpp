#pragma once
// How the updates of gossip's public copies reach their holders, so that a gossip protocol sends "q to every
// neighbour" and receives "each neighbour's q" whatever the network. On a network that cannot lose messages a
// message is the encoded q and a node without an update sends silence. On one that can (Environment::lossy,
// docs/protocols.md "Failures"), a holder that misses an update keeps a stale copy, so every sender keeps,
// per neighbour, the sum of the updates that neighbour did not receive (its debt) and sends it with its next
// message to it as an fp32 repair, until a repair is delivered. Messages are then framed:
//   [flags][u32 length, encoded q (flags & 1)][d fp32 repair (flags & 2)]
// and flags 0 is the one-byte silence signal. At any moment a holder's copy plus what its owner still owes it
// equals the owner's copy, up to float rounding.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/protocols/port.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::protocols {

// How a node that does not fire tells its neighbours (SPARQ). `signal`: a real 1-byte message (plus header),
// so receivers need no oracle, as in a deployment. `free`: nothing is sent and neighbours know by fiat (zero
// bits, zero time), the idealisation behind the paper's bit counts.
enum class Silence { signal, free };

class Framing {
 public:
  // What a neighbour's message of this round brought: its encoded update q and a repair (d values), each
  // empty when absent (an encoded update is never empty). Views into scratch shared by all nodes: valid until
  // the next receive(), so use them before the next Port call.
  struct Delivery {
    std::span<const std::uint8_t> update;
    std::span<const float> repair;
  };

  // Copies of d-vectors over `topology`'s edges; `lossy`: frame messages for repairs.
  Framing(const topology::Topology& topology, std::size_t dimension, Silence silence, bool lossy);

  // Node i sends its update to every neighbour: `bytes` encoded (more than one byte), `q` decoded (what a
  // holder that misses it is owed).
  void send_update(std::size_t i, const Bytes& bytes, std::span<const float> q, Port& port);
  // Node i has no update this round: its neighbours get silence, or only what it owes them.
  void send_silence(std::size_t i, Port& port);
  // This round's message from neighbour `from` to the port's node; nothing when `from` was silent or its
  // message is missing (`from` then owes it).
  Delivery receive(std::size_t from, Port& port);
  // Awaits node i's sends of this round; what a neighbour did not receive becomes owed to it, and a delivered
  // repair settles the debt.
  void wait_sends(std::size_t i, Port& port);
  // The sum of the updates `owner` has sent that its neighbour `holder` did not receive (empty: none).
  const std::vector<float>& owed(std::size_t owner, std::size_t holder) const;

 private:
  void send_framed(std::size_t i, const Bytes* update, Port& port);

  const topology::Topology& topology_;
  std::size_t dimension_;
  Silence silence_;
  bool lossy_;
  Bytes message_;              // shared scratch: the last message received
  std::vector<float> repair_;  // shared scratch: its repair, as floats
  // Lossy networks, per node: per neighbour (index in neighbors[i]) its debt (empty: none) and whether this
  // round's message carries a repair; whether the node sent an update this round, and that update decoded.
  std::vector<std::vector<std::vector<float>>> owed_;
  std::vector<std::vector<char>> repairing_;
  std::vector<char> fired_;
  std::vector<std::vector<float>> sent_q_;
};

}  // namespace sgdsim::protocols
