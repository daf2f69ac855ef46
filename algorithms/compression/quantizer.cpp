#include "algorithms/compression/quantizer.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "algorithms/compression/norms.hpp"
#include "algorithms/compression/simd.hpp"
#include "algorithms/compression/zstd_frame.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

// How the vector kernels round one bucket with norm > 0: the table's shape and parameters, and how values are
// normalised (times 1/norm, or divided by a subnormal norm, which has no finite float inverse).
simd::RoundJob simd::round_job(const LevelTable& table, float norm) {
  simd::RoundJob job;
  if (norm >= std::numeric_limits<float>::min()) {
    job.factor = 1.0f / norm;
  } else {
    job.factor = norm;
    job.divide = true;
  }
  table.with_rounder([&job, &table](const auto& rounder) {
    using R = std::decay_t<decltype(rounder)>;
    if constexpr (std::is_same_v<R, LevelTable::MirroredUniform>) {
      job.shape = simd::RoundJob::Shape::mirrored_uniform;
      job.steps = rounder.steps;
      job.zero = rounder.zero;
    } else if constexpr (std::is_same_v<R, LevelTable::EvenlySpaced>) {
      job.shape = simd::RoundJob::Shape::evenly_spaced;
      job.low = rounder.low;
      job.steps = rounder.steps;
      job.last = rounder.last;
    } else {
      job.shape = simd::RoundJob::Shape::general;
      job.values = rounder.values;
      job.inverse_gap = rounder.inverse_gap;
      job.low = rounder.low;
      job.high = rounder.high;
      job.last = rounder.last;
      if (job.last < 16) {
        std::copy(job.values, job.values + job.last + 1, job.padded_values);
        std::copy(job.inverse_gap, job.inverse_gap + job.last + 1, job.padded_inverse_gap);
      }
      if (const auto& halving = table.halving()) {
        job.shape = simd::RoundJob::Shape::halving;
        job.min_exponent = halving->min_exponent;
        job.count = halving->count;
        job.zero = table.has_zero() ? 1 : 0;
      }
    }
  });
  return job;
}

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
// The symbol stream inside a zstd frame, and its symbols.
thread_local Bytes zstd_stream;
thread_local std::vector<std::uint16_t> symbol_buffer;
thread_local std::vector<float> norm_buffer;
}  // namespace

Quantizer::Quantizer(QuantizerConfig config) : config_(std::move(config)), table_(make_table(config_)) {
  if (config_.coding == Coding::elias && !table_.has_zero())
    throw std::invalid_argument("the sparse Elias coding needs a table with a zero level");
  zero_index_ = static_cast<std::uint16_t>(table_.has_zero() ? table_.zero_index() : table_.size() / 2);
}

std::size_t Quantizer::bucket_size(std::size_t dimension) const {
  std::size_t largest = 0;
  for_each_bucket(dimension, [&largest](std::size_t, std::size_t n) { largest = std::max(largest, n); });
  return largest;
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
  if (norm == Norm::max_abs) {
    // The largest magnitude's bits are the largest bits of |x| (finite floats order like their bits).
    const std::uint32_t bits = simd::max_abs_bits(values.data(), values.size());
    if (bits >= 0x7F800000u)
      throw NonFiniteInput(method + ": cannot quantize a vector with infinite or NaN values");
    return std::bit_cast<float>(bits);
  }
  const BucketNorms norms = bucket_norms(values, norm == Norm::l2 ? NormsWanted::l2 : NormsWanted::max_abs);
  if (norms.non_finite)
    throw NonFiniteInput(method + ": cannot quantize a vector with infinite or NaN values");
  const float value = norm == Norm::l2 ? static_cast<float>(std::sqrt(norms.sum_squares)) : norms.max_abs;
  if (!std::isfinite(value)) throw NonFiniteInput(method + ": the norm of a bucket overflows float32");
  return value;
}

// Coordinates per pass of the fixed-width decoder: the indices of a chunk stay in the first-level cache.
constexpr std::size_t chunk = 2048;
thread_local std::vector<std::uint64_t> nonzero_buffer;

}  // namespace

float Quantizer::round_bucket(std::span<const float> values, Rng& rng, std::uint16_t* indices) const {
  const float norm = bucket_norm(values, config_.norm, config_.method);
  if (norm == 0.0f) {
    std::fill(indices, indices + values.size(), zero_index_);
    return norm;
  }
  simd::round_indices(simd::round_job(table_, norm), values.data(), values.size(), rng, indices);
  return norm;
}

