#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// Distributed stochastic gradient tracking (DSGT, Pu and Nedić 2020). Node i keeps its model x_i and a
// tracker y_i of the average gradient, starting at y_i = ∇F_i(x_i⁰), and gossips both in one fp32 message:
// adapt_then_combine (Pu–Nedić): x_i⁺ = Σ_j w_ij (x_j − η y_j); combine_then_adapt (DIGing, Nedić, Olshevsky
// and Shi 2017): x_i⁺ = Σ_j w_ij x_j − η y_i; then y_i⁺ = Σ_j w_ij y_j + ∇F_i(x_i⁺) − ∇F_i(x_i). With W
// doubly stochastic the mean of the trackers is the mean of the current gradients at every step, so on
// heterogeneous data the nodes step along the global gradient, not their own.
class Dsgt : public Protocol {
 public:
  Dsgt(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  struct Node {
    std::vector<float> x, y, gradient;  // x_i, y_i, ∇F_i(x_i)
    std::vector<float> sent, mixed;     // [x or x − ηy ; y] and Σ_j w_ij of it (2d each)
    std::vector<std::pair<std::size_t, Bytes>> arrived;
    NodeStats stats;
  };
  // mixed ← w_ii sent_i + Σ_k w_ik decode(arrived_k).
  void combine(std::size_t i);
  const Environment& environment_;
  Schedule schedule_;
  bool adapt_first_;
  topology::Mixing mixing_;
  LocalStep local_;
  std::unique_ptr<compression::Compressor> encoding_;
  Charge encode_, decode_, self_mixing_, neighbor_mixing_, step_, track_;
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
