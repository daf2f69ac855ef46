// Highway compiles this file once per instruction set (foreach_target.h re-includes it); HWY_EXPORT and
// HWY_DYNAMIC_DISPATCH at the end pick the best one the CPU supports on first use. See simd.hpp.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "algorithms/compression/simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/level_table.hpp"
#include "algorithms/compression/simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace sgdsim::compression::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One coordinate of SquaredError's sums: lane k gains x² and (a − x)², in double.
HWY_INLINE void add_squared_error(float v, float approx, std::size_t k, double* norm, double* error) {
  const double x = v;
  const double e = static_cast<double>(approx) - x;
  norm[k] += x * x;
  error[k] += e * e;
}

#if HWY_TARGET == HWY_SCALAR
// The scalar target (the baseline for CPUs without SSSE3, and the reference the tests compare every vector
// target against) runs the rounders' scalar definitions one coordinate at a time.

HWY_INLINE std::uint32_t round_one(const RoundJob& job, float x, std::uint64_t draw, bool odd) {
  float u0, u1;
  uniform_pair(draw, u0, u1);
  const float u = odd ? u1 : u0;
  const float y = job.divide ? x / job.factor : x * job.factor;
  switch (job.shape) {
    case RoundJob::Shape::mirrored_uniform:
      return LevelTable::MirroredUniform{job.steps, job.zero}(y, u);
    case RoundJob::Shape::evenly_spaced:
      return LevelTable::EvenlySpaced{job.low, job.steps, job.last}(y, u);
    case RoundJob::Shape::general:
    case RoundJob::Shape::halving:
      break;
  }
  // The largest j <= last with values[j] <= y: where the grid walk of LevelTable::General ends.
  const float c = std::clamp(y, job.low, job.high);
  const auto j =
      static_cast<std::uint32_t>(std::upper_bound(job.values, job.values + job.last + 1, c) - job.values - 1);
  const float p = (c - job.values[j]) * job.inverse_gap[j];
  return j + (u < p ? 1u : 0u);
}

void RoundIndices(const RoundJob& job, const float* v, std::size_t n, Rng& rng, std::uint16_t* indices) {
  std::uint64_t draw = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 2 == 0) draw = rng();
    indices[i] = static_cast<std::uint16_t>(round_one(job, v[i], draw, i % 2 != 0));
  }
}

void EncodeFixed(const RoundJob& job, const float* v, std::size_t n, unsigned w, Rng& rng, BitCursor& out) {
  std::uint64_t draw = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 2 == 0) draw = rng();
    out.write(round_one(job, v[i], draw, i % 2 != 0), w);
  }
}

void SquaredError(const float* v, const float* approx, std::size_t n, double* norm, double* error) {
  for (std::size_t i = 0; i < n; ++i) add_squared_error(v[i], approx[i], i % 8, norm, error);
}

void L1ChunkSums(const float* v, std::size_t chunks, double* sum) {
  for (std::size_t c = 0; c < chunks; ++c, v += 64) {
    double part[8] = {};
    for (std::size_t j = 0; j < 64; j += 8) {
      for (std::size_t k = 0; k < 8; ++k) part[k] += std::fabs(static_cast<double>(v[j + k]));
    }
    for (std::size_t k = 0; k < 8; ++k) sum[k] += part[k];
  }
}

void L2ChunkSums(const float* v, std::size_t chunks, double* sum) {
  for (std::size_t c = 0; c < chunks; ++c, v += 64) {
    float part[8] = {};
    for (std::size_t j = 0; j < 64; j += 8) {
      for (std::size_t k = 0; k < 8; ++k) part[k] += v[j + k] * v[j + k];
    }
    for (std::size_t k = 0; k < 8; ++k) sum[k] += part[k];
  }
}

