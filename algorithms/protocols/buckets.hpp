#pragma once
// Gradient buckets as PyTorch DDP forms them (Li et al., VLDB 2020): the parameter tensors in backward order
// (the last layer's first: its gradient is ready first), packed into buckets of at most `cap` bytes of fp32
// gradient, a tensor never split; a tensor larger than the cap is a bucket of its own. Since the backward
// order is the reverse of the flat order, every bucket is one contiguous range of the flat vector.
#include <cstddef>
#include <vector>

#include "algorithms/compression/layout.hpp"

namespace sgdsim::protocols {

struct GradientBucket {
  std::size_t begin = 0, size = 0;           // the range of the flat vector
  std::vector<compression::Tensor> tensors;  // in flat order
  // The fraction of one minibatch gradient's work that makes this bucket's gradients: its tensors' share of
  // the backward pass.
  double backward_share = 0;
};

// The forward pass's share of a minibatch gradient, and the backward pass's. With the flop conventions of
// docs/learning.md a layer's backward pass costs two forward passes (the weight gradient and the input
// gradient), so the forward pass is a third of the whole.
inline constexpr double forward_share = 1.0 / 3.0;
inline constexpr double backward_share = 2.0 / 3.0;

// The buckets of a d-vector with these tensors, in backward order (ready first, first). A tensor's share of
// the backward pass is proportional to its parameters (exact for fully connected layers, whose backward
// flops are 4 per weight per sample; an approximation for convolutions, see docs/protocols.md).
std::vector<GradientBucket> gradient_buckets(const compression::Layout& layout, std::size_t dimension,
                                             double cap_bytes);

}  // namespace sgdsim::protocols
