#include "algorithms/compression/dgc.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/elias.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {
constexpr std::size_t max_dimension = std::size_t{1} << 31;
// "Far more than expected" (the paper gives no figure): more than 1.3 k pass, GRACE's tolerance.
constexpr double overshoot = 1.3;

std::uint32_t magnitude(float x) {
  return std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu;
}
}  // namespace

Dgc::Dgc(double fraction, double sample) : fraction_(fraction), sample_(sample) {
  if (!(fraction > 0 && fraction <= 1) || !(sample > 0 && sample <= 1))
    throw std::invalid_argument("dgc: fraction and sample must be in (0, 1]");
}

std::size_t Dgc::target(std::size_t d) const {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(fraction_ * static_cast<double>(d))));
}
std::size_t Dgc::most(std::size_t d) const {
  return std::min(d, static_cast<std::size_t>(std::ceil(overshoot * static_cast<double>(target(d)))));
}
std::size_t Dgc::samples(std::size_t d) const {
  return std::clamp<std::size_t>(static_cast<std::size_t>(std::llround(sample_ * static_cast<double>(d))), 1,
                                 std::max<std::size_t>(d, 1));
}

void Dgc::select(std::span<const float> values, Rng& rng, std::vector<std::uint32_t>& positions) const {
  const std::size_t d = values.size();
  positions.clear();
  if (d == 0) return;
  // The threshold: the k_s-th largest magnitude of s coordinates drawn with replacement, k_s = ceil(f·s).
  const std::size_t s = samples(d);
  std::vector<std::uint32_t> sampled(s);
  for (std::uint32_t& m : sampled) {
    const auto i = static_cast<std::size_t>(rng.uniform() * static_cast<double>(d));
    m = magnitude(values[std::min(i, d - 1)]);
  }
  const std::size_t ks =
      std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(fraction_ * static_cast<double>(s))), 1, s);
  std::nth_element(sampled.begin(), sampled.begin() + static_cast<std::ptrdiff_t>(ks - 1), sampled.end(),
                   std::greater<>());
  // A zero threshold would send zeros: then only nonzero coordinates pass.
  const std::uint32_t threshold = std::max<std::uint32_t>(sampled[ks - 1], 1);
  for (std::size_t i = 0; i < d; ++i)
    if (magnitude(values[i]) >= threshold) positions.push_back(static_cast<std::uint32_t>(i));
  if (positions.size() <= most(d)) return;
  // Hierarchical selection: the exact top-k among those that passed (ties to the lower index).
  const std::size_t k = target(d);
  std::vector<std::uint32_t> passed(positions.size());
  for (std::size_t j = 0; j < positions.size(); ++j) passed[j] = magnitude(values[positions[j]]);
  std::nth_element(passed.begin(), passed.begin() + static_cast<std::ptrdiff_t>(k - 1), passed.end(),
                   std::greater<>());
  const std::uint32_t exact = passed[k - 1];
  std::size_t ties = k;
  for (std::uint32_t p : positions) ties -= magnitude(values[p]) > exact;
  std::size_t kept = 0;
  for (std::uint32_t p : positions) {
    const std::uint32_t a = magnitude(values[p]);
    if (a > exact || (a == exact && ties > 0 && ties--)) positions[kept++] = p;
  }
  positions.resize(kept);
}

void Dgc::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  const std::size_t d = values.size();
  if (d >= max_dimension) throw InputError("dgc: vectors of 2^31 or more coordinates are not supported");
  for (std::size_t i = 0; i < d; ++i)
    if (!std::isfinite(values[i]))
      throw NonFiniteInput("dgc: value at index " + std::to_string(i) + " is not finite");
  std::vector<std::uint32_t> positions;
  select(values, rng, positions);
  {
    BitWriter writer(out);
    writer.reserve(32 + 2 * d + positions.size());
    writer.write(positions.size(), 32);
    std::size_t next = 0;
    for (std::uint32_t i : positions) {
      write_elias(writer, EliasCode::omega, i + 1 - next);
      next = i + 1;
    }
    writer.finish();
  }
  const std::size_t at = out.size();
  out.resize(at + 4 * positions.size());
  for (std::size_t j = 0; j < positions.size(); ++j)
    std::memcpy(out.data() + at + 4 * j, &values[positions[j]], 4);
}

void Dgc::decode_from(std::span<const std::uint8_t> message, std::size_t start, std::span<float> out) const {
  const std::size_t d = out.size();
  BitReader in(message, start, "dgc");
  const std::size_t count = in.read(32);
  if (count > most(d)) in.fail("count " + std::to_string(count) + " exceeds " + std::to_string(most(d)));
  std::vector<std::uint32_t> positions(count);
  std::size_t next = 0;
  for (std::size_t j = 0; j < count; ++j) {
    const std::size_t limit = d - next - (count - j - 1);
    const std::size_t position = next - 1 + read_elias(in, EliasCode::omega, limit, "position gap");
    positions[j] = static_cast<std::uint32_t>(position);
    next = position + 1;
  }
  in.align();
  const std::size_t at = in.byte_offset(), available = message.size() - at;
  if (available != 4 * count)
    throw DecodeError("dgc decoder: expected " + std::to_string(4 * count) +
                      " bytes of float32 values, found " + std::to_string(available) +
                      (available < 4 * count ? " (truncated message)" : " (trailing bytes)") +
                      " at byte offset " + std::to_string(std::min(message.size(), at + 4 * count)) + " of " +
                      std::to_string(message.size()));
  std::fill(out.begin(), out.end(), 0.0f);
  for (std::size_t j = 0; j < count; ++j) std::memcpy(&out[positions[j]], message.data() + at + 4 * j, 4);
}

}  // namespace sgdsim::compression
