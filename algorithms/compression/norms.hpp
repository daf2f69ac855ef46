#pragma once
// Norms of one bucket in a fixed summation order (four interleaved partial sums, combined pairwise), so every
// machine and compiler gets the same bits and the loop still vectorises.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

namespace sgdsim::compression {

struct BucketNorms {
  double sum_squares =
      0;  // not finite iff some value is not finite (float32 squares cannot overflow a double sum)
  float max_abs = 0;
  double sum_abs = 0;
};

inline BucketNorms bucket_norms(std::span<const float> values) {
  double sq[4] = {0, 0, 0, 0}, ab[4] = {0, 0, 0, 0};
  float mx[4] = {0, 0, 0, 0};
  const std::size_t n = values.size();
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; ++k) {
      const double v = values[i + k];
      const float a = std::fabs(values[i + k]);
      sq[k] += v * v;
      ab[k] += a;
      mx[k] = mx[k] < a ? a : mx[k];
    }
  }
  for (int k = 0; i < n; ++i, ++k) {
    const double v = values[i];
    const float a = std::fabs(values[i]);
    sq[k] += v * v;
    ab[k] += a;
    mx[k] = mx[k] < a ? a : mx[k];
  }
  BucketNorms norms;
  norms.sum_squares = (sq[0] + sq[1]) + (sq[2] + sq[3]);
  norms.sum_abs = (ab[0] + ab[1]) + (ab[2] + ab[3]);
  norms.max_abs = std::max(std::max(mx[0], mx[1]), std::max(mx[2], mx[3]));
  return norms;
}

}  // namespace sgdsim::compression
