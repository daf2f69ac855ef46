#include "algorithms/compression/quantizer.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "algorithms/compression/norms.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {
LevelTable make_table(const QuantizerConfig& c) {
  switch (c.table) {
    case TableKind::paper_uniform:
      return LevelTable::uniform(c.levels);
    case TableKind::paper_exponential:
      return LevelTable::exponential(c.levels, c.ratio);
    case TableKind::code_uniform:
      return LevelTable::code_uniform(c.levels);
    case TableKind::code_exponential:
      return LevelTable::code_exponential(c.levels, c.ratio);
  }
  throw std::logic_error("unknown table kind");
}

// Reused from message to message: the encoder is on the simulator's hot path.
thread_local std::vector<std::uint16_t> index_buffer;
}  // namespace

Quantizer::Quantizer(QuantizerConfig config) : config_(std::move(config)), table_(make_table(config_)) {
  if (config_.coding == Coding::elias && !table_.has_zero())
    throw std::invalid_argument("the sparse Elias coding needs a table with a zero level");
  zero_index_ = static_cast<std::uint16_t>(table_.has_zero() ? table_.zero_index() : table_.size() / 2);
}

std::size_t Quantizer::bucket_size(std::size_t dimension) const {
  return config_.bucket == 0 ? dimension : std::min(config_.bucket, dimension);
}

double Quantizer::variance_factor(std::size_t n) const {
  const double d = static_cast<double>(n);
  const double s = config_.levels, p = config_.ratio;
  switch (config_.table) {
    case TableKind::paper_uniform:
      if (config_.norm == Norm::l2) return std::min(d / (s * s), std::sqrt(d) / s);
      return std::min(d / (4 * s * s), std::sqrt(d) / s);
    case TableKind::paper_exponential:
      return (1 - p) * (1 - p) / (4 * p) +
             std::min(d * std::pow(p, 2 * s) / 4, std::sqrt(d) * std::pow(p, s));
    case TableKind::code_uniform: {
      const double gap = 2.0 / (std::ldexp(1.0, config_.levels) - 1);
      return d * gap * gap / 4;
    }
    case TableKind::code_exponential:
      return (1 - p) * (1 - p) / (4 * p) + d * std::pow(p, 2 * (std::ldexp(1.0, config_.levels - 1) - 1));
  }
  throw std::logic_error("unknown table kind");
}

float Quantizer::output_scale(std::size_t dimension) const {
  if (!config_.contractive || dimension == 0) return 1.0f;
  return static_cast<float>(1.0 / (1.0 + variance_factor(bucket_size(dimension))));
}

