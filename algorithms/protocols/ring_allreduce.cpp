// The collective kind ring_allreduce: the bandwidth-optimal ring all-reduce of NCCL, Horovod and Baidu's
// allreduce (Patarasuk & Yuan 2009): a reduce-scatter, then an all-gather, around a ring laid along a cycle
// of the physical network (as NCCL lays its rings on the machine's links), or around the node ids.
#include <algorithm>
#include <vector>

#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/float_messages.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"
#include "topologies/embedded_cycle.hpp"

namespace sgdsim::protocols {

namespace {

// The vector is cut into n contiguous chunks of near-equal size (FloatMessages::chunk).
class RingAllreduce final : public Collective {
 public:
  // It encodes its own chunks and partial sums; the worker's whole message is never sent.
  bool sends_message() const override { return false; }
  RingAllreduce(const CollectiveSetup& setup, const compression::FloatFormat& format,
                std::vector<std::size_t> ring)
      : messages_(setup, format), ring_(std::move(ring)) {
    position_.resize(ring_.size());
    for (std::size_t p = 0; p < ring_.size(); ++p) position_[ring_[p]] = p;
  }

  // The node at position p of the ring (ring_[p]) sends only to position p + 1 and receives only from p − 1
  // (mod n), 2(n − 1) messages of one chunk each: a reduce-scatter, after which position p holds chunk p + 1
  // summed over all nodes, then an all-gather (FloatMessages). Each finished chunk was summed once, by one
  // node, and is copied byte for byte to the others, so every node ends with the same floats; the mean is
  // that sum times 1/n on every node. `own` is already in the workers' float format (it is their message
  // decoded), and every partial sum is rounded to it, so a node keeps exactly what it sends: fp16 and bf16
  // are summed in their own precision, as NCCL does (an fp32 sum of two fp16 or bf16 values rounded once to
  // the format is their correctly rounded sum); the final 1/n is applied in fp32.
  void average(std::size_t node, const protocols::Bytes&, std::span<const float> own, Rng& rng,
               std::span<float> average, protocols::Port& port) override {
    const std::size_t n = ring_.size();
    std::copy(own.begin(), own.end(), average.begin());
    if (n > 1) {
      messages_.reduce_scatter(average, ring_, position_[node], rng, port);
      messages_.all_gather(average, ring_, position_[node], rng, port);
      port.wait_sends();
    }
    const float scale = 1.0f / static_cast<float>(n);
    for (float& v : average) v *= scale;
    // The copy of own, the scaling.
    port.charge({messages_.prices().call, 4.0 * static_cast<double>(average.size())});
  }

 private:
  FloatMessages messages_;
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

const bool registered_ring_allreduce = collectives().add(
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
