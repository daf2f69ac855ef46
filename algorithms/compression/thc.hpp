#pragma once
// Uniform THC's quantizer (Li, Ben Basat, Vargaftik, Lao, Xu, Mitzenmacher and Yu, NSDI 2024, "THC:
// Accelerating Distributed Deep Learning Using Tensor Homomorphic Compression"). Every worker quantizes its
// rotated vector (hadamard.hpp) in one frame that all workers share: with N the largest of the workers'
// norms and D the rotated length, the clipping range is [−t, t] with t = (N/√D) Φ⁻¹(1 − p) (a rotated
// coordinate overflows with probability about p), and the q = 2^b levels are −t + kΔ, Δ = 2t/(q − 1). A
// coordinate y is clipped and rounded stochastically to a neighbouring level (unbiased inside the range), and
// the worker sends its level's index k as a b-bit integer. Integers of the same frame add up: the sum S of n
// workers' indices decodes to their mean directly, −t + (S/n) Δ, so aggregation never decodes (the
// homomorphism). The paper's non-uniform variant (a lookup table solved offline for normal coordinates) is
// not here. Wire of a (partial) sum of k workers' indices: each as an unsigned integer of
// sum_width(b, k) = bit_width((q − 1) k) bits, most significant first, padded with zero bits to a byte.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "common/rng.hpp"

namespace sgdsim::compression {

struct ThcFrame {
  double clip = 0;  // t; 0 when every worker's vector is 0 (every index then decodes to 0)
  double step = 0;  // Δ
  std::uint32_t levels = 2;
};

// Φ⁻¹(1 − p), 0 < p < 1/2: the point a standard normal exceeds with probability p.
double normal_upper_quantile(double p);
// The frame of `bits`-bit indices for rotated vectors of `padded` coordinates whose largest norm is
// `max_norm`, with overflow probability `overflow` per coordinate.
ThcFrame thc_frame(double max_norm, std::size_t padded, double overflow, unsigned bits);
// The indices of `rotated` in `frame`, rounded stochastically with `rng`.
void thc_quantize(std::span<const float> rotated, const ThcFrame& frame, Rng& rng,
                  std::span<std::uint32_t> indices);
// The mean −t + (S/n) Δ of the rotated vectors whose indices sum to `sums` over `terms` = n workers.
void thc_decode_sums(std::span<const std::uint32_t> sums, std::size_t terms, const ThcFrame& frame,
                     std::span<float> out);
// Bits of one coordinate of a sum of `terms` indices of a frame with `levels` levels.
unsigned sum_width(std::uint32_t levels, std::size_t terms);
// Appends `sums` (each below 2^width) to `out` on sum_width bits each.
void write_sums(std::span<const std::uint32_t> sums, unsigned width, Bytes& out);
// Reads sums.size() values of `width` bits from the whole of `message`; a value above `largest`, a short
// message or trailing bytes are DecodeErrors.
void read_sums(std::span<const std::uint8_t> message, unsigned width, std::uint64_t largest,
               std::span<std::uint32_t> sums);

}  // namespace sgdsim::compression
