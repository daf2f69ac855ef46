#pragma once
#include <memory>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// 1-bit Adam (Tang, Gan, Awan, Rajbhandari, Li, Lian, Liu, Zhang and He 2021, "1-bit Adam:
// Communication Efficient Large-Scale Training with Adam's Convergence Speed", Algorithm 1; as DeepSpeed's
// OnebitAdam computes it). Warm-up, T_w steps: data-parallel Adam (no bias correction) on the fp32 average of
// the gradients, averaged by `collective`. Then v is frozen, and every step each worker
//   mᵢ = β₁ m + (1 − β₁) gᵢ;  cᵢ = mᵢ + eᵢ;  sᵢ = ‖cᵢ‖₂/√d;  ĉᵢ = sᵢ sign(cᵢ);  eᵢ ← cᵢ − ĉᵢ
// sends chunk j of ĉᵢ (its scale and d/n sign bits) to worker j; worker j, the server of chunk j, takes
//   z = (1/n) Σᵢ ĉᵢ[j] + ēⱼ;  tⱼ = ‖z‖₂/√|z|;  ẑ = tⱼ sign(z);  ēⱼ ← z − ẑ
// and sends ẑ (tⱼ and the sign bits) to every worker; all set m ← [ẑ₀ … ẑₙ₋₁] and x ← x − η m / (√v + ε).
class OnebitAdam : public Protocol {
 public:
  OnebitAdam(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  struct Node {
    std::vector<float> x, m, v;
    std::vector<float> own, average;    // warm-up: the gradient as sent, the averaged gradient
    std::vector<float> compensated;     // cᵢ, then the server's z of its chunk
    std::vector<float> worker_error;    // eᵢ (d floats)
    std::vector<float> server_error;    // ēᵢ (its chunk's floats)
    std::vector<float> decoded, chunk;  // ĉᵢ; a received chunk
    NodeStats stats;
  };
  void warmup_step(std::size_t i, std::int64_t t, Rng& batches, protocols::Port& port);
  void compressed_step(std::size_t i, std::int64_t t, Rng& batches, protocols::Port& port);
  // x ← x − η m / (√v + ε), the same floats in both stages.
  void adam_step(Node& node, double eta) const;
  // Chunk c of `v` (n near-equal contiguous chunks, the first d mod n one longer).
  std::span<float> chunk(std::span<float> v, std::size_t c) const;
  // The wire form of a chunk: `scale` as fp32, then one sign bit per value ("sign"'s format, whose decoder
  // every receiver uses); an empty chunk is an empty message.
  static compression::Bytes signs(std::span<const float> values, float scale);

  const Environment& environment_;
  Schedule schedule_;
  std::int64_t warmup_steps_;
  float beta1_, beta2_, epsilon_;
  LocalStep local_;
  std::unique_ptr<compression::Compressor> fp32_, sign_;
  std::unique_ptr<Collective> collective_;
  std::vector<Rng> streams_;
  Charge encode_fp32_, adam_, momentum_, worker_encode_, step_;
  PriceId encode_floats_, decode_floats_, mixing_floats_;
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