void NonzeroBits(const std::uint16_t* indices, std::size_t n, std::uint16_t zero, std::uint64_t* bits) {
  for (std::size_t w = 0; w < (n + 63) / 64; ++w) bits[w] = 0;
  for (std::size_t i = 0; i < n; ++i) bits[i / 64] |= std::uint64_t{indices[i] != zero} << (i % 64);
}

std::size_t ExpandLevels(const std::uint16_t* indices, std::size_t n, const float* levels, std::size_t size,
                         float norm, bool scaled, float scale, float* out) {
  for (std::size_t i = 0; i < n; ++i) {
    if (indices[i] >= size) return i;
    float value = norm * levels[indices[i]];
    if (scaled) value *= scale;
    out[i] = value;
  }
  return n;
}

std::uint32_t MaxAbsBits(const float* v, std::size_t n) {
  std::uint32_t result = 0;
  for (std::size_t i = 0; i < n; ++i)
    result = std::max(result, std::bit_cast<std::uint32_t>(v[i]) & 0x7FFFFFFFu);
  return result;
}

bool AnyNonFinite(const float* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return true;
  }
  return false;
}

std::size_t CollectAtLeast(const float* v, std::size_t n, std::uint32_t threshold_bits,
                           std::uint32_t* positions, bool& non_finite) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto bits = std::bit_cast<std::uint32_t>(v[i]);
    if ((bits & 0x7F800000u) == 0x7F800000u) non_finite = true;
    if ((bits & 0x7FFFFFFFu) >= threshold_bits) positions[count++] = static_cast<std::uint32_t>(i);
  }
  return count;
}

void SignWords(const float* v, std::size_t words, std::uint32_t* out) {
  for (std::size_t j = 0; j < words; ++j) {
    std::uint32_t word = 0;
    for (std::size_t k = 0; k < 32; ++k) {
      const float x = v[32 * j + k];
      word = (word << 1) | (std::signbit(x) && x != 0.0f ? 1u : 0u);
    }
    out[j] = word;
  }
}

void ExpandSigns(const std::uint32_t* words, std::size_t count, float scale, float* out) {
  for (std::size_t j = 0; j < count; ++j) {
    for (std::size_t k = 0; k < 32; ++k) out[32 * j + k] = (words[j] >> (31 - k)) & 1u ? -scale : scale;
  }
}

#else  // vector targets

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using DU = hn::RebindToUnsigned<DF>;
using D64 = hn::Repartition<std::uint64_t, DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;

// The longest vector any target has (AVX-512: 16 floats): stack room for one partial vector at a tail.
constexpr std::size_t max_lanes = 64;

