#pragma once
// PowerSGD (Vogels et al. 2019): each weight matrix M (rows × cols, from the Layout) is sent as a rank-r
// product P̂ Qᵀ from one step of power iteration warm-started with the sender's previous Q; vectors (biases,
// scales) and matrices too small to gain are sent as raw float32. Wire format: docs/compression.md.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/layout.hpp"

namespace sgdsim::compression {

// Modified Gram-Schmidt on the r columns of the rows × r matrix `p` (row-major, double). A column that
// vanishes (it lies in the span of the previous ones, or M Q is zero there) becomes zero: it carries nothing.
void orthonormalise(std::vector<double>& p, std::size_t rows, std::size_t r);
// The initial Q (cols × r, row-major) of the matrix-th low-rank matrix: standard normal from a fixed stream
// per matrix, the same for every sender.
std::vector<float> initial_q(std::uint64_t matrix, std::size_t cols, std::size_t r);
// Warm start: column k of `q` (cols × r) that is all zero restarts from the initial draw (power iteration
// never leaves zero).
void restart_zero_columns(std::vector<float>& q, std::uint64_t matrix, std::size_t cols, std::size_t r);

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
