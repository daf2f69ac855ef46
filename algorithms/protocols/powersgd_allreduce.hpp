#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// PowerSGD as published (Vogels, Karimireddy & Jaggi 2019, Algorithms 1 and 2): data-parallel SGD in which
// every worker compresses M = g + e (its gradient plus its error) per weight matrix with one step of power
// iteration that the workers take together. With Q shared (warm-started with the last step's):
//   P ← mean of M_i Q (all-reduce), P̂ ← orthonormalise(P), Q_i ← M_iᵀ P̂, e_i ← M_i − P̂ Q_iᵀ,
//   Q ← mean of Q_i (all-reduce), and every worker steps along P̂ Qᵀ = P̂ P̂ᵀ mean M_i.
// Vectors (biases) and matrices too small to gain go uncompressed with P's all-reduce. Both all-reduces sum
// float32 messages, so any collective runs them (ring_allreduce, recursive_doubling, allgather,
// parameter_server).
class PowerSgdAllreduce : public Protocol {
 public:
  PowerSgdAllreduce(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  // A weight matrix compressed at rank r: its place in the model vector, and where its P (rows × r) and Q
  // (cols × r) sit in the all-reduced buffers.
  struct Matrix {
    std::size_t begin = 0, rows = 0, cols = 0, rank = 0, p_at = 0, q_at = 0;
  };
  // A tensor sent whole, at `at` in P's buffer after the factors.
  struct Whole {
    std::size_t begin = 0, size = 0, at = 0;
  };
  struct Node {
    std::vector<float> x, error, m, p, p_mean, q, q_mean, update;
    std::vector<float> warm;  // the shared Q of every matrix (Q's buffer layout)
    Bytes bytes;
    NodeStats stats;
  };
  // One all-reduce (mean) of `own` through `collective`, its message in fp32 when the collective sends one.
  void reduce(std::size_t i, Collective& collective, std::span<const float> own, std::span<float> mean,
              const Charge& encode, protocols::Port& port);

  const Environment& environment_;
  Schedule schedule_;
  LocalStep local_;
  bool error_feedback_ = true;
  std::vector<Matrix> matrices_;
  std::vector<Whole> wholes_;
  std::size_t p_floats_ = 0, q_floats_ = 0;
  std::unique_ptr<compression::Compressor> fp32_;  // the messages of collectives that send them
  std::unique_ptr<Collective> reduce_p_, reduce_q_;
  Charge encode_p_, encode_q_, compress_, decompress_, feedback_;
  Rng unused_{0};  // fp32 draws nothing
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
