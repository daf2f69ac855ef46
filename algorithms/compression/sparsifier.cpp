#include "algorithms/compression/sparsifier.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "algorithms/compression/simd.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {
// Reused from message to message (the hot path); a Sparsifier never nests inside another, so one set per
// thread.
thread_local std::vector<std::uint32_t> position_buffer;
thread_local std::vector<float> kept_buffer;
thread_local std::vector<std::uint64_t> chosen_bits;
thread_local std::vector<std::uint32_t> sample_buffer;
thread_local std::vector<std::uint32_t> candidate_buffer;

constexpr std::size_t max_dimension = std::size_t{1} << 31;

// The r-th largest of values[0, n), 1 <= r <= n (values may be reordered). For small r it keeps the r largest
// seen so far in a sorted array: once the array is full a value enters it rarely (about r ln(n/r) times in
// all), so the branches are well predicted, where nth_element's partitioning of fresh data mispredicts about
// every other compare (the simulation loop's top-k at d = 2000 ran ~5x slower than a benchmark repeating one
// vector).
std::uint32_t rth_largest(std::uint32_t* values, std::size_t n, std::size_t r) {
  constexpr std::size_t small = 32;
  if (r > small) {
    std::nth_element(values, values + r - 1, values + n, std::greater<>());
    return values[r - 1];
  }
  std::uint32_t top[small];  // descending
  std::size_t size = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t v = values[j];
    if (size == r) {
      if (v <= top[r - 1]) continue;
      size = r - 1;  // the smallest kept leaves
    }
    std::size_t at = size++;
    for (; at > 0 && top[at - 1] < v; --at) top[at] = top[at - 1];
    top[at] = v;
  }
  return top[r - 1];
}
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

Sparsifier::Sparsifier(double threshold, std::unique_ptr<Compressor> inner, EliasCode code)
    : Sparsifier(Selection::threshold, KeepCount{}, std::move(inner), code) {
  // |x| > threshold for a float x is |x| >= the smallest float above the threshold; magnitudes compare as
  // their bit patterns do. Nothing finite is above a threshold of FLT_MAX or more: the bits of infinity.
  constexpr double largest = std::numeric_limits<float>::max();
  const float nearest = static_cast<float>(std::min(threshold, largest));
  const float above = threshold >= largest ? std::numeric_limits<float>::infinity()
                      : static_cast<double>(nearest) > threshold
                          ? nearest
                          : std::nextafter(nearest, std::numeric_limits<float>::max());
  threshold_bits_ = std::bit_cast<std::uint32_t>(above);
}

void Sparsifier::select(std::span<const float> values, Rng& rng,
                        std::vector<std::uint32_t>& positions) const {
  if (selection_ == Selection::threshold) {
    select_threshold(values, positions);
    return;
  }
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
  select_top(values, k, positions);
}

bool Sparsifier::select_top(std::span<const float> values, std::size_t k,
                            std::vector<std::uint32_t>& positions) const {
  const std::size_t d = values.size();
  positions.clear();
  if (k == 0) return simd::any_non_finite(values.data(), d);
  bool non_finite = false;
  // Magnitudes compare as the bits of |x| compare (finite floats), so the selection works on those.
  const auto magnitude = [&values](std::size_t i) {
    return std::bit_cast<std::uint32_t>(values[i]) & 0x7FFFFFFFu;
  };
  if (4 * k <= d) {
    // Guess a threshold a little below the k-th largest magnitude from an evenly spread sample, gather the
    // positions at or above it in one vector pass, and select among those few. When the guess is too high
    // (fewer than k gathered: unlucky or adversarial data) fall through to the exact method below, so the
    // result never depends on the guess.
    const std::size_t m = std::min(d, std::clamp<std::size_t>(d / 256, 256, 4096));
    sample_buffer.resize(m);
    // Positions j d / m, stepped without a division each.
    const std::size_t stride = d / m, remainder = d % m;
    for (std::size_t j = 0, at = 0, carry = 0; j < m; ++j) {
      sample_buffer[j] = magnitude(at);
      at += stride;
      carry += remainder;
      if (carry >= m) carry -= m, ++at;
    }
    const double expected = static_cast<double>(k) * static_cast<double>(m) / static_cast<double>(d);
    const auto rank = std::min(m, static_cast<std::size_t>(expected + 3 * std::sqrt(expected) + 2));
    const std::uint32_t guess = rth_largest(sample_buffer.data(), m, rank);
    candidate_buffer.resize(d + 64);
    const std::size_t count =
        simd::collect_at_least(values.data(), d, guess, candidate_buffer.data(), non_finite);
    if (non_finite) return true;
    if (count >= k) {
      select_among(values, candidate_buffer.data(), count, k, positions);
      return false;
    }
  } else {
    non_finite = simd::any_non_finite(values.data(), d);
    if (non_finite) return true;
  }
  // Exact: every position is a candidate.
  candidate_buffer.resize(d);
  for (std::size_t i = 0; i < d; ++i) candidate_buffer[i] = static_cast<std::uint32_t>(i);
  select_among(values, candidate_buffer.data(), d, k, positions);
  return false;
}

