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

}  // namespace sgdsim::protocols
