// The collective kind recursive_doubling: the latency-optimal all-reduce of MPI libraries for short vectors
// (Thakur, Rabenseifner & Gropp 2005), with MPICH's fold/unfold for a number of nodes that is not a power of
// two.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/float_messages.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {

// With p the largest power of two ≤ n and r = n − p:
// fold: for k < r, node 2k sends its whole vector to node 2k + 1, which adds it, and then waits;
// doubling: the p remaining nodes (nodes 2k + 1 for k < r, then nodes 2r … n − 1; rank k is the k-th of them)
//   run log2(p) rounds; in round m each exchanges its whole partial sum with the node of rank (own rank) XOR
//   2^m and both add the two sums, the lower rank's first;
// unfold: node 2k + 1 sends the total to node 2k.
// Both partners of a round add the same two vectors in the same order, so after round m every node of a block
// of 2^(m+1) ranks holds the same floats, and at the end every node holds the same sum; the mean is that sum
// times 1/n. Messages are the whole vector in the workers' float format: log2(p) per node, one more for the
// nodes 2k + 1 (k < r), and one in all for the nodes 2k. Every sum is rounded to that format, so a node keeps
// exactly what it sends (fp16 and bf16 are summed in their own precision; see ring_allreduce.cpp).
class RecursiveDoubling final : public Collective {
 public:
  RecursiveDoubling(const CollectiveSetup& setup, const compression::FloatFormat& format)
      : setup_(setup), format_(format), messages_(setup, format) {
    while (2 * power_ <= setup.nodes) power_ *= 2;
    extra_ = setup.nodes - power_;
  }

  bool sends_message() const override { return false; }
  void average(std::size_t i, const protocols::Bytes&, std::span<const float> own, Rng& rng,
               std::span<float> average, protocols::Port& port) override {
    std::copy(own.begin(), own.end(), average.begin());
    const bool folded = i < 2 * extra_ && i % 2 == 0;
    const double d = static_cast<double>(average.size());
    if (folded) {
      messages_.send(i + 1, average, rng, port);
      messages_.receive(i + 1, average, port);
    } else {
      if (i < 2 * extra_) {
        add(messages_.receive(i - 1, average.size(), port), average, average);  // node i − 1's comes first
        port.charge({messages_.prices().mixing, 3 * d});
      }
      const std::size_t rank = i < 2 * extra_ ? i / 2 : i - extra_;
      for (std::size_t mask = 1; mask < power_; mask *= 2) {
        const std::size_t partner = node_of(rank ^ mask);
        messages_.send(partner, average, rng, port);
        const std::span<const float> theirs = messages_.receive(partner, average.size(), port);
        if ((rank ^ mask) < rank)
          add(theirs, average, average);
        else
          add(average, theirs, average);
        port.charge({messages_.prices().mixing, 3 * d});
      }
      if (i < 2 * extra_) messages_.send(i - 1, average, rng, port);
    }
    port.wait_sends();
    const float scale = 1.0f / static_cast<float>(setup_.nodes);
    for (float& v : average) v *= scale;
    port.charge({messages_.prices().call, 4 * d});  // the copy of own, the scaling
  }

 private:
  std::size_t node_of(std::size_t rank) const { return rank < extra_ ? 2 * rank + 1 : rank + extra_; }

  // out = first + second, coordinate by coordinate (out may alias either), rounded to the format.
  void add(std::span<const float> first, std::span<const float> second, std::span<float> out) const {
    for (std::size_t c = 0; c < out.size(); ++c) out[c] = first[c] + second[c];
    format_.round(out);
  }

  CollectiveSetup setup_;
  const compression::FloatFormat& format_;
  FloatMessages messages_;
  std::size_t power_ = 1, extra_ = 0;
};

const bool registered_recursive_doubling = collectives().add(
    {"recursive_doubling",
     "Recursive-doubling all-reduce (as in MPI libraries): log2(p) exchanges of the whole fp32 vector with "
     "partners at distance 1, 2, 4, … in rank, p the largest power of two ≤ n; the n − p extra nodes first "
     "fold their vector into a neighbouring id and get the result back at the end. Needs the workers' "
     "compressor to send floats (\"none\", \"fp16\", \"bf16\"); sums are rounded to that format.",
     {},
     {}},
    [](Spec&, const CollectiveSetup& setup) {
      return std::make_unique<RecursiveDoubling>(setup, require_float_format(setup, "recursive_doubling"));
    });

}  // namespace

}  // namespace sgdsim::protocols