bool Sparsifier::select_threshold(std::span<const float> values,
                                  std::vector<std::uint32_t>& positions) const {
  bool non_finite = false;
  positions.resize(values.size() + 64);
  positions.resize(
      simd::collect_at_least(values.data(), values.size(), threshold_bits_, positions.data(), non_finite));
  return non_finite;
}

void Sparsifier::select_among(std::span<const float> values, const std::uint32_t* candidates,
                              std::size_t count, std::size_t k, std::vector<std::uint32_t>& positions) const {
  // The k-th largest magnitude among the candidates (which hold every position at or above it), then one
  // pass in index order keeps everything above it and the first ties: ties go to the lower index and the
  // output is already sorted.
  const auto magnitude = [&values](std::size_t i) {
    return std::bit_cast<std::uint32_t>(values[i]) & 0x7FFFFFFFu;
  };
  sample_buffer.resize(count);
  for (std::size_t j = 0; j < count; ++j) sample_buffer[j] = magnitude(candidates[j]);
  const std::uint32_t threshold = rth_largest(sample_buffer.data(), count, k);
  std::size_t above = 0;
  for (std::size_t j = 0; j < count; ++j) above += magnitude(candidates[j]) > threshold;
  std::size_t ties = k - above;
  positions.clear();
  for (std::size_t j = 0; j < count; ++j) {
    const std::uint32_t a = magnitude(candidates[j]);
    if (a > threshold || (a == threshold && ties > 0 && ties--)) positions.push_back(candidates[j]);
  }
}

void Sparsifier::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  const std::size_t d = values.size();
  if (d >= max_dimension)
    throw InputError("sparsifier: vectors of 2^31 or more coordinates are not supported");
  const auto reject = [&values] {
    const std::size_t i = static_cast<std::size_t>(
        std::find_if(values.begin(), values.end(), [](float x) { return !std::isfinite(x); }) -
        values.begin());
    throw NonFiniteInput("sparsifier: value at index " + std::to_string(i) + " is not finite");
  };
  if (selection_ == Selection::top) {
    // The selection's vector pass also looks for non-finite values (and top-k draws no random numbers).
    if (select_top(values, kept(d), position_buffer)) reject();
  } else if (selection_ == Selection::threshold) {
    if (select_threshold(values, position_buffer)) reject();
  } else {
    if (simd::any_non_finite(values.data(), d)) reject();
    select(values, rng, position_buffer);
  }
  const std::size_t k = position_buffer.size();
  kept_buffer.resize(k);
  {
    BitWriter writer(out);
    // A gap code of g takes at most 2g + 1 bits and the gaps sum to at most d (d + 1 with an end gap).
    writer.reserve(2 * d + k + 3);
    std::size_t next = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t i = position_buffer[j];
      write_elias(writer, code_, i + 1 - next);
      next = i + 1;
      kept_buffer[j] = values[i];
    }
    if (selection_ == Selection::threshold) write_elias(writer, code_, d + 1 - next);  // lands on position d
    writer.finish();
  }
  inner_->encode_into(kept_buffer, rng, out);
}

void Sparsifier::decode_kept(std::span<const std::uint8_t> message, std::size_t start, std::size_t d,
                             std::vector<std::uint32_t>& positions, std::vector<float>& values) const {
  BitReader in(message, start, "sparsifier");
  std::size_t next = 0;
  if (selection_ == Selection::threshold) {
    // Gaps until one lands on position d; each is at most d + 1 - next.
    positions.clear();
    for (;;) {
      const std::size_t position = next - 1 + read_elias(in, code_, d + 1 - next, "position gap");
      if (position == d) break;
      positions.push_back(static_cast<std::uint32_t>(position));
      next = position + 1;
    }
  } else {
    const std::size_t k = kept(d);
    positions.resize(k);
    for (std::size_t j = 0; j < k; ++j) {
      // Leave room for the k - j - 1 positions still to come.
      const std::size_t limit = d - next - (k - j - 1);
      const std::size_t position = next - 1 + read_elias(in, code_, limit, "position gap");
      positions[j] = static_cast<std::uint32_t>(position);
      next = position + 1;
    }
  }
  in.align();
  values.resize(positions.size());
  inner_->decode_from(message, in.byte_offset(), values);
}

void Sparsifier::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                             std::span<float> out) const {
  decode_kept(message, start, out.size(), position_buffer, kept_buffer);
  std::fill(out.begin(), out.end(), 0.0f);
  for (std::size_t j = 0; j < position_buffer.size(); ++j) out[position_buffer[j]] = kept_buffer[j];
}

bool Sparsifier::decode_sparse(std::span<const std::uint8_t> bytes, std::size_t dimension,
                               std::vector<std::uint32_t>& positions, std::vector<float>& values) const {
  decode_kept(bytes, 0, dimension, positions, values);
  return true;
}

}  // namespace sgdsim::compression
