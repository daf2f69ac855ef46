#pragma once
#include <memory>
#include <vector>

#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// DiLoCo (Douillard et al. 2023, "DiLoCo: Distributed Low-Communication Training of Language Models"). Every
// worker starts a round from the shared model θ, takes H = local_steps inner steps with its own optimizer
// (the protocol's `optimizer`, whose state it keeps across rounds), and the workers average the
// pseudo-gradient Δᵢ = θ − xᵢ with a collective (compressed like data-parallel gradients). The outer
// optimizer, SGD with (Nesterov) momentum, updates θ on every replica alike: m ← μ m + Δ, θ ← θ − η_out (Δ +
// μ m) (Nesterov) or θ − η_out m. Local SGD (model averaging every H steps) is η_out = 1, μ = 0: θ ← mean xᵢ.
class Diloco : public Protocol {
 public:
  Diloco(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  struct Node {
    std::vector<float> x, start, delta, momentum, average, own;
    Bytes bytes;
    NodeStats stats;
  };
  // The round's end: Δ averaged, the outer step, every worker restarting from the new θ.
  void outer_step(std::size_t i, protocols::Port& port);

  const Environment& environment_;
  Schedule schedule_;
  std::int64_t local_steps_;
  float outer_lr_, outer_momentum_;
  bool nesterov_;
  LocalStep local_;
  Encoders encoders_;
  std::unique_ptr<Collective> collective_;
  Charge delta_, outer_;
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
