#pragma once
#include "algorithms/protocols/gossip.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"
#include "algorithms/protocols/trigger.hpp"

namespace sgdsim::protocols {

// SPARQ-SGD (Singh et al.): H local steps between synchronization indices; at a synchronization index a node
// sends q = C(x_half − x̂_i) only if the event trigger fires, then every node takes the consensus step
//   x = x_half + γ Σ_j w_ij (x̂_j − x̂_i)   (silent neighbours contributed nothing new to their copies).
class Sparq : public Protocol {
 public:
  Sparq(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;
  void finish() override { gossip_.verify(); }

 private:
  const Environment& environment_;
  Schedule schedule_;
  std::int64_t local_steps_;
  Trigger trigger_;
  LocalStep local_;
  Gossip gossip_;
  Charge trigger_norm_;  // the trigger reads x and x̂
};

}  // namespace sgdsim::protocols