// Level indices of hn::Lanes(DF) coordinates as int32 lanes: exactly the scalar rounders of level_table.hpp.
template <RoundJob::Shape shape>
HWY_INLINE VI round_vector(const RoundJob& job, const float* v, const std::uint64_t* draws) {
  const DF df;
  const DI di;
  const DU du;
  const D64 d64;
  // Draw j holds coordinate 2j's bits in its high half and 2j+1's in its low half; a 32-bit view of it has
  // them the other way round, so swap neighbours, then keep 24 bits.
  const auto raw = hn::Shuffle2301(hn::BitCast(du, hn::LoadU(d64, draws)));
  const VF u = hn::Mul(hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<8>(raw))), hn::Set(df, 0x1.0p-24f));
  const VF x = hn::LoadU(df, v);
  const VF y = job.divide ? hn::Div(x, hn::Set(df, job.factor)) : hn::Mul(x, hn::Set(df, job.factor));
  // A true comparison as a vector is -1: subtracting it adds one.
  const auto up = [&](VF a, VF b) { return hn::VecFromMask(di, hn::RebindMask(di, hn::Lt(a, b))); };
  if constexpr (shape == RoundJob::Shape::mirrored_uniform) {
    {
      const VF steps = hn::Set(df, job.steps);
      const VF a = hn::Min(hn::Mul(hn::Abs(y), steps), steps);
      const VI k = hn::ConvertTo(di, a);
      const VI m = hn::Sub(k, up(u, hn::Sub(a, hn::ConvertTo(df, k))));
      const VI sign = hn::ShiftRight<31>(hn::BitCast(di, y));
      return hn::Add(hn::Set(di, static_cast<std::int32_t>(job.zero)), hn::Sub(hn::Xor(m, sign), sign));
    }
  } else if constexpr (shape == RoundJob::Shape::evenly_spaced) {
    {
      const VF t = hn::Mul(hn::Sub(y, hn::Set(df, job.low)), hn::Set(df, job.steps));
      const VF a = hn::IfThenElse(hn::Gt(t, hn::Zero(df)), t, hn::Zero(df));
      const VI j = hn::Min(hn::ConvertTo(di, a), hn::Set(di, static_cast<std::int32_t>(job.last)));
      return hn::Sub(j, up(u, hn::Sub(a, hn::ConvertTo(df, j))));
    }
  }
  // General tables. The interval: j = the largest j <= last with values[j] <= y, where the scalar grid
  // walk ends.
  const VF c = hn::Min(hn::Max(y, hn::Set(df, job.low)), hn::Set(df, job.high));
  VI j = hn::Zero(di);
  if constexpr (shape == RoundJob::Shape::halving) {
    // Levels ±2^k, k = min_exponent..0 (count of each sign), and maybe 0 between them. With E the exponent
    // of c (-127 for zeros and subnormals): c >= 0 is at or above the count-clamped number of positive levels
    // with k <= E; c < 0 at or above the negative levels with 2^k >= |c|, i.e. k >= ceil(log2 |c|).
    const VI zero = hn::Zero(di);
    const VI count = hn::Set(di, static_cast<std::int32_t>(job.count));
    const auto clamp = [&](VI a) { return hn::Min(hn::Max(a, zero), count); };
    const VI bits = hn::BitCast(di, c);
    const VI magnitude = hn::And(bits, hn::Set(di, 0x7FFFFFFF));
    const VI exponent = hn::Sub(hn::ShiftRight<23>(magnitude), hn::Set(di, 127));
    const auto first_positive = static_cast<std::int32_t>(job.count + job.zero);
    const VI above = hn::Min(
        hn::Add(clamp(hn::Sub(exponent, hn::Set(di, job.min_exponent - 1))), hn::Set(di, first_positive - 1)),
        hn::Set(di, static_cast<std::int32_t>(job.last)));
    // A true comparison is -1: subtracting it adds one.
    const VI ceiling =
        hn::Sub(exponent, hn::VecFromMask(di, hn::Ne(hn::And(magnitude, hn::Set(di, 0x7FFFFF)), zero)));
    VI below = hn::Sub(clamp(hn::Sub(hn::Set(di, 1), ceiling)), hn::Set(di, 1));
    if (job.zero) below = hn::Sub(below, hn::VecFromMask(di, hn::Eq(magnitude, zero)));  // -0 is on level 0
    j = hn::IfThenElse(hn::Lt(bits, zero), below, above);
  } else if (job.last <= 32) {
    // Small tables (NUQSGD's): count the levels at or below y.
    for (std::uint32_t t = 1; t <= job.last; ++t)
      j = hn::Sub(j, hn::VecFromMask(di, hn::RebindMask(di, hn::Le(hn::Set(df, job.values[t]), c))));
  } else {
    // Larger ones: a branch-free binary search, one gather per halving.
    std::uint32_t length = job.last + 1;
    while (length > 1) {
      const std::uint32_t half = length / 2;
      const VI middle = hn::Add(j, hn::Set(di, static_cast<std::int32_t>(half)));
      const auto below = hn::RebindMask(di, hn::Le(hn::GatherIndex(df, job.values, middle), c));
      j = hn::IfThenElse(below, middle, j);
      length -= half;
    }
  }
  VF low, inverse_gap;
  if (job.last < hn::Lanes(df)) {
    // The table fits one vector (NUQSGD s <= 7 on AVX-512): a lane permutation instead of two gathers.
    const auto at = hn::IndicesFromVec(df, j);
    low = hn::TableLookupLanes(hn::LoadU(df, job.padded_values), at);
    inverse_gap = hn::TableLookupLanes(hn::LoadU(df, job.padded_inverse_gap), at);
  } else {
    low = hn::GatherIndex(df, job.values, j);
    inverse_gap = hn::GatherIndex(df, job.inverse_gap, j);
  }
  return hn::Sub(j, up(u, hn::Mul(hn::Sub(c, low), inverse_gap)));
}

