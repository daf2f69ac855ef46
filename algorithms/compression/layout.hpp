#pragma once
// The parameter tensors of a vector, in their order in the flat vector: what per-tensor bucketing and
// low-rank compressors need to know of a model, and nothing more (a compressor knows no networks).
#include <cstddef>
#include <span>
#include <vector>

namespace sgdsim::compression {

// One tensor as a rows × cols matrix, stored row by row in the flat vector. Weight matrices are out × in,
// convolution kernels out_channels × (in_channels · kernel area); vectors (biases, scales) are 1 × size.
struct Tensor {
  std::size_t rows = 1, cols = 0;
  std::size_t size() const { return rows * cols; }
  bool is_matrix() const { return rows > 1 && cols > 1; }
  bool operator==(const Tensor&) const = default;
};

class Layout {
 public:
  // No tensors known: every vector is one tensor.
  Layout() = default;
  // Throws std::invalid_argument on an empty tensor.
  explicit Layout(std::vector<Tensor> tensors);

  std::span<const Tensor> tensors() const { return tensors_; }
  std::size_t dimension() const { return dimension_; }
  // The tensors of a d-vector: these when they add up to d, otherwise one 1 × d tensor (a vector that is not
  // the model's, e.g. the k values a sparsifier kept, has no tensors of its own).
  std::vector<Tensor> of(std::size_t d) const;

 private:
  std::vector<Tensor> tensors_;
  std::size_t dimension_ = 0;
};

}  // namespace sgdsim::compression
