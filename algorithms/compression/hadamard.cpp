#include "algorithms/compression/hadamard.hpp"

#include <bit>
#include <cmath>

#include "common/rng.hpp"

namespace sgdsim::compression {

void walsh_hadamard(std::span<double> v) {
  for (std::size_t h = 1; h < v.size(); h *= 2)
    for (std::size_t i = 0; i < v.size(); i += 2 * h)
      for (std::size_t j = i; j < i + h; ++j) {
        const double a = v[j], b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
}

RandomizedHadamard::RandomizedHadamard(std::size_t dimension, std::uint64_t seed)
    : dimension_(dimension),
      signs_(std::bit_ceil(std::max<std::size_t>(dimension, 1))),
      scratch_(signs_.size()) {
  Rng rng = Rng::stream(seed, 0, Purpose::compression);
  for (double& s : signs_) s = (rng() >> 63) != 0 ? -1.0 : 1.0;
}

void RandomizedHadamard::forward(std::span<const float> x, std::span<float> out) const {
  const std::size_t size = padded();
  for (std::size_t c = 0; c < size; ++c) scratch_[c] = c < x.size() ? signs_[c] * x[c] : 0.0;
  walsh_hadamard(scratch_);
  const double norm = 1.0 / std::sqrt(static_cast<double>(size));
  for (std::size_t c = 0; c < size; ++c) out[c] = static_cast<float>(scratch_[c] * norm);
}

void RandomizedHadamard::inverse(std::span<const float> y, std::span<float> out) const {
  const std::size_t size = padded();
  for (std::size_t c = 0; c < size; ++c) scratch_[c] = y[c];
  walsh_hadamard(scratch_);
  const double norm = 1.0 / std::sqrt(static_cast<double>(size));
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = static_cast<float>(signs_[c] * scratch_[c] * norm);
}

}  // namespace sgdsim::compression
