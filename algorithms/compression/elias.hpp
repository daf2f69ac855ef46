#pragma once
// Elias universal codes for positive integers, used for gaps between nonzero positions and for level indices.
// Omega (recursive, as in QSGD): lengths 1, 3, 3, 6, ... ~ log k + log log k; gamma: 2*floor(log2 k) + 1
// bits. Values on the wire here are below 2^32 (gaps and levels within a vector of fewer than 2^32
// coordinates).
#include <bit>
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

// Omega: the groups k, floor(log2 k), ... down to (excluding) 1, most significant group last-written-first,
// then a 0. Requires 1 <= k < 2^32.
inline void write_elias_omega(BitWriter& out, std::uint64_t k) {
  std::uint32_t groups[6];
  unsigned widths[6];
  int n = 0;
  while (k > 1) {
    const unsigned width = static_cast<unsigned>(std::bit_width(k));
    groups[n] = static_cast<std::uint32_t>(k);
    widths[n++] = width;
    k = width - 1;
  }
  while (n > 0) {
    --n;
    out.write(groups[n], widths[n]);
  }
  out.write(0, 1);
}

// Gamma: floor(log2 k) zeros, then k in binary. Requires 1 <= k < 2^32.
inline void write_elias_gamma(BitWriter& out, std::uint64_t k) {
  const unsigned width = static_cast<unsigned>(std::bit_width(k));
  out.write(0, width - 1);
  out.write(k, width);
}

inline void write_elias(BitWriter& out, EliasCode code, std::uint64_t k) {
  if (code == EliasCode::omega)
    write_elias_omega(out, k);
  else
    write_elias_gamma(out, k);
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