// Calls body(std::integral_constant<Shape, job.shape>): the kernels' loops are compiled once per shape.
template <typename Body>
HWY_INLINE void with_shape(const RoundJob& job, Body body) {
  switch (job.shape) {
    case RoundJob::Shape::mirrored_uniform:
      return body(std::integral_constant<RoundJob::Shape, RoundJob::Shape::mirrored_uniform>{});
    case RoundJob::Shape::evenly_spaced:
      return body(std::integral_constant<RoundJob::Shape, RoundJob::Shape::evenly_spaced>{});
    case RoundJob::Shape::halving:
      return body(std::integral_constant<RoundJob::Shape, RoundJob::Shape::halving>{});
    case RoundJob::Shape::general:
      break;
  }
  return body(std::integral_constant<RoundJob::Shape, RoundJob::Shape::general>{});
}

// The generator is one sequential stream (xoshiro256**), so it stays scalar: each step draws the words for
// one vector into a small buffer, and the out-of-order core overlaps those scalar instructions with the
// vector rounding of the previous step. A local copy of the generator stays in registers.
template <RoundJob::Shape shape>
void round_indices_as(const RoundJob& job, const float* v, std::size_t n, Rng& rng, std::uint16_t* indices) {
  const DI di;
  const hn::Rebind<std::uint16_t, DI> d16;
  const std::size_t lanes = hn::Lanes(di);
  Rng local = rng;
  alignas(64) std::uint64_t draws[max_lanes / 2] = {};
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (std::size_t j = 0; j < lanes / 2; ++j) draws[j] = local();
    hn::StoreU(hn::DemoteTo(d16, round_vector<shape>(job, v + i, draws)), d16, indices + i);
  }
  if (i < n) {
    alignas(64) float tail[max_lanes] = {};
    alignas(64) std::uint16_t tail_indices[max_lanes];
    std::copy(v + i, v + n, tail);
    for (std::size_t j = 0; j < (n - i + 1) / 2; ++j) draws[j] = local();
    hn::StoreU(hn::DemoteTo(d16, round_vector<shape>(job, tail, draws)), d16, tail_indices);
    std::copy(tail_indices, tail_indices + (n - i), indices + i);
  }
  rng = local;
}

HWY_INLINE hn::Vec<D64> quads_of(VI index, unsigned w) {
  const D64 d64;
  // 64-bit lane j holds indices 2j (low half) and 2j+1: pair them, then pair the pairs of lanes 2m and 2m+1
  // (always in one 128-bit block), leaving each quad in the even lane.
  const auto both = hn::BitCast(d64, index);
  const auto pair = hn::Or(hn::ShiftLeftSame(hn::And(both, hn::Set(d64, 0xFFFFFFFFu)), static_cast<int>(w)),
                           hn::ShiftRight<32>(both));
  return hn::Or(hn::ShiftLeftSame(pair, static_cast<int>(2 * w)), hn::ShiftRightLanes<1>(d64, pair));
}

