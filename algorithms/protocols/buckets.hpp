#pragma once
// Gradient buckets as PyTorch DDP forms them (Li et al., VLDB 2020): the parameter tensors in backward order
// (the last layer's first: its gradient is ready first), packed into buckets of at most `cap` bytes of fp32
// gradient, a tensor never split; a tensor larger than the cap is a bucket of its own. Since the backward
// order is the reverse of the flat order, every bucket is one contiguous range of the flat vector.
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "algorithms/compression/layout.hpp"

namespace sgdsim::protocols {

struct GradientBucket {
  std::size_t begin = 0, size = 0;           // the range of the flat vector
  std::vector<compression::Tensor> tensors;  // in flat order
  std::size_t first_tensor = 0;              // the index of tensors.front() among the layout's
  // The fraction of one minibatch gradient's work that makes this bucket's gradients when the model's layers
  // are unknown: its tensors' share of the backward pass.
  double backward_share = 0;
};

// The forward pass's share of a minibatch gradient, and the backward pass's, for a model whose layers are
// unknown. With the flop conventions of docs/learning.md a layer's backward pass costs two forward passes
// (the weight gradient and the input gradient), so the forward pass is a third of the whole.
inline constexpr double forward_share = 1.0 / 3.0;
inline constexpr double backward_share = 2.0 / 3.0;

// The buckets of a d-vector with these tensors, in backward order (ready first, first). A tensor's share of
// the backward pass is proportional to its parameters (exact for fully connected layers, whose backward
// flops are 4 per weight per sample; an approximation for convolutions, see docs/protocols.md).
std::vector<GradientBucket> gradient_buckets(const compression::Layout& layout, std::size_t dimension,
                                             double cap_bytes);

// For a model whose layers are known (tensor_layers: each tensor's layer, learning::Model::tensor_layers),
// the layers whose backward pass each bucket waits for, as [begin, end) in forward order. The backward pass
// goes from the last layer down; bucket k is ready once it has gone through the first layer holding one of
// its tensors, and not before bucket k − 1, so it waits for layers [ready_k, ready_{k−1}) (the first bucket
// from the last layer, the last bucket down to layer 0): the buckets' layers are the whole backward pass.
std::vector<std::pair<std::size_t, std::size_t>> backward_layers(const std::vector<GradientBucket>& buckets,
                                                                 std::span<const std::size_t> tensor_layers,
                                                                 std::size_t layers);

}  // namespace sgdsim::protocols
