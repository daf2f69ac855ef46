// The collective kind ring_allreduce: the bandwidth-optimal ring all-reduce of NCCL, Horovod and Baidu's
// allreduce (Patarasuk & Yuan 2009): a reduce-scatter, then an all-gather, around a ring laid along a cycle
// of the physical network (as NCCL lays its rings on the machine's links), or around the node ids.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "algorithms/protocols/collective.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"
#include "topologies/embedded_cycle.hpp"

namespace sgdsim::protocols {

namespace {

// The vector is cut into n contiguous chunks of near-equal size: chunk c starts at c·⌊d/n⌋ + min(c, d mod n)
// and the first d mod n chunks have one coordinate more. With d < n the last n − d chunks are empty (their
// messages carry 0 payload bytes but still cost a latency and, with headers, one header).
class RingAllreduce final : public Collective {
 public:
  // It encodes its own chunks and partial sums; the worker's whole message is never sent.
  bool sends_message() const override { return false; }
  RingAllreduce(const CollectiveSetup& setup, const compression::FloatFormat& format,
                std::vector<std::size_t> ring)
      : setup_(setup),
        format_(format),
        prices_(setup, format),
        received_(setup.dimension),
        ring_(std::move(ring)) {
    position_.resize(ring_.size());
    for (std::size_t p = 0; p < ring_.size(); ++p) position_[ring_[p]] = p;
  }

  // The node at position p of the ring (ring_[p]) sends only to position p + 1 and receives only from p − 1
  // (mod n), 2(n − 1) messages of one chunk each. Reduce-scatter, step s = 0 … n − 2: position p sends its
  // partial sum of chunk p − s and adds its own values to the partial sum of chunk p − s − 1 it receives;
  // after it position p holds chunk p + 1 summed over all nodes. All-gather, step s = 0 … n − 2: position p
  // sends the finished chunk p + 1 − s and stores the finished chunk p − s it receives. Each finished chunk
  // was summed once, by one node, and is copied byte for byte to the others, so every node ends with the same
  // floats; the mean is that sum times 1/n on every node. `own` is already in the workers' float format (it
  // is their message decoded), and every partial sum is rounded to it, so a node keeps exactly what it sends:
  // fp16 and bf16 are summed in their own precision, as NCCL does (an fp32 sum of two fp16 or bf16 values
  // rounded once to the format is their correctly rounded sum); the final 1/n is applied in fp32.
  void average(std::size_t node, const protocols::Bytes&, std::span<const float> own, Rng& rng,
               std::span<float> average, protocols::Port& port) override {
    const std::size_t n = setup_.nodes;
    std::copy(own.begin(), own.end(), average.begin());
    if (n > 1) {
      const std::size_t i = position_[node];
      const std::size_t next = ring_[(i + 1) % n], previous = ring_[(i + n - 1) % n];
      for (std::size_t s = 0; s + 1 < n; ++s) {
        send(next, chunk(average, i + n - s), rng, port);
        const std::span<float> partial = receive(previous, chunk(average, i + 2 * n - s - 1).size(), port);
        const std::span<float> mine = chunk(average, i + 2 * n - s - 1);
        for (std::size_t c = 0; c < mine.size(); ++c) mine[c] += partial[c];
        format_.round(mine);
        port.charge({prices_.mixing, 3.0 * static_cast<double>(mine.size())});
      }
      for (std::size_t s = 0; s + 1 < n; ++s) {
        send(next, chunk(average, i + 1 + n - s), rng, port);
        const std::span<float> target = chunk(average, i + n - s);
        const std::span<const float> finished = receive(previous, target.size(), port);
        std::copy(finished.begin(), finished.end(), target.begin());
        port.charge({prices_.mixing, 2.0 * static_cast<double>(target.size())});
      }
      port.wait_sends();
    }
    const float scale = 1.0f / static_cast<float>(n);
    for (float& v : average) v *= scale;
    // The copy of own, the scaling.
    port.charge({prices_.mixing, 4.0 * static_cast<double>(average.size())});
  }