template <RoundJob::Shape shape>
void encode_fixed_as(const RoundJob& job, const float* v, std::size_t n, unsigned w, Rng& rng,
                     BitCursor& out) {
  const DI di;
  const D64 d64;
  const std::size_t lanes = hn::Lanes(di);
  Rng local = rng;
  BitCursor cursor = out;
  alignas(64) std::uint64_t draws[max_lanes / 2] = {};
  alignas(64) std::uint64_t quads[max_lanes / 2];
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (std::size_t j = 0; j < lanes / 2; ++j) draws[j] = local();
    hn::Store(quads_of(round_vector<shape>(job, v + i, draws), w), d64, quads);
    // w <= 8: four indices make a field of at most 32 bits, one write.
    for (std::size_t q = 0; q < lanes / 4; ++q) cursor.write(quads[2 * q], 4 * w);
  }
  if (i < n) {
    alignas(64) float tail[max_lanes] = {};
    alignas(64) std::int32_t tail_indices[max_lanes];
    std::copy(v + i, v + n, tail);
    for (std::size_t j = 0; j < (n - i + 1) / 2; ++j) draws[j] = local();
    hn::Store(round_vector<shape>(job, tail, draws), di, tail_indices);
    for (std::size_t k = 0; k < n - i; ++k) cursor.write(static_cast<std::uint32_t>(tail_indices[k]), w);
  }
  rng = local;
  out = cursor;
}

void RoundIndices(const RoundJob& job, const float* v, std::size_t n, Rng& rng, std::uint16_t* indices) {
  with_shape(job, [&](auto shape) { round_indices_as<shape.value>(job, v, n, rng, indices); });
}

void EncodeFixed(const RoundJob& job, const float* v, std::size_t n, unsigned w, Rng& rng, BitCursor& out) {
  with_shape(job, [&](auto shape) { encode_fixed_as<shape.value>(job, v, n, w, rng, out); });
}

void NonzeroBits(const std::uint16_t* indices, std::size_t n, std::uint16_t zero, std::uint64_t* bits) {
  const hn::ScalableTag<std::uint16_t> d16;
  const std::size_t lanes = hn::Lanes(d16);  // at least 8, so each vector's mask is whole bytes
  const auto z = hn::Set(d16, zero);
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    std::uint8_t bytes[16] = {};
    for (std::size_t k = 0; k < 64; k += lanes)
      hn::StoreMaskBits(d16, hn::Ne(hn::LoadU(d16, indices + i + k), z), bytes + k / 8);
    std::memcpy(bits + i / 64, bytes, 8);
  }
  if (i < n) {
    std::uint64_t word = 0;
    for (std::size_t k = 0; i + k < n; ++k) word |= std::uint64_t{indices[i + k] != zero} << k;
    bits[i / 64] = word;
  }
}

std::size_t ExpandLevels(const std::uint16_t* indices, std::size_t n, const float* levels, std::size_t size,
                         float norm, bool scaled, float scale, float* out) {
  const DF df;
  const DI di;
  const hn::Rebind<std::uint16_t, DI> d16;
  const std::size_t lanes = hn::Lanes(df);
  const VF vn = hn::Set(df, norm), vs = hn::Set(df, scale);
  const VI limit = hn::Set(di, static_cast<std::int32_t>(size));
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const VI index = hn::BitCast(di, hn::PromoteTo(hn::RebindToUnsigned<DI>(), hn::LoadU(d16, indices + i)));
    if (!hn::AllTrue(di, hn::Lt(index, limit))) break;
    VF value = hn::Mul(vn, hn::GatherIndex(df, levels, index));
    if (scaled) value = hn::Mul(value, vs);
    hn::StoreU(value, df, out + i);
  }
  for (; i < n; ++i) {
    if (indices[i] >= size) return i;
    float value = norm * levels[indices[i]];
    if (scaled) value *= scale;
    out[i] = value;
  }
  return n;
}

std::uint32_t MaxAbsBits(const float* v, std::size_t n) {
  const DF df;
  const DU du;
  const std::size_t lanes = hn::Lanes(df);
  const auto magnitude = hn::Set(du, 0x7FFFFFFFu);
  auto top = hn::Zero(du);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    top = hn::Max(top, hn::And(hn::BitCast(du, hn::LoadU(df, v + i)), magnitude));
  std::uint32_t result = hn::GetLane(hn::MaxOfLanes(du, top));
  for (; i < n; ++i) result = std::max(result, std::bit_cast<std::uint32_t>(v[i]) & 0x7FFFFFFFu);
  return result;
}

