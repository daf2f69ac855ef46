#include "algorithms/protocols/buckets.hpp"

#include <algorithm>

namespace sgdsim::protocols {

std::vector<GradientBucket> gradient_buckets(const compression::Layout& layout, std::size_t dimension,
                                             double cap_bytes) {
  const std::vector<compression::Tensor> tensors = layout.of(dimension);
  std::vector<GradientBucket> buckets;
  std::size_t end = dimension;  // the flat position after the next tensor in backward order
  GradientBucket open;
  for (auto t = tensors.rbegin(); t != tensors.rend(); ++t) {
    end -= t->size();
    open.begin = end;
    open.first_tensor = static_cast<std::size_t>(tensors.rend() - t) - 1;
    open.size += t->size();
    open.tensors.insert(open.tensors.begin(), *t);
    // DDP closes a bucket once it holds at least the cap.
    if (4.0 * static_cast<double>(open.size) >= cap_bytes) {
      buckets.push_back(std::move(open));
      open = {};
    }
  }
  if (open.size > 0) buckets.push_back(std::move(open));
  for (GradientBucket& bucket : buckets)
    bucket.backward_share = backward_share * static_cast<double>(bucket.size) /
                            static_cast<double>(std::max<std::size_t>(dimension, 1));
  return buckets;
}

std::vector<std::pair<std::size_t, std::size_t>> backward_layers(const std::vector<GradientBucket>& buckets,
                                                                 std::span<const std::size_t> tensor_layers,
                                                                 std::size_t layers) {
  std::vector<std::pair<std::size_t, std::size_t>> pieces;
  std::size_t reached = layers;  // the backward pass has gone through layers [reached, layers)
  for (const GradientBucket& bucket : buckets) {
    std::size_t ready = reached;
    for (std::size_t t = bucket.first_tensor; t < bucket.first_tensor + bucket.tensors.size(); ++t)
      ready = std::min(ready, tensor_layers[t]);
    if (&bucket == &buckets.back()) ready = 0;
    pieces.emplace_back(ready, reached);
    reached = ready;
  }
  return pieces;
}

}  // namespace sgdsim::protocols
