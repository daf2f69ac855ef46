#pragma once
// Elias universal codes for positive integers, used for gaps between nonzero positions and for level indices.
// Omega (recursive, as in QSGD): lengths 1, 3, 3, 6, ... ~ log k + log log k; gamma: 2*floor(log2 k) + 1
// bits. Values on the wire here are below 2^32 (gaps and levels within a vector of fewer than 2^32
// coordinates).
#include <bit>
#include <cstddef>
#include <cstdint>

#include "algorithms/compression/bit_stream.hpp"

namespace sgdsim::compression {

enum class EliasCode { omega, gamma };

// Bits taken by the code of k >= 1.
constexpr unsigned elias_omega_length(std::uint64_t k) {
  unsigned length = 1;  // the terminating 0
  while (k > 1) {
    const unsigned width = static_cast<unsigned>(std::bit_width(k));
    length += width;
    k = width - 1;
  }
  return length;
}
constexpr unsigned elias_gamma_length(std::uint64_t k) {
  return 2 * static_cast<unsigned>(std::bit_width(k)) - 1;
}
constexpr unsigned elias_length(EliasCode code, std::uint64_t k) {
  return code == EliasCode::omega ? elias_omega_length(k) : elias_gamma_length(k);
}

// A code as one field: `length` bits (at most 43 for k < 2^32), the first on the wire most significant.
struct EliasBits {
  std::uint64_t value;
  unsigned length;
};

// Omega: the groups k, floor(log2 k), ... down to (excluding) 1, the last computed written first, then a 0.
constexpr EliasBits elias_omega_bits_computed(std::uint64_t k) {
  EliasBits bits{0, 1};  // the terminating 0
  while (k > 1) {
    const auto width = static_cast<unsigned>(std::bit_width(k));
    bits.value |= k << bits.length;
    bits.length += width;
    k = width - 1;
  }
  return bits;
}

namespace detail {
// Gaps and level indices are mostly small: their omega codes come from a table (4 KiB).
constexpr std::size_t omega_table_size = 512;
struct OmegaTable {
  std::uint32_t value[omega_table_size];
  std::uint8_t length[omega_table_size];
};
constexpr OmegaTable make_omega_table() {
  OmegaTable table{};
  for (std::size_t k = 1; k < omega_table_size; ++k) {
    const EliasBits bits = elias_omega_bits_computed(k);
    table.value[k] = static_cast<std::uint32_t>(bits.value);
    table.length[k] = static_cast<std::uint8_t>(bits.length);
  }
  return table;
}
inline constexpr OmegaTable omega_table = make_omega_table();
}  // namespace detail

// The code of 1 <= k < 2^32.
inline EliasBits elias_bits(EliasCode code, std::uint64_t k) {
  if (code == EliasCode::gamma) {
    // floor(log2 k) zeros, then k in binary: k itself in a field of 2 floor(log2 k) + 1 bits.
    return {k, 2 * static_cast<unsigned>(std::bit_width(k)) - 1};
  }
  if (k < detail::omega_table_size) return {detail::omega_table.value[k], detail::omega_table.length[k]};
  return elias_omega_bits_computed(k);
}

// Writes the code of 1 <= k < 2^32 through a BitWriter or a BitCursor.
template <typename Writer>
void write_elias(Writer& out, EliasCode code, std::uint64_t k) {
  const EliasBits bits = elias_bits(code, k);
  if (bits.length <= 32) {
    out.write(bits.value, bits.length);
  } else {
    out.write(bits.value >> 32, bits.length - 32);
    out.write(bits.value & 0xFFFFFFFFu, 32);
  }
}

inline void write_elias_omega(BitWriter& out, std::uint64_t k) {
  write_elias(out, EliasCode::omega, k);
}
inline void write_elias_gamma(BitWriter& out, std::uint64_t k) {
  write_elias(out, EliasCode::gamma, k);
}

// Reads a code and checks 1 <= k <= max (max < 2^32): corrupt bytes that would decode to a larger number fail
// before reading it, so no input makes the decoder loop or shift out of range.
inline std::uint64_t read_elias_omega(BitReader& in, std::uint64_t max, const char* what) {
  std::uint64_t n = 1;
  const auto max_width = static_cast<std::uint64_t>(std::bit_width(max));
  while (in.read_bit()) {
    // The group being read has n + 1 bits and a leading 1, so it is at least 2^n.
    if (n + 1 > max_width) in.fail(std::string(what) + " out of range");
    n = (std::uint64_t{1} << n) | in.read(static_cast<unsigned>(n));
  }
  if (n > max) in.fail(std::string(what) + " out of range");
  return n;
}

inline std::uint64_t read_elias_gamma(BitReader& in, std::uint64_t max, const char* what) {
  const auto max_width = static_cast<unsigned>(std::bit_width(max));
  unsigned zeros = 0;
  while (!in.read_bit()) {
    if (++zeros >= max_width) in.fail(std::string(what) + " out of range");
  }
  const std::uint64_t k = (std::uint64_t{1} << zeros) | in.read(zeros);
  if (k > max) in.fail(std::string(what) + " out of range");
  return k;
}

inline std::uint64_t read_elias(BitReader& in, EliasCode code, std::uint64_t max, const char* what) {
  return code == EliasCode::omega ? read_elias_omega(in, max, what) : read_elias_gamma(in, max, what);
}

}  // namespace sgdsim::compression