void Quantizer::quantize(std::span<const float> values, Rng& rng, std::span<float> out) const {
  const std::size_t d = values.size(), bucket = bucket_size(d);
  if (out.size() != d) throw std::invalid_argument("quantize: output size differs from input size");
  const float scale = output_scale(d);
  index_buffer.resize(bucket);
  const auto levels = table_.values();
  for_each_bucket(d, [&](std::size_t begin, std::size_t n) {
    const float norm = round_bucket(values.subspan(begin, n), rng, index_buffer.data());
    simd::expand_levels(index_buffer.data(), n, levels.data(), levels.size(), norm, config_.contractive,
                        scale, out.data() + begin);
  });
}

void Quantizer::symbols(std::span<const float> values, Rng& rng, std::vector<std::uint16_t>& indices,
                        std::vector<float>& norms) const {
  indices.resize(values.size());
  norms.clear();
  for_each_bucket(values.size(), [&](std::size_t begin, std::size_t n) {
    norms.push_back(round_bucket(values.subspan(begin, n), rng, indices.data() + begin));
  });
}

double Quantizer::entropy_bits(std::span<const float> values, Rng& rng) const {
  std::vector<std::uint16_t> indices;
  std::vector<float> norms;
  symbols(values, rng, indices, norms);
  std::vector<std::size_t> counts(table_.size(), 0);
  for (std::uint16_t i : indices) ++counts[i];
  double bits = 32.0 * static_cast<double>(norms.size());
  const double n = static_cast<double>(indices.size());
  for (std::size_t c : counts)
    if (c) bits -= static_cast<double>(c) * std::log2(static_cast<double>(c) / n);
  return bits;
}

void Quantizer::encode_fixed_bucket(std::span<const float> values, Rng& rng, BitWriter& writer,
                                    float scale) const {
  const std::size_t n = values.size();
  const unsigned width = table_.index_bits();
  const float norm = scale >= 0.0f ? scale : bucket_norm(values, config_.norm, config_.method);
  writer.reserve(32 + n * width);
  writer.write_float(norm);
  BitCursor cursor = writer.cursor();
  if (norm == 0.0f) {
    for (std::size_t i = 0; i < n; ++i) cursor.write(zero_index_, width);
    writer.commit(cursor);
    return;
  }
  const simd::RoundJob job = simd::round_job(table_, norm);
  if (width <= 8) {
    simd::encode_fixed(job, values.data(), n, width, rng, cursor);
  } else {
    // Wide tables (more than 256 levels): round first, then write index by index.
    index_buffer.resize(std::max(index_buffer.size(), n));
    simd::round_indices(job, values.data(), n, rng, index_buffer.data());
    for (std::size_t i = 0; i < n; ++i) cursor.write(index_buffer[i], width);
  }
  writer.commit(cursor);
}

void Quantizer::encode_fixed(std::span<const float> values, Rng& rng, Bytes& out) const {
  BitWriter writer(out);
  for_each_bucket(values.size(), [&](std::size_t begin, std::size_t n) {
    encode_fixed_bucket(values.subspan(begin, n), rng, writer);
  });
  writer.finish();
}

void Quantizer::bucket_scales(std::span<const float> values, std::vector<float>& scales) const {
  if (!shares_scales()) throw std::logic_error(config_.method + ": scales are shared only by max-abs norms");
  scales.clear();
  for_each_bucket(values.size(), [&](std::size_t begin, std::size_t n) {
    scales.push_back(bucket_norm(values.subspan(begin, n), config_.norm, config_.method));
  });
}

void Quantizer::encode_with_scales(std::span<const float> values, std::span<const float> scales, Rng& rng,
                                   Bytes& out) const {
  if (!shares_scales()) throw std::logic_error(config_.method + ": scales are shared only by max-abs norms");
  index_buffer.resize(std::max(bucket_size(values.size()), chunk));
  BitWriter writer(out);
  std::size_t b = 0;
  for_each_bucket(values.size(), [&](std::size_t begin, std::size_t n) {
    if (b >= scales.size()) throw std::invalid_argument(config_.method + ": fewer scales than buckets");
    const float scale = scales[b++];
    // A scale below the bucket's own would round past the outer level: the caller's error.
    if (!(scale >= bucket_norm(values.subspan(begin, n), config_.norm, config_.method)))
      throw std::invalid_argument(config_.method + ": a shared scale below its bucket's max |x|");
    encode_fixed_bucket(values.subspan(begin, n), rng, writer, scale);
  });
  if (b != scales.size()) throw std::invalid_argument(config_.method + ": more scales than buckets");
  writer.finish();
}

