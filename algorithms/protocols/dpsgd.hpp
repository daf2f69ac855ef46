#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// D-PSGD in either order of its two halves (key `order`):
// adapt_then_combine (diffusion ATC): x_i ← Σ_j w_ij (x_j − η ∇F_j(x_j)), the half-step models are exchanged;
// combine_then_adapt (Lian et al. 2017, Algorithm 1): x_i ← Σ_j w_ij x_j − η ∇F_i(x_i), the models are
// exchanged and the gradient is taken at the node's iterate before mixing.
class Dpsgd : public Protocol {
 public:
  enum class Order { adapt_then_combine, combine_then_adapt };
  Dpsgd(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  struct Node {
    std::vector<float> x, mixed, gradient;
    // This round's messages and their neighbour index k, mixed after the last has arrived (combine()).
    std::vector<std::pair<std::size_t, Bytes>> arrived;
    NodeStats stats;
  };
  // mixed ← w_ii x_i + Σ_k w_ik decode(arrived_k), in the order of the neighbours.
  void combine(std::size_t i);
  const Environment& environment_;
  Schedule schedule_;
  Order order_;
  topology::Mixing mixing_;
  LocalStep local_;
  std::unique_ptr<compression::Compressor> encoding_;
  Charge encode_, decode_, self_mixing_, neighbor_mixing_;
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
