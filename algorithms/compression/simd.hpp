#pragma once
// The vector kernels of the codecs (simd.cpp), compiled by Google Highway for every x86 instruction set from
// SSE2 (Highway's EMU128, plain C++) to AVX-512 and picked at run time for the CPU at hand. Every kernel does
// exactly the IEEE single-precision operations of the scalar definitions in level_table.hpp, in the same
// order and without fused multiply-adds, so every instruction set gives the same bits.
// Callers pad nothing: the kernels handle any length.
#include <cstddef>
#include <cstdint>

#include "common/rng.hpp"

namespace sgdsim::compression {
class LevelTable;
struct BitCursor;
}  // namespace sgdsim::compression

namespace sgdsim::compression::simd {

// The name of the instruction set the kernels run on (e.g. "AVX3", "SCALAR"): for benchmarks and tests.
const char* instruction_set();

// One bucket's rounding, as LevelTable::with_rounder describes it: y = v * factor (or v / factor when the
// norm is too small to have a float inverse), then the rounder of the table's shape.
struct RoundJob {
  // halving: a general table with LevelTable::halving(), whose interval comes from y's exponent bits.
  enum class Shape { mirrored_uniform, evenly_spaced, general, halving };
  Shape shape = Shape::general;
  float factor = 1;
  bool divide = false;
  float steps = 0;                     // mirrored_uniform, evenly_spaced
  std::uint32_t zero = 0;              // mirrored_uniform; halving: 1 when the table has a zero
  float low = 0, high = 0;             // evenly_spaced (low), general and halving (both)
  std::uint32_t last = 0;              // size() - 2
  const float* values = nullptr;       // general
  const float* inverse_gap = nullptr;  // general
  std::int32_t min_exponent = 0;       // halving: LevelTable::Halving
  std::uint32_t count = 0;             // halving
  // The same two tables padded with zeros to the longest vector (16 floats), for tables that fit one.
  float padded_values[16] = {};
  float padded_inverse_gap[16] = {};
};

// The job for a bucket of `table` with norm > 0 (defined in quantizer.cpp).
RoundJob round_job(const LevelTable& table, float norm);

// Rounds v[0, n) into level indices, drawing one word from `rng` per two coordinates (coordinate i takes
// bits 63..40 of its pair's word when i is even, bits 31..8 when odd: uniform_pair()).
void round_indices(const RoundJob& job, const float* v, std::size_t n, Rng& rng, std::uint16_t* indices);
// The same rounding, each index written to `out` as a w-bit field (w <= 8; `out` has room for n * w bits).
void encode_fixed(const RoundJob& job, const float* v, std::size_t n, unsigned w, Rng& rng, BitCursor& out);

// bits[i / 64] bit (i % 64) = indices[i] != zero, for i < n; the last word's unused bits are 0.
void nonzero_bits(const std::uint16_t* indices, std::size_t n, std::uint16_t zero, std::uint64_t* bits);

// out[i] = norm * levels[indices[i]] (times scale when `scaled`, as a second rounding). Returns n, or the
// first i whose index is not below `size` (out is then partly written).
std::size_t expand_levels(const std::uint16_t* indices, std::size_t n, const float* levels, std::size_t size,
                          float norm, bool scaled, float scale, float* out);

// The largest bit pattern of |v[i]| (0 for n = 0): max |v| as a float when every value is finite; at or above
// 0x7F800000 when some value is not.
std::uint32_t max_abs_bits(const float* v, std::size_t n);

// True when some v[i] is infinite or NaN.
bool any_non_finite(const float* v, std::size_t n);

// Writes to positions[] (ascending) every i with |v[i]| >= the float whose bits are `threshold_bits` and
// returns how many (positions needs room for n + 64). Also ORs into `non_finite` whether any v[i] is.
std::size_t collect_at_least(const float* v, std::size_t n, std::uint32_t threshold_bits,
                             std::uint32_t* positions, bool& non_finite);

// words[j]: the signs of v[32j, 32j + 32), bit 31 first; a bit is 1 for a negative value other than -0.
void sign_words(const float* v, std::size_t words, std::uint32_t* out);
// out[32j + k] = bit (31 - k) of words[j] ? -scale : scale, for 32 * count coordinates.
void expand_signs(const std::uint32_t* words, std::size_t count, float scale, float* out);
// Adds v[i]² to norm[i % 8] and (approx[i] - v[i])² to error[i % 8], in double, for i < n in order: each
// of the 8 sums gets the same additions in the same order on every instruction set (no fused multiply-adds).
void squared_error(const float* v, const float* approx, std::size_t n, double* norm, double* error);
// bucket_norms' L1 loop over `chunks` chunks of 64 values: for each chunk, part[k] = the sum in double of
// |v[c + 8j + k]| for j = 0..7 (in that order, from 0), then sum[k] += part[k], for k < 8.
void l1_chunk_sums(const float* v, std::size_t chunks, double* sum);
// The same for bucket_norms' fast L2 loop: part[k] is the float sum of v[c + 8j + k]² (each square rounded to
// float), then sum[k] += part[k] in double.
void l2_chunk_sums(const float* v, std::size_t chunks, double* sum);

}  // namespace sgdsim::compression::simd