void Quantizer::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  const std::size_t d = values.size(), bucket = bucket_size(d);
  // Gaps and positions are coded as integers below 2^32.
  if (d >= (std::size_t{1} << 31))
    throw InputError(config_.method + ": vectors of 2^31 or more coordinates are not supported");
  index_buffer.resize(std::max(bucket, chunk));
  if (config_.coding == Coding::fixed) return encode_fixed(values, rng, out);
  if (config_.coding == Coding::zstd) return encode_zstd(values, rng, out);
  std::uint16_t* indices = index_buffer.data();
  BitWriter writer(out);
  const std::size_t magnitude_bits =
      elias_length(config_.elias, std::max<std::size_t>(1, table_.magnitudes()));
  for_each_bucket(d, [&](std::size_t begin, std::size_t n) {
    const float norm = round_bucket(values.subspan(begin, n), rng, indices);
    // Elias: gaps sum to at most n + 1 and a code of g takes at most 2g + 1 bits, so this bounds the bucket.
    writer.reserve(32 + 3 * (n + 1) + n * (1 + magnitude_bits));
    writer.write_float(norm);
    if (norm == 0.0f) return;
    const int zero = zero_index_;
    // Most coordinates round to zero: a bitmap of the nonzero ones lets the loop jump from one to the next.
    nonzero_buffer.resize((n + 63) / 64);
    simd::nonzero_bits(indices, n, zero_index_, nonzero_buffer.data());
    BitCursor cursor = writer.cursor();
    const EliasCode code = config_.elias;
    std::size_t previous = 0;  // one past the last nonzero position, i.e. gaps count from position -1
    for (std::size_t w = 0; w < nonzero_buffer.size(); ++w) {
      for (std::uint64_t bits = nonzero_buffer[w]; bits != 0; bits &= bits - 1) {
        const std::size_t i = 64 * w + static_cast<std::size_t>(__builtin_ctzll(bits));
        const int offset = static_cast<int>(indices[i]) - zero;
        write_elias(cursor, code, i + 1 - previous);
        // The sign bit and the level's code in one write when the code is short (always, for s < 2^15).
        const auto magnitude = static_cast<std::uint64_t>(offset < 0 ? -offset : offset);
        const EliasBits level = elias_bits(code, magnitude);
        if (level.length < 32) {
          cursor.write((std::uint64_t{offset < 0} << level.length) | level.value, level.length + 1);
        } else {
          cursor.write(offset < 0, 1);
          write_elias(cursor, code, magnitude);
        }
        previous = i + 1;
      }
    }
    // The end of the bucket: a gap that lands one past its last coordinate.
    write_elias(cursor, code, n + 1 - previous);
    writer.commit(cursor);
  });
  writer.finish();
}

namespace {
// Reads `count` fixed-width fields of W bits (W <= 8) starting at bit `position` into `out`, several per
// unaligned 64-bit load while eight bytes remain; returns how many it read (the caller reads the rest).
template <unsigned W>
std::size_t extract_fields(std::span<const std::uint8_t> bytes, std::size_t position, std::size_t count,
                           std::uint16_t* out) {
  // A load shifted by up to 7 bits keeps 57 bits: eight fields of up to 7 bits, or four of 8.
  constexpr std::size_t group = 8 * W + 7 <= 64 ? 8 : 4;
  std::size_t i = 0;
  for (; i + group <= count && (position >> 3) + 8 <= bytes.size(); i += group, position += group * W) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + (position >> 3), 8);
    word = __builtin_bswap64(word) << (position & 7);
    for (std::size_t k = 0; k < group; ++k)
      out[i + k] = static_cast<std::uint16_t>((word >> (64 - W * (k + 1))) & ((1u << W) - 1));
  }
  return i;
}

template <unsigned... W>
std::size_t extract_fields(unsigned width, std::span<const std::uint8_t> bytes, std::size_t position,
                           std::size_t count, std::uint16_t* out, std::integer_sequence<unsigned, W...>) {
  std::size_t done = 0;
  (void)((width == W + 1 ? (done = extract_fields<W + 1>(bytes, position, count, out), true) : false) || ...);
  return done;
}
}  // namespace