bool AnyNonFinite(const float* v, std::size_t n) {
  const DF df;
  const DU du;
  const std::size_t lanes = hn::Lanes(df);
  const auto exponent = hn::Set(du, 0x7F800000u);
  auto top = hn::Zero(du);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    top = hn::Max(top, hn::And(hn::BitCast(du, hn::LoadU(df, v + i)), exponent));
  if (!hn::AllFalse(du, hn::Eq(top, exponent))) return true;
  for (; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, v + i, 4);
    if ((bits & 0x7F800000u) == 0x7F800000u) return true;
  }
  return false;
}

std::size_t CollectAtLeast(const float* v, std::size_t n, std::uint32_t threshold_bits,
                           std::uint32_t* positions, bool& non_finite) {
  const DF df;
  const DI di;
  const DU du;
  const std::size_t lanes = hn::Lanes(df);
  // Magnitude bits order like magnitudes and stay below 2^31, so a signed comparison is exact.
  const VI magnitude = hn::Set(di, 0x7FFFFFFF), exponent = hn::Set(di, 0x7F800000);
  const VI floor = hn::Set(di, static_cast<std::int32_t>(threshold_bits) - 1);
  VI top = hn::Zero(di);
  VI index = hn::Iota(di, 0);
  const VI step = hn::Set(di, static_cast<std::int32_t>(lanes));
  std::size_t count = 0, i = 0;
  for (; i + lanes <= n; i += lanes, index = hn::Add(index, step)) {
    const VI bits = hn::BitCast(di, hn::LoadU(df, v + i));
    top = hn::Max(top, hn::And(bits, exponent));
    const auto keep = hn::Gt(hn::And(bits, magnitude), floor);
    if (hn::AllFalse(di, keep)) continue;
    count += hn::CompressStore(hn::BitCast(du, index), hn::RebindMask(du, keep), du, positions + count);
  }
  if (!hn::AllFalse(di, hn::Eq(top, exponent))) non_finite = true;
  for (; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, v + i, 4);
    if ((bits & 0x7F800000u) == 0x7F800000u) non_finite = true;
    if ((bits & 0x7FFFFFFFu) >= threshold_bits) positions[count++] = static_cast<std::uint32_t>(i);
  }
  return count;
}

void SignWords(const float* v, std::size_t words, std::uint32_t* out) {
  const DF df;
  const DI di;
  const std::size_t lanes = hn::Lanes(df);  // 4 to 16: a 32-bit word is whole vectors
  const VI zero = hn::Zero(di), negative_zero = hn::Set(di, static_cast<std::int32_t>(0x80000000u));
  for (std::size_t j = 0; j < words; ++j) {
    std::uint64_t word = 0;
    for (std::size_t k = 0; k < 32; k += lanes) {
      const VI bits = hn::BitCast(di, hn::LoadU(df, v + 32 * j + k));
      std::uint8_t mask[8] = {};
      hn::StoreMaskBits(di, hn::And(hn::Lt(bits, zero), hn::Ne(bits, negative_zero)), mask);
      std::uint64_t part;
      std::memcpy(&part, mask, 8);
      word |= (part & ((std::uint64_t{1} << lanes) - 1)) << k;
    }
    // The mask has coordinate k at bit k; the wire wants it at bit 31 - k.
    auto x = static_cast<std::uint32_t>(word);
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    out[j] = __builtin_bswap32(x);
  }
}

