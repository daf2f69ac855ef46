#include "algorithms/compression/thc.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "algorithms/compression/bit_stream.hpp"

namespace sgdsim::compression {

double normal_upper_quantile(double p) {
  // Bisection on the tail 0.5 erfc(z/√2), which decreases in z: deterministic and exact to double precision.
  double low = 0, high = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (low + high);
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

ThcFrame thc_frame(double max_norm, std::size_t padded, double overflow, unsigned bits) {
  ThcFrame frame;
  frame.levels = std::uint32_t{1} << bits;
  frame.clip = max_norm / std::sqrt(static_cast<double>(padded)) * normal_upper_quantile(overflow);
  frame.step = 2 * frame.clip / static_cast<double>(frame.levels - 1);
  return frame;
}

void thc_quantize(std::span<const float> rotated, const ThcFrame& frame, Rng& rng,
                  std::span<std::uint32_t> indices) {
  const double top = static_cast<double>(frame.levels - 1);
  for (std::size_t c = 0; c < rotated.size(); ++c) {
    if (frame.clip == 0) {
      indices[c] = 0;
      continue;
    }
    const double y = std::clamp(static_cast<double>(rotated[c]), -frame.clip, frame.clip);
    const double u = std::clamp((y + frame.clip) / frame.step, 0.0, top);
    const double low = std::floor(u);
    const double k = low + (rng.uniform() < u - low ? 1.0 : 0.0);
    indices[c] = static_cast<std::uint32_t>(std::min(k, top));
  }
}

void thc_decode_sums(std::span<const std::uint32_t> sums, std::size_t terms, const ThcFrame& frame,
                     std::span<float> out) {
  const double per_term = frame.step / static_cast<double>(terms);
  for (std::size_t c = 0; c < sums.size(); ++c)
    out[c] =
        frame.clip == 0 ? 0.0f : static_cast<float>(-frame.clip + static_cast<double>(sums[c]) * per_term);
}

unsigned sum_width(std::uint32_t levels, std::size_t terms) {
  return static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(levels - 1) * terms));
}

void write_sums(std::span<const std::uint32_t> sums, unsigned width, Bytes& out) {
  BitWriter writer(out);
  writer.reserve(sums.size() * width);
  for (const std::uint32_t s : sums) writer.write(s, width);
  writer.finish();
}

void read_sums(std::span<const std::uint8_t> message, unsigned width, std::uint64_t largest,
               std::span<std::uint32_t> sums) {
  BitReader in(message, 0, "thc");
  if (!in.has(sums.size() * width)) in.fail("truncated message");
  for (std::uint32_t& s : sums) {
    const std::uint64_t value = in.read(width);
    if (value > largest) in.fail("a sum of indices above its largest possible value");
    s = static_cast<std::uint32_t>(value);
  }
  in.expect_end();
}

}  // namespace sgdsim::compression
