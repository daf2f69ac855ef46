#pragma once
// Test oracles written from docs/algorithms.md alone (not from the library): the level tables, the exact
// per-coordinate rounding distribution, and vectors to feed the compressors.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/rng.hpp"

namespace sgdsim::testing {

// Signed, ascending levels in double.
inline std::vector<double> paper_uniform_levels(int s) {
  std::vector<double> t;
  for (int i = -s; i <= s; ++i) t.push_back(static_cast<double>(i) / s);
  return t;
}
inline std::vector<double> paper_exponential_levels(int s, double p) {
  std::vector<double> t;
  for (int i = 0; i <= s; ++i) t.push_back(-std::pow(p, i));
  t.push_back(0.0);
  for (int i = s; i >= 0; --i) t.push_back(std::pow(p, i));
  return t;
}
inline std::vector<double> code_uniform_levels(int bits) {
  const int n = 1 << bits;
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(-1.0 + 2.0 * i / (n - 1));
  return t;
}
inline std::vector<double> code_exponential_levels(int bits, double p) {
  const int k = 1 << (bits - 1);
  std::vector<double> t;
  for (int i = 0; i < k; ++i) t.push_back(-std::pow(p, i));
  for (int i = k - 1; i >= 0; --i) t.push_back(std::pow(p, i));
  return t;
}

// The two-point distribution of one quantised coordinate: `low` with probability 1 - p, `high` with p.
struct Rounding {
  double low, high, p;
  double mean() const { return low + p * (high - low); }
  double variance() const { return (1 - p) * p * (high - low) * (high - low); }
};

// Coordinate v of a bucket with norm `norm` (already rounded to float, as on the wire).
inline Rounding round_oracle(double v, double norm, const std::vector<double>& levels) {
  if (norm == 0) return {0, 0, 0};
  const double y = std::clamp(v / norm, levels.front(), levels.back());
  std::size_t j = 0;
  while (j + 2 < levels.size() && levels[j + 1] <= y) ++j;
  const double p = (y - levels[j]) / (levels[j + 1] - levels[j]);
  return {norm * levels[j], norm * levels[j + 1], p};
}

inline double l2_norm(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}
inline double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}
inline double squared_distance(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
  return s;
}

// Vectors of several shapes: Gaussian, uniform, heavy-tailed, sparse, constant magnitude, with zeros.
inline std::vector<float> test_vector(const std::string& shape, std::size_t d, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(d);
  for (std::size_t i = 0; i < d; ++i) {
    double x;
    if (shape == "gaussian")
      x = rng.normal();
    else if (shape == "uniform")
      x = 2 * rng.uniform() - 1;
    else if (shape == "heavy")
      x = rng.normal() / std::max(1e-3, rng.uniform());
    else if (shape == "sparse")
      x = rng.below(10) == 0 ? rng.normal() : 0.0;
    else if (shape == "constant")
      x = rng.below(2) ? 1.0 : -1.0;
    else
      x = 0.0;  // "zero"
    v[i] = static_cast<float>(x);
  }
  return v;
}

// A w-bit field of a message read by hand (most significant bit first), for checking wire formats without
// the library's reader.
inline std::uint64_t bits_at(const std::vector<std::uint8_t>& bytes, std::size_t bit, unsigned width) {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i, ++bit)
    value = value << 1 | ((bytes.at(bit / 8) >> (7 - bit % 8)) & 1u);
  return value;
}
inline float float_at(const std::vector<std::uint8_t>& bytes, std::size_t bit) {
  const auto pattern = static_cast<std::uint32_t>(bits_at(bytes, bit, 32));
  float f;
  static_assert(sizeof f == sizeof pattern);
  __builtin_memcpy(&f, &pattern, 4);
  return f;
}
// Bytes of a message of `bits` bits, padded to a whole byte.
inline std::size_t padded_bytes(std::size_t bits) {
  return (bits + 7) / 8;
}

// Elias omega's length of k >= 1 (docs/compression.md): a final 0, then the groups k, floor(log2 k), ...
// down to and excluding 1, each in binary.
inline unsigned omega_length(std::uint64_t k) {
  unsigned length = 1;
  while (k > 1) {
    unsigned width = 0;
    for (std::uint64_t n = k; n; n >>= 1) ++width;
    length += width;
    k = width - 1;
  }
  return length;
}

}  // namespace sgdsim::testing
