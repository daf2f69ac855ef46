#pragma once
#include <memory>
#include <vector>

#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// BEER (Zhao, Li, Li, Richtárik and Chi 2022, "BEER: Fast O(1/T) Rate for Decentralized Nonconvex
// Optimization with Communication Compression"): gradient tracking with compressed messages. Node i keeps its
// model x_i, its tracker v_i, and public copies h_i of x_i and g_i of v_i that every neighbour also holds
// (CHOCO-style: copies change only by decoded messages), with m^h_i = Σ_j w_ij h_j and m^g_i = Σ_j w_ij g_j.
// One round (the paper's Algorithm 1, in matrix form X⁺ = X + γH(W − I) − ηV, ...):
//   x_i ← x_i + γ (m^h_i − h_i) − η v_i;         h_i ← h_i + C(x_i − h_i)   (sent)
//   v_i ← v_i + γ (m^g_i − g_i) + ∇F_i(x_i⁺) − ∇F_i(x_i);   g_i ← g_i + C(v_i − g_i)   (sent)
// with h = g = 0 and v_i = ∇F_i(x_i⁰) at the start, as in the authors' code.
class Beer : public Protocol {
 public:
  Beer(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  // One compressed stream of public copies (h or g): per node its copy and m = Σ_j w_ij copy_j.
  struct Copies {
    std::vector<float> copy, mixed;
    std::unique_ptr<compression::Compressor::State> state;  // a stateful compressor's, per stream
  };
  struct Node {
    std::vector<float> x, v, gradient;  // x_i, v_i, ∇F_i(x_i)
    Copies h, g;
    std::vector<float> difference, q;  // scratch: the compressed difference and its decoded message
    Bytes bytes;
    Rng rng;
    NodeStats stats;
  };
  // Compresses target − copy, applies it to the node's own copy and m, and sends it to every neighbour.
  void send_update(std::size_t i, std::span<const float> target, Copies& copies, Port& port);
  // Receives one update of each neighbour for `copies` and adds w_ij q_j to m.
  void receive_updates(std::size_t i, Copies& copies, Port& port);

  const Environment& environment_;
  Schedule schedule_;
  double gamma_;
  topology::Mixing mixing_;
  LocalStep local_;
  MessageCompressor compressor_;
  Charge consensus_, own_update_, apply_;
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