 private:
  // Chunk c mod n of `v`.
  std::span<float> chunk(std::span<float> v, std::size_t c) const {
    const std::size_t n = setup_.nodes, d = setup_.dimension;
    c %= n;
    const std::size_t begin = c * (d / n) + std::min(c, d % n);
    return v.subspan(begin, d / n + (c < d % n ? 1 : 0));
  }

  void send(std::size_t to, std::span<const float> values, Rng& rng, protocols::Port& port) {
    protocols::Bytes bytes;
    {
      WallClock::Scope timer(setup_.clock, WallClock::Part::compression);
      setup_.compressor->encode_into(values, rng, bytes);
    }
    port.charge({prices_.encode, static_cast<double>(values.size())});
    port.send(to, std::move(bytes));
  }

  // Receives the next chunk from `from` into the shared scratch (valid until this node's next Port call).
  std::span<float> receive(std::size_t from, std::size_t size, protocols::Port& port) {
    const std::optional<protocols::Bytes> message = port.receive(from);
    if (!message) throw std::logic_error("ring all-reduce received silence");
    const std::span<float> out = std::span<float>(received_).first(size);
    WallClock::Scope timer(setup_.clock, WallClock::Part::compression);
    setup_.compressor->decode_into(*message, out);
    port.charge({prices_.decode, static_cast<double>(size)});
    return out;
  }

  CollectiveSetup setup_;
  const compression::FloatFormat& format_;
  ChunkPrices prices_;
  std::vector<float> received_;  // shared by all nodes: consumed before the node's next Port call
  std::vector<std::size_t> ring_, position_;  // the node at each position, the position of each node
};

// The ring's order: "embedded" (a cycle of the physical network, when it has one), or "ids".
std::vector<std::size_t> ring_order(Spec& spec, const CollectiveSetup& setup) {
  std::vector<std::size_t> ids(setup.nodes);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  std::vector<std::size_t> cycle;
  if (setup.network) cycle = topology::embedded_cycle(*setup.network);
  const std::string ring = spec.string("ring", cycle.empty() ? "ids" : "embedded");
  if (ring == "ids") return ids;
  if (cycle.empty())
    spec.fail("ring",
              std::string("the physical network") +
                  (setup.network ? " (\"" + setup.network->kind + "\")" : "") +
                  " has no cycle through every node along its links that sgdsim could find (a star, a "
                  "tree or a sparse random graph has none); use \"ids\"");
  return cycle;
}

const bool registered = collectives().add(
    {"ring_allreduce",
     "Ring all-reduce (reduce-scatter, then all-gather; as in NCCL and Horovod): 2(n − 1) messages per node, "
     "each one of n near-equal chunks of the vector, sent to the next node of the ring over the routed "
     "network. Needs the workers' compressor to send floats (\"none\", \"fp16\", \"bf16\"); partial sums are "
     "rounded to that format, as NCCL sums in it.",
     {keys::choice("ring", {"embedded", "ids"},
                   "The order of the ring. \"embedded\": along a cycle through every node of the physical "
                   "network, so that each step crosses one link (a ring in its order, a torus by a snake, a "
                   "hypercube by a Gray code, a complete graph by ids, other graphs by a bounded search); "
                   "\"ids\": node 0, 1, …, n − 1, routed over as many hops as that takes. The order decides "
                   "which node adds which partial sum, so it changes the rounding of the mean.")
          .computed_default("\"embedded\" when the physical network has such a cycle, else \"ids\"")},
     {}},
    [](Spec& spec, const CollectiveSetup& setup) {
      const compression::FloatFormat& format = require_float_format(setup, "ring_allreduce");
      return std::make_unique<RingAllreduce>(setup, format, ring_order(spec, setup));
    });

}  // namespace

}  // namespace sgdsim::protocols