void Quantizer::decode_bucket_fixed(BitReader& in, std::span<float> out, float scale) const {
  const float norm = in.read_float();
  if (!(norm >= 0.0f) || std::signbit(norm) || !std::isfinite(norm)) in.fail("corrupt bucket norm");
  const unsigned width = table_.index_bits();
  if (!in.has(out.size() * width)) in.fail("truncated message");
  const auto levels = table_.values();
  std::uint16_t* indices = index_buffer.data();
  for (std::size_t begin = 0; begin < out.size(); begin += chunk) {
    const std::size_t n = std::min(chunk, out.size() - begin);
    const std::size_t start = in.bit_position();
    std::size_t i =
        extract_fields(width, in.bytes(), start, n, indices, std::make_integer_sequence<unsigned, 8>{});
    in.skip(i * width);
    for (; i < n; ++i) indices[i] = static_cast<std::uint16_t>(in.read(width));
    const std::size_t good = simd::expand_levels(indices, n, levels.data(), levels.size(), norm,
                                                 config_.contractive, scale, out.data() + begin);
    if (good < n) {
      // Report the offset just after the bad index, as a field-by-field reader would.
      BitReader at(in.bytes(), 0, config_.method.c_str());
      at.skip(start + (good + 1) * width);
      at.fail("level index out of range");
    }
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

void Quantizer::decode_fixed(std::span<const std::uint8_t> message, std::size_t start, std::span<float> out,
                             const char* name) const {
  BitReader in(message, start, name);
  const float scale = output_scale(out.size());
  for_each_bucket(out.size(), [&](std::size_t begin, std::size_t n) {
    decode_bucket_fixed(in, out.subspan(begin, n), scale);
  });
  in.expect_end();
}

std::size_t Quantizer::symbol_stream_bytes(std::size_t dimension) const {
  std::size_t buckets = 0;
  for_each_bucket(dimension, [&buckets](std::size_t, std::size_t) { ++buckets; });
  return 4 * buckets + dimension * (table_.size() > 256 ? 2 : 1);
}

void Quantizer::encode_zstd(std::span<const float> values, Rng& rng, Bytes& out) const {
  symbols(values, rng, symbol_buffer, norm_buffer);
  const std::size_t d = values.size();
  const bool wide = table_.size() > 256;
  zstd_stream.resize(4 * norm_buffer.size() + d * (wide ? 2 : 1));
  std::uint8_t* at = zstd_stream.data();
  for (float norm : norm_buffer) {
    const auto bits = std::bit_cast<std::uint32_t>(norm);
    for (int b = 0; b < 4; ++b) *at++ = static_cast<std::uint8_t>(bits >> (8 * b));
  }
  for (std::size_t i = 0; i < d; ++i) {
    *at++ = static_cast<std::uint8_t>(symbol_buffer[i]);
    if (wide) *at++ = static_cast<std::uint8_t>(symbol_buffer[i] >> 8);
  }
  append_zstd_frame(zstd_stream, out, config_.zstd_level);
}

void Quantizer::decode_zstd(std::span<const std::uint8_t> message, std::size_t start,
                            std::span<float> out) const {
  const std::size_t d = out.size(), size = symbol_stream_bytes(d);
  read_zstd_frame(message, start, size, zstd_stream, config_.method);
  // Past the frame, offsets count within the decompressed stream.
  const auto fail = [&](const std::string& what, std::size_t offset) {
    throw DecodeError(config_.method + " decoder: " + what + " at byte offset " + std::to_string(offset) +
                      " of " + std::to_string(size) + " of the zstd-decompressed stream");
  };
  const bool wide = table_.size() > 256;
  const std::size_t norms_end = size - d * (wide ? 2 : 1);
  const float scale = output_scale(d);
  const auto levels = table_.values();
  std::size_t bucket = 0;
  for_each_bucket(d, [&](std::size_t begin, std::size_t n) {
    std::uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= std::uint32_t{zstd_stream[4 * bucket + b]} << (8 * b);
    const float norm = std::bit_cast<float>(bits);
    if (!(norm >= 0.0f) || std::signbit(norm) || !std::isfinite(norm))
      fail("corrupt bucket norm", 4 * bucket + 4);
    ++bucket;
    symbol_buffer.resize(n);
    const std::uint8_t* from = zstd_stream.data() + norms_end + begin * (wide ? 2 : 1);
    for (std::size_t i = 0; i < n; ++i)
      symbol_buffer[i] = wide ? static_cast<std::uint16_t>(from[2 * i] | (from[2 * i + 1] << 8)) : from[i];
    const std::size_t good = simd::expand_levels(symbol_buffer.data(), n, levels.data(), levels.size(), norm,
                                                 config_.contractive, scale, out.data() + begin);
    if (good < n) fail("level index out of range", norms_end + (begin + good + 1) * (wide ? 2 : 1));
  });
}

void Quantizer::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                            std::span<float> out) const {
  const std::size_t d = out.size(), bucket = bucket_size(d);
  index_buffer.resize(std::max(bucket, chunk));
  if (config_.coding == Coding::fixed) return decode_fixed(message, start, out, config_.method.c_str());
  if (config_.coding == Coding::zstd) return decode_zstd(message, start, out);
  BitReader in(message, start, config_.method.c_str());
  const float scale = output_scale(d);
  for_each_bucket(
      d, [&](std::size_t begin, std::size_t n) { decode_bucket_elias(in, out.subspan(begin, n), scale); });
  in.expect_end();
}

}  // namespace sgdsim::compression
