#include "algorithms/compression/sparsifier.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/error.hpp"

namespace sgdsim::compression {

namespace {
// Reused from message to message (the hot path); a Sparsifier never nests inside another, so one set per
// thread.
thread_local std::vector<std::uint32_t> position_buffer;
thread_local std::vector<float> kept_buffer;
thread_local std::vector<float> magnitude_buffer;
thread_local std::vector<std::uint64_t> chosen_bits;

constexpr std::size_t max_dimension = std::size_t{1} << 31;
}  // namespace

std::size_t KeepCount::of(std::size_t dimension) const {
  std::size_t count;
  if (k) {
    count = *k;
  } else {
    count = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(dimension)));
    count = std::max<std::size_t>(count, 1);
  }
  if (dimension == 0) return 0;
  if (count > dimension)
    throw InputError(where + ": k = " + std::to_string(count) + " exceeds the dimension " +
                     std::to_string(dimension) + " of the vector to compress");
  return count;
}

Sparsifier::Sparsifier(Selection selection, KeepCount keep, std::unique_ptr<Compressor> inner, EliasCode code)
    : selection_(selection), keep_(std::move(keep)), inner_(std::move(inner)), code_(code) {
  if (!inner_ || dynamic_cast<const Sparsifier*>(inner_.get()))
    throw std::invalid_argument("a sparsifier's inner compressor must be a quantizer, sign or none");
}

void Sparsifier::select(std::span<const float> values, Rng& rng,
                        std::vector<std::uint32_t>& positions) const {
  const std::size_t d = values.size(), k = kept(d);
  positions.clear();
  if (k == 0) return;
  if (selection_ == Selection::random) {
    // Floyd's algorithm: k distinct positions, each k-subset equally likely, k draws; a bitmap keeps them
    // sorted for free.
    chosen_bits.assign((d + 63) / 64, 0);
    for (std::size_t j = d - k; j < d; ++j) {
      std::size_t t = rng.below(j + 1);
      if (chosen_bits[t / 64] >> (t % 64) & 1) t = j;
      chosen_bits[t / 64] |= std::uint64_t{1} << (t % 64);
    }
    for (std::size_t w = 0; w < chosen_bits.size(); ++w) {
      for (std::uint64_t bits = chosen_bits[w]; bits; bits &= bits - 1)
        positions.push_back(
            static_cast<std::uint32_t>(w * 64 + static_cast<unsigned>(__builtin_ctzll(bits))));
    }
    return;
  }
  // Top-k: the k-th largest magnitude by selection on a copy, then one pass in index order keeps everything
  // above it and the first ties, so ties go to the lower index and the output is already sorted.
  magnitude_buffer.resize(d);
  for (std::size_t i = 0; i < d; ++i) magnitude_buffer[i] = std::fabs(values[i]);
  std::nth_element(magnitude_buffer.begin(), magnitude_buffer.begin() + static_cast<std::ptrdiff_t>(k - 1),
                   magnitude_buffer.end(), std::greater<float>());
  const float threshold = magnitude_buffer[k - 1];
  std::size_t above = 0;
  for (std::size_t i = 0; i < d; ++i) above += std::fabs(values[i]) > threshold;
  std::size_t ties = k - above;
  for (std::size_t i = 0; i < d; ++i) {
    const float a = std::fabs(values[i]);
    if (a > threshold || (a == threshold && ties > 0 && ties--))
      positions.push_back(static_cast<std::uint32_t>(i));
  }
}

void Sparsifier::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  const std::size_t d = values.size();
  if (d >= max_dimension)
    throw InputError("sparsifier: vectors of 2^31 or more coordinates are not supported");
  for (std::size_t i = 0; i < d; ++i) {
    if (!std::isfinite(values[i]))
      throw InputError("sparsifier: value at index " + std::to_string(i) + " is not finite");
  }
  select(values, rng, position_buffer);
  const std::size_t k = position_buffer.size();
  kept_buffer.resize(k);
  {
    BitWriter writer(out);
    // A gap code of g takes at most 2g + 1 bits and the gaps sum to at most d.
    writer.reserve(2 * d + k);
    std::size_t next = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t i = position_buffer[j];
      write_elias(writer, code_, i + 1 - next);
      next = i + 1;
      kept_buffer[j] = values[i];
    }
    writer.finish();
  }
  inner_->encode_into(kept_buffer, rng, out);
}

void Sparsifier::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                             std::span<float> out) const {
  const std::size_t d = out.size(), k = kept(d);
  BitReader in(message, start, "sparsifier");
  position_buffer.resize(k);
  std::size_t next = 0;
  for (std::size_t j = 0; j < k; ++j) {
    // Leave room for the k - j - 1 positions still to come.
    const std::size_t limit = d - next - (k - j - 1);
    const std::size_t position = next - 1 + read_elias(in, code_, limit, "position gap");
    position_buffer[j] = static_cast<std::uint32_t>(position);
    next = position + 1;
  }
  in.align();
  kept_buffer.resize(k);
  inner_->decode_from(message, in.byte_offset(), kept_buffer);
  std::fill(out.begin(), out.end(), 0.0f);
  for (std::size_t j = 0; j < k; ++j) out[position_buffer[j]] = kept_buffer[j];
}

}  // namespace sgdsim::compression