void ExpandSigns(const std::uint32_t* words, std::size_t count, float scale, float* out) {
  const DF df;
  const DU du;
  const std::size_t lanes = hn::Lanes(df);
  std::uint32_t magnitude;
  std::memcpy(&magnitude, &scale, 4);
  const auto vm = hn::Set(du, magnitude), sign = hn::Set(du, 0x80000000u);
  for (std::size_t j = 0; j < count; ++j) {
    const auto word = hn::Set(du, words[j]);
    for (std::size_t k = 0; k < 32; k += lanes) {
      // Shifting coordinate k's bit (31 - k) up to bit 31 makes it the float's sign bit: no branch.
      const auto shift = hn::Iota(du, static_cast<std::uint32_t>(k));
      hn::StoreU(hn::BitCast(df, hn::Or(vm, hn::And(hn::Shl(word, shift), sign))), df, out + 32 * j + k);
    }
  }
}

// Eight double sums as 8 / N vectors of N lanes, vector g holding sums gN .. gN + N - 1: with coordinate c
// going to sum c mod 8 (vector lanes of consecutive coordinates), every sum gets the same additions in the
// same order whatever the vector width.
struct EightSums {
  using D = hn::ScalableTag<double>;
  using V = hn::Vec<D>;
  static constexpr std::size_t N = HWY_LANES(double);
  static_assert(8 % N == 0, "eight sums must be whole vectors");
  static constexpr std::size_t groups = 8 / N;

  static void load(const double* sums, V* v) {
    for (std::size_t g = 0; g < groups; ++g) v[g] = hn::LoadU(D(), sums + g * N);
  }
  static void store(const V* v, double* sums) {
    for (std::size_t g = 0; g < groups; ++g) hn::StoreU(v[g], D(), sums + g * N);
  }
  // The N floats at p as doubles.
  static V promote(const float* p) { return hn::PromoteTo(D(), hn::LoadU(hn::Rebind<float, D>(), p)); }
};

// The tail (fewer than 8 coordinates) goes to lanes 0, 1, ... as in the scalar loop.
void SquaredError(const float* v, const float* approx, std::size_t n, double* norm, double* error) {
  using S = EightSums;
  S::V norms[S::groups], errors[S::groups];
  S::load(norm, norms);
  S::load(error, errors);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (std::size_t g = 0; g < S::groups; ++g) {
      const S::V x = S::promote(v + i + g * S::N);
      const S::V e = hn::Sub(S::promote(approx + i + g * S::N), x);
      norms[g] = hn::Add(norms[g], hn::Mul(x, x));
      errors[g] = hn::Add(errors[g], hn::Mul(e, e));
    }
  }
  S::store(norms, norm);
  S::store(errors, error);
  for (std::size_t k = 0; i < n; ++i, ++k) add_squared_error(v[i], approx[i], k, norm, error);
}

void L1ChunkSums(const float* v, std::size_t chunks, double* sum) {
  using S = EightSums;
  S::V sums[S::groups];
  S::load(sum, sums);
  for (std::size_t c = 0; c < chunks; ++c, v += 64) {
    S::V parts[S::groups];
    for (std::size_t g = 0; g < S::groups; ++g) parts[g] = hn::Zero(S::D());
    for (std::size_t j = 0; j < 64; j += 8) {
      for (std::size_t g = 0; g < S::groups; ++g)
        parts[g] = hn::Add(parts[g], hn::Abs(S::promote(v + j + g * S::N)));
    }
    for (std::size_t g = 0; g < S::groups; ++g) sums[g] = hn::Add(sums[g], parts[g]);
  }
  S::store(sums, sum);
}

// Float parts in vectors of up to 8 lanes (8 / N of them); the eight double totals in scalar code.
void L2ChunkSums(const float* v, std::size_t chunks, double* sum) {
  const hn::CappedTag<float, 8> df;
  constexpr std::size_t N = HWY_MIN(HWY_LANES(float), 8);
  static_assert(8 % N == 0, "eight sums must be whole vectors");
  constexpr std::size_t groups = 8 / N;
  using V = hn::Vec<decltype(df)>;
  alignas(32) float part[8];
  for (std::size_t c = 0; c < chunks; ++c, v += 64) {
    V parts[groups];
    for (std::size_t g = 0; g < groups; ++g) parts[g] = hn::Zero(df);
    for (std::size_t j = 0; j < 64; j += 8) {
      for (std::size_t g = 0; g < groups; ++g) {
        const V x = hn::LoadU(df, v + j + g * N);
        parts[g] = hn::Add(parts[g], hn::Mul(x, x));
      }
    }
    for (std::size_t g = 0; g < groups; ++g) hn::StoreU(parts[g], df, part + g * N);
    for (std::size_t k = 0; k < 8; ++k) sum[k] += part[k];
  }
}

