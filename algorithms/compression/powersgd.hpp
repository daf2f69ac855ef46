#pragma once
// PowerSGD (Vogels et al. 2019): each weight matrix M (rows × cols, from the Layout) is sent as a rank-r
// product P̂ Qᵀ from one step of power iteration warm-started with the sender's previous Q; vectors (biases,
// scales) and matrices too small to gain are sent as raw float32. Wire format: docs/compression.md.
#include <cstddef>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/layout.hpp"

namespace sgdsim::compression {

class PowerSgd final : public Compressor {
 public:
  // `rows` > 0: a vector given without tensors (no model's layout: `sgdsim compress`, benchmarks) is one
  // rows × ⌊d/rows⌋ matrix followed by the d mod rows rest as a vector.
  explicit PowerSgd(std::size_t rank, std::size_t rows = 0);

  std::unique_ptr<State> make_state(std::size_t dimension) const override;
  void encode_with(std::span<const float> values, Rng& rng, State* state, Bytes& out) const override;
  // Without a state: one power step from the initial Q (what a fresh sender sends).
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

  // The rank used for a rows × cols matrix, or 0 when it goes raw: r' = min(r, rows, cols), low rank only
  // when (rows + cols)·r' < rows·cols.
  std::size_t rank_of(const Tensor& t) const;
  // The tensors a d-vector is split into: the layout's, or the `rows` view, or one vector.
  std::vector<Tensor> tensors(std::size_t dimension) const;
  // The exact message size in bytes for a d-vector.
  std::size_t message_bytes(std::size_t dimension) const;

  // The warm-started factors of one sender: Q (cols × r', row-major) per low-rank matrix, in layout order.
  struct Factors final : State {
    std::vector<std::vector<float>> q;
  };

 private:
  Factors initial(std::size_t dimension) const;
  std::size_t rank_, rows_;
};

}  // namespace sgdsim::compression