namespace {
// The bucket's norm on the wire: L2 (summed in double) or max |v|. Non-finite input is the caller's error.
float bucket_norm(std::span<const float> values, Norm norm, const std::string& method) {
  const BucketNorms norms = bucket_norms(values, norm == Norm::l2 ? NormsWanted::l2 : NormsWanted::max_abs);
  if (norms.non_finite) throw InputError(method + ": cannot quantize a vector with infinite or NaN values");
  const float value = norm == Norm::l2 ? static_cast<float>(std::sqrt(norms.sum_squares)) : norms.max_abs;
  if (!std::isfinite(value)) throw InputError(method + ": the norm of a bucket overflows float32");
  return value;
}

// Rounds every coordinate of a bucket with norm > 0 and hands the level indices, in order, to emit4(Int4),
// emit2(first, second) and, for an odd last one, emit(index). One 64-bit draw serves two coordinates.
template <typename Emit4, typename Emit2, typename Emit>
void round_levels(const LevelTable& table, std::span<const float> values, float norm, Rng& rng, Emit4 emit4,
                  Emit2 emit2, Emit emit) {
  const std::size_t n = values.size();
  const float* v = values.data();
  // A local copy of the generator stays in registers: stores of encoded bytes may alias anything in memory.
  Rng local = rng;
  auto run = [&](const auto& rounder, auto normalise) {
    std::size_t i = 0;
    float u0, u1;
    // Blocks of eight on tables with a four-lane rounder: draw first, then round in two Float4 halves. The
    // draws map to uniforms exactly as uniform_pair() does, so blocks and pairs give the same result.
    using Rounder = std::decay_t<decltype(rounder)>;
    if constexpr (std::is_invocable_r_v<Int4, const Rounder&, Float4, Float4>) {
      constexpr std::size_t block = 8;
      for (; i + block <= n; i += block) {
        Int4 bits[2];
        for (int h = 0; h < 2; ++h) {
          const std::uint64_t d0 = local(), d1 = local();
          bits[h] =
              Int4{static_cast<std::int32_t>(d0 >> 40), static_cast<std::int32_t>((d0 >> 8) & 0xFFFFFFu),
                   static_cast<std::int32_t>(d1 >> 40), static_cast<std::int32_t>((d1 >> 8) & 0xFFFFFFu)};
        }
        Float4 y[2];
        std::memcpy(y, v + i, sizeof y);
        for (int h = 0; h < 2; ++h) {
          const Int4 index = rounder(normalise(y[h]), __builtin_convertvector(bits[h], Float4) * 0x1.0p-24f);
          emit4(index);
        }
      }
    }
    for (; i + 2 <= n; i += 2) {
      uniform_pair(local(), u0, u1);
      emit2(rounder(normalise(v[i]), u0), rounder(normalise(v[i + 1]), u1));
    }
    if (i < n) {
      uniform_pair(local(), u0, u1);
      emit(rounder(normalise(v[i]), u0));
    }
  };
  table.with_rounder([&](const auto& rounder) {
    if (norm >= std::numeric_limits<float>::min()) {
      const float inverse = 1.0f / norm;
      run(rounder, [inverse](auto x) { return x * inverse; });
    } else {
      // A subnormal norm has no finite float inverse; divide instead (rare, so speed does not matter).
      run(rounder, [norm](auto x) { return x / norm; });
    }
  });
  rng = local;
}
}  // namespace

float Quantizer::round_bucket(std::span<const float> values, Rng& rng, std::uint16_t* indices) const {
  const float norm = bucket_norm(values, config_.norm, config_.method);
  if (norm == 0.0f) {
    std::fill(indices, indices + values.size(), zero_index_);
    return norm;
  }
  std::uint16_t* next = indices;
  round_levels(
      table_, values, norm, rng,
      [&next](Int4 a) {
        for (int k = 0; k < 4; ++k) next[k] = static_cast<std::uint16_t>(a[k]);
        next += 4;
      },
      [&next](std::uint32_t a, std::uint32_t b) {
        next[0] = static_cast<std::uint16_t>(a);
        next[1] = static_cast<std::uint16_t>(b);
        next += 2;
      },
      [&next](std::uint32_t a) { *next++ = static_cast<std::uint16_t>(a); });
  return norm;
}

void Quantizer::quantize(std::span<const float> values, Rng& rng, std::span<float> out) const {
  const std::size_t d = values.size(), bucket = bucket_size(d);
  if (out.size() != d) throw std::invalid_argument("quantize: output size differs from input size");
  const float scale = output_scale(d);
  index_buffer.resize(bucket);
  const auto levels = table_.values();
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const std::size_t n = std::min(bucket, d - begin);
    const float norm = round_bucket(values.subspan(begin, n), rng, index_buffer.data());
    for (std::size_t i = 0; i < n; ++i) {
      out[begin + i] = norm * levels[index_buffer[i]];
      if (config_.contractive) out[begin + i] *= scale;
    }
  }
}