#endif  // HWY_TARGET == HWY_SCALAR

const char* InstructionSet() {
  return hwy::TargetName(HWY_TARGET);
}

}  // namespace sgdsim::compression::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sgdsim::compression::simd {

HWY_EXPORT(RoundIndices);
HWY_EXPORT(EncodeFixed);
HWY_EXPORT(NonzeroBits);
HWY_EXPORT(ExpandLevels);
HWY_EXPORT(AnyNonFinite);
HWY_EXPORT(MaxAbsBits);
HWY_EXPORT(CollectAtLeast);
HWY_EXPORT(SignWords);
HWY_EXPORT(ExpandSigns);
HWY_EXPORT(SquaredError);
HWY_EXPORT(L1ChunkSums);
HWY_EXPORT(L2ChunkSums);
HWY_EXPORT(InstructionSet);

const char* instruction_set() {
  return HWY_DYNAMIC_DISPATCH(InstructionSet)();
}

void round_indices(const RoundJob& job, const float* v, std::size_t n, Rng& rng, std::uint16_t* indices) {
  HWY_DYNAMIC_DISPATCH(RoundIndices)(job, v, n, rng, indices);
}
void encode_fixed(const RoundJob& job, const float* v, std::size_t n, unsigned w, Rng& rng, BitCursor& out) {
  HWY_DYNAMIC_DISPATCH(EncodeFixed)(job, v, n, w, rng, out);
}
void nonzero_bits(const std::uint16_t* indices, std::size_t n, std::uint16_t zero, std::uint64_t* bits) {
  HWY_DYNAMIC_DISPATCH(NonzeroBits)(indices, n, zero, bits);
}
std::size_t expand_levels(const std::uint16_t* indices, std::size_t n, const float* levels, std::size_t size,
                          float norm, bool scaled, float scale, float* out) {
  return HWY_DYNAMIC_DISPATCH(ExpandLevels)(indices, n, levels, size, norm, scaled, scale, out);
}
std::uint32_t max_abs_bits(const float* v, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(MaxAbsBits)(v, n);
}
bool any_non_finite(const float* v, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(AnyNonFinite)(v, n);
}
std::size_t collect_at_least(const float* v, std::size_t n, std::uint32_t threshold_bits,
                             std::uint32_t* positions, bool& non_finite) {
  return HWY_DYNAMIC_DISPATCH(CollectAtLeast)(v, n, threshold_bits, positions, non_finite);
}
void sign_words(const float* v, std::size_t words, std::uint32_t* out) {
  HWY_DYNAMIC_DISPATCH(SignWords)(v, words, out);
}
void expand_signs(const std::uint32_t* words, std::size_t count, float scale, float* out) {
  HWY_DYNAMIC_DISPATCH(ExpandSigns)(words, count, scale, out);
}

void squared_error(const float* v, const float* approx, std::size_t n, double* norm, double* error) {
  HWY_DYNAMIC_DISPATCH(SquaredError)(v, approx, n, norm, error);
}
void l1_chunk_sums(const float* v, std::size_t chunks, double* sum) {
  HWY_DYNAMIC_DISPATCH(L1ChunkSums)(v, chunks, sum);
}
void l2_chunk_sums(const float* v, std::size_t chunks, double* sum) {
  HWY_DYNAMIC_DISPATCH(L2ChunkSums)(v, chunks, sum);
}

}  // namespace sgdsim::compression::simd
#endif
