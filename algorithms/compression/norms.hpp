#pragma once
// Norms of one bucket in a fixed summation order (eight interleaved partial sums, combined pairwise), so
// every machine and compiler gets the same bits and the loops vectorise (the L1 and L2 chunks by simd.cpp's
// kernels, on every instruction set). Only the norm asked for is computed.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "algorithms/compression/simd.hpp"

namespace sgdsim::compression {

enum class NormsWanted { l2, max_abs, l1 };

struct BucketNorms {
  bool non_finite = false;  // some value is infinite or NaN
  double sum_squares = 0;
  float max_abs = 0;
  double sum_abs = 0;
};

template <NormsWanted wanted, bool fast = true>
BucketNorms bucket_norms(std::span<const float> values) {
  // Eight lanes over chunks of 64 values, each chunk added into double lanes.
  constexpr std::size_t lanes = 8, chunk = 64;
  double sum[lanes] = {};
  float mx[lanes] = {};
  std::uint32_t special[lanes] = {};  // lane saw an exponent of all ones (inf or NaN)
  const std::size_t n = values.size();
  const float* v = values.data();
  auto term = [](float x) {
    const double y = x;
    if constexpr (wanted == NormsWanted::l2)
      return y * y;
    else
      return std::fabs(y);
  };
  // A sum of squares or magnitudes is finite exactly when every term is (finite floats cannot overflow a
  // double sum), so those loops skip the per-value test and look at the total; max |x| cannot tell (NaN
  // loses every comparison), so it tests each value.
  constexpr bool track_special = wanted == NormsWanted::max_abs;
  std::size_t i = 0;
  // The L1 and L2 chunks in vectors (simd.hpp; the compiler's own vectors here would be SSE2's). The fast L2
  // sums each chunk's squares in float lanes, then adds them in double: a square can overflow or underflow in
  // float, so a total that is not comfortably inside float's range is recomputed below entirely in double,
  // by the loop that follows (which also serves max |x|).
  if constexpr (wanted == NormsWanted::l1) {
    simd::l1_chunk_sums(v, n / chunk, sum);
    i = n / chunk * chunk;
  } else if constexpr (wanted == NormsWanted::l2 && fast) {
    simd::l2_chunk_sums(v, n / chunk, sum);
    i = n / chunk * chunk;
  }
  for (; i + chunk <= n; i += chunk) {
    double part[lanes] = {};
    for (std::size_t j = 0; j < chunk; j += lanes) {
      for (std::size_t k = 0; k < lanes; ++k) {
        const float x = v[i + j + k];
        if constexpr (track_special)
          special[k] |=
              static_cast<std::uint32_t>((std::bit_cast<std::uint32_t>(x) & 0x7F800000u) == 0x7F800000u);
        if constexpr (wanted == NormsWanted::max_abs)
          mx[k] = mx[k] < std::fabs(x) ? std::fabs(x) : mx[k];
        else
          part[k] += term(x);
      }
    }
    for (std::size_t k = 0; k < lanes; ++k) sum[k] += part[k];
  }
  for (std::size_t k = 0; i < n; ++i, k = (k + 1) % lanes) {
    const float x = v[i];
    if constexpr (track_special)
      special[k] |=
          static_cast<std::uint32_t>((std::bit_cast<std::uint32_t>(x) & 0x7F800000u) == 0x7F800000u);
    if constexpr (wanted == NormsWanted::max_abs)
      mx[k] = mx[k] < std::fabs(x) ? std::fabs(x) : mx[k];
    else
      sum[k] += term(x);
  }
  BucketNorms norms;
  std::uint32_t any = 0;
  for (std::size_t k = 0; k < lanes; ++k) any |= special[k];
  norms.non_finite = any != 0;
  const double total = ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]));
  if constexpr (wanted != NormsWanted::max_abs) norms.non_finite = !std::isfinite(total);
  if constexpr (wanted == NormsWanted::l2 && fast) {
    // Float squares may overflow or underflow: outside a safe range (or not finite) redo it all in double.
    if (!(total >= 1e-20 && total <= 1e30)) return bucket_norms<wanted, false>(values);
  }
  if (wanted == NormsWanted::l2) norms.sum_squares = total;
  if (wanted == NormsWanted::l1) norms.sum_abs = total;
  for (std::size_t k = 0; k < lanes; ++k) norms.max_abs = std::max(norms.max_abs, mx[k]);
  return norms;
}

inline BucketNorms bucket_norms(std::span<const float> values, NormsWanted wanted) {
  switch (wanted) {
    case NormsWanted::l2:
      return bucket_norms<NormsWanted::l2>(values);
    case NormsWanted::max_abs:
      return bucket_norms<NormsWanted::max_abs>(values);
    case NormsWanted::l1:
      break;
  }
  return bucket_norms<NormsWanted::l1>(values);
}

// ||v||² and ||approx − v||² in double, for the relative error of a compression. The same fixed order as
// bucket_norms (coordinate c in partial sum c mod 8, combined pairwise), so the bits do not depend on the
// machine, and independent partial sums (vectors, simd.hpp) instead of one chain of dependent adds.
struct SquaredError {
  double norm = 0;   // Σ v_c²
  double error = 0;  // Σ (approx_c − v_c)²
};

inline SquaredError squared_error(std::span<const float> v, std::span<const float> approx) {
  double norm[8] = {}, error[8] = {};
  simd::squared_error(v.data(), approx.data(), v.size(), norm, error);
  const auto pairwise = [](const double* s) {
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  };
  return {pairwise(norm), pairwise(error)};
}

}  // namespace sgdsim::compression