void Quantizer::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  const std::size_t d = values.size(), bucket = bucket_size(d);
  // Gaps and positions are coded as integers below 2^32.
  if (d >= (std::size_t{1} << 31))
    throw InputError(config_.method + ": vectors of 2^31 or more coordinates are not supported");
  index_buffer.resize(bucket);
  std::uint16_t* indices = index_buffer.data();
  BitWriter writer(out);
  const unsigned width = table_.index_bits();
  const std::size_t magnitude_bits =
      elias_length(config_.elias, std::max<std::size_t>(1, table_.magnitudes()));
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const std::size_t n = std::min(bucket, d - begin);
    if (config_.coding == Coding::fixed) {
      // Fused: round and write in one pass, two indices per write (2 * width <= 32).
      const float norm = bucket_norm(values.subspan(begin, n), config_.norm, config_.method);
      writer.reserve(32 + n * width);
      writer.write_float(norm);
      if (norm == 0.0f) {
        for (std::size_t i = 0; i < n; ++i) writer.write(zero_index_, width);
        continue;
      }
      BitCursor cursor = writer.cursor();
      round_levels(
          table_, values.subspan(begin, n), norm, rng,
          [&cursor, width](Int4 a) {
            const auto at = [&a](int k) { return static_cast<std::uint32_t>(a[k]); };
            if (width <= 8) {
              cursor.write((((((at(0) << width) | at(1)) << width) | at(2)) << width) | at(3), 4 * width);
            } else {
              cursor.write((at(0) << width) | at(1), 2 * width);
              cursor.write((at(2) << width) | at(3), 2 * width);
            }
          },
          [&cursor, width](std::uint32_t a, std::uint32_t b) { cursor.write((a << width) | b, 2 * width); },
          [&cursor, width](std::uint32_t a) { cursor.write(a, width); });
      writer.commit(cursor);
      continue;
    }
    const float norm = round_bucket(values.subspan(begin, n), rng, indices);
    // Elias: gaps sum to at most n + 1 and a code of g takes at most 2g + 1 bits, so this bounds the bucket.
    writer.reserve(32 + 3 * (n + 1) + n * (1 + magnitude_bits));
    writer.write_float(norm);
    if (norm == 0.0f) continue;
    const int zero = zero_index_;
    std::size_t previous = 0;  // one past the last nonzero position, i.e. gaps count from position -1
    for (std::size_t i = 0; i < n; ++i) {
      const int offset = static_cast<int>(indices[i]) - zero;
      if (offset == 0) continue;
      write_elias(writer, config_.elias, i + 1 - previous);
      writer.write_bit(offset < 0);
      write_elias(writer, config_.elias, static_cast<std::uint64_t>(offset < 0 ? -offset : offset));
      previous = i + 1;
    }
    // The end of the bucket: a gap that lands one past its last coordinate.
    write_elias(writer, config_.elias, n + 1 - previous);
  }
  writer.finish();
}

void Quantizer::decode_bucket_fixed(BitReader& in, std::span<float> out, float scale) const {
  const float norm = in.read_float();
  if (!(norm >= 0.0f) || std::signbit(norm) || !std::isfinite(norm)) in.fail("corrupt bucket norm");
  if (!in.has(out.size() * table_.index_bits())) in.fail("truncated message");
  const unsigned width = table_.index_bits();
  const auto levels = table_.values();
  const std::size_t size = levels.size();
  for (float& value : out) {
    const auto index = static_cast<std::size_t>(in.read(width));
    if (index >= size) in.fail("level index out of range");
    value = norm * levels[index];
    if (config_.contractive) value *= scale;
  }
}

void Quantizer::decode_bucket_elias(BitReader& in, std::span<float> out, float scale) const {
  const float norm = in.read_float();
  if (!(norm >= 0.0f) || std::signbit(norm) || !std::isfinite(norm)) in.fail("corrupt bucket norm");
  std::fill(out.begin(), out.end(), 0.0f);
  if (norm == 0.0f) return;
  const std::size_t n = out.size();
  const auto levels = table_.values();
  const std::size_t zero = zero_index_, magnitudes = table_.magnitudes();
  std::size_t next = 0;  // the first position the next gap may reach
  for (;;) {
    const std::size_t position = next - 1 + read_elias(in, config_.elias, n + 1 - next, "position gap");
    if (position == n) break;
    const bool negative = in.read_bit();
    const auto magnitude = static_cast<std::size_t>(read_elias(in, config_.elias, magnitudes, "level index"));
    float value = norm * levels[negative ? zero - magnitude : zero + magnitude];
    if (config_.contractive) value *= scale;
    out[position] = value;
    next = position + 1;
  }
}

void Quantizer::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                            std::span<float> out) const {
  const std::size_t d = out.size(), bucket = bucket_size(d);
  BitReader in(message, start, config_.method.c_str());
  const float scale = output_scale(d);
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const auto part = out.subspan(begin, std::min(bucket, d - begin));
    if (config_.coding == Coding::fixed)
      decode_bucket_fixed(in, part, scale);
    else
      decode_bucket_elias(in, part, scale);
  }
  in.expect_end();
}

}  // namespace sgdsim::compression
