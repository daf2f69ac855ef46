#pragma once
#include "algorithms/protocols/gossip.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// CHOCO-SGD (Koloskova et al. 2019). Order "compress_first" (default; the paper's Algorithm 1 and SPARQ's
// order):
//   x_half = x − η g;  q = C(x_half − x̂);  x̂_j += q_j at every holder;  x = x_half + γ (m − x̂).
// Order "consensus_first" (the deep-learning code): x += γ (m − x̂) with the current copies, then the gradient
// step (gradient and coupled weight decay at the old x, as that code adds the decay to the gradient before
// the consensus step), then compress and exchange the new difference.
class Choco : public Protocol {
 public:
  Choco(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;
  void finish() override { gossip_.verify(); }

 private:
  const Environment& environment_;
  Schedule schedule_;
  bool consensus_first_;
  LocalStep local_;
  Gossip gossip_;
  std::vector<float> before_consensus_;  // consensus_first with weight decay: x before the consensus step
};

}  // namespace sgdsim::protocols
