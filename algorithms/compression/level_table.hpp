#pragma once
// A level table and the one stochastic-rounding core every quantizer shares (docs/algorithms.md §1).
// Tables are signed and sorted: the paper tables mirror their magnitudes {0, l_1, ..., 1} around zero, the
// "code" tables of NUQSGD's official code have 2^b signed levels and no zero. Rounding a normalised value y
// between its neighbours t_j <= y <= t_{j+1} picks t_{j+1} with probability (y - t_j)/(t_{j+1} - t_j): on a
// mirrored table this is exactly "round |y| between magnitudes, keep the sign", and on a zero-free table it
// is what the code tables need, so one core serves all of them.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace sgdsim::compression {

class LevelTable {
 public:
  // QSGD's paper table: magnitudes {0, 1/s, ..., 1}.
  static LevelTable uniform(int s);
  // NUQSGD's paper table: magnitudes {0, p^s, p^(s-1), ..., p, 1}.
  static LevelTable exponential(int s, double p);
  // The QSGD baseline of NUQSGD's code: linspace(-1, 1, 2^bits).
  static LevelTable code_uniform(int bits);
  // NUQSGD's code table: ±{1, p, ..., p^(2^(bits-1) - 1)}, no zero.
  static LevelTable code_exponential(int bits, double p);

  // The signed levels, ascending, in [-1, 1]; at most 65536 so an index fits 16 bits.
  std::span<const float> values() const { return values_; }
  std::size_t size() const { return values_.size(); }
  bool has_zero() const { return has_zero_; }
  // Index of the level 0 (paper tables only); index zero_index() ± m is the m-th magnitude with its sign.
  std::size_t zero_index() const { return zero_index_; }
  // Number of nonzero magnitudes of a paper table.
  std::size_t magnitudes() const { return size() / 2; }
  // ceil(log2(size())): the width of a fixed-width index.
  unsigned index_bits() const { return index_bits_; }

  // Tables whose nonzero levels are exactly ±2^k for every k from min_exponent to 0, with or without a zero
  // (NUQSGD's tables with p = 1/2): the interval of y then follows from y's exponent bits (simd.cpp), with no
  // search. count = the number of positive levels, 1 - min_exponent.
  struct Halving {
    std::int32_t min_exponent = 0;
    std::uint32_t count = 0;
  };
  const std::optional<Halving>& halving() const { return halving_; }

  // The core. `y` is a normalised value (clamped to [-1, 1]); `u` a uniform draw in [0, 1).
  // Returns the index of the level chosen. Finding the interval depends on the table's shape (arithmetic on
  // evenly spaced tables, a grid otherwise); the rounding decision, up when u < p, is the same for all.
  // Calls f(rounder) with a small value that rounds like round(): hot loops hoist the shape dispatch and keep
  // the table's parameters in registers.
  template <typename F>
  auto with_rounder(F&& f) const {
    switch (shape_) {
      case Shape::mirrored_uniform:
        return f(MirroredUniform{steps_, zero_});
      case Shape::evenly_spaced:
        return f(EvenlySpaced{values_.front(), steps_, last_interval_});
      case Shape::general:
        break;
    }
    return f(General{values_.data(), inverse_gap_.data(), grid_.data(), values_.front(), values_.back(),
                     grid_scale_, last_interval_});
  }

  // Levels {-1, ..., -1/s, 0, 1/s, ..., 1}: round |y| s between its floor and ceiling and keep the sign;
  // working on |y| keeps full float precision near zero.
  struct MirroredUniform {
    float steps;  // s
    std::uint32_t zero;
    // The definition the vector kernels (simd.cpp) reproduce lane by lane, operation for operation.
    std::uint32_t operator()(float y, float u) const {
      const float x = std::min(std::fabs(y) * steps, steps);
      const auto k = static_cast<std::int32_t>(x);
      const std::int32_t m = k + static_cast<std::int32_t>(u < x - static_cast<float>(k));
      const std::int32_t sign = std::bit_cast<std::int32_t>(y) >> 31;  // 0 or -1
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(zero) + ((m ^ sign) - sign));
    }
  };
  // Evenly spaced levels without zero: the interval is arithmetic.
  struct EvenlySpaced {
    float low, steps;  // t_0 and 1 / spacing
    std::uint32_t last;
    std::uint32_t operator()(float y, float u) const {
      const float x = std::max((y - low) * steps, 0.0f);
      const std::int32_t j = std::min(static_cast<std::int32_t>(x), static_cast<std::int32_t>(last));
      return static_cast<std::uint32_t>(j + static_cast<std::int32_t>(u < x - static_cast<float>(j)));
    }
  };
  // Any table: a grid gives the interval or a neighbour (float rounding at cell edges, several levels per
  // cell near zero on exponential tables); a short walk finds t_j <= y <= t_{j+1}.
  struct General {
    const float* values;
    const float* inverse_gap;
    const std::uint32_t* grid;
    float low, high, scale;
    std::uint32_t last;
    std::uint32_t operator()(float y, float u) const {
      y = std::clamp(y, low, high);
      std::uint32_t j = grid[static_cast<std::size_t>((y - low) * scale)];
      while (j > 0 && values[j] > y) --j;
      while (j < last && values[j + 1] <= y) ++j;
      const float p = (y - values[j]) * inverse_gap[j];
      return j + (u < p ? 1u : 0u);
    }
  };

  // (round() itself, after the rounders it dispatches to.)
  std::uint32_t round(float y, float u) const {
    return with_rounder([y, u](const auto& rounder) -> std::uint32_t { return rounder(y, u); });
  }

 private:
  explicit LevelTable(std::vector<double> levels);
  enum class Shape { mirrored_uniform, evenly_spaced, general };
  Shape shape_ = Shape::general;
  float steps_ = 0;  // levels per unit of y on evenly spaced tables
  std::uint32_t zero_ = 0;
  std::uint32_t last_interval_ = 0;  // size() - 2
  std::vector<float> values_;
  std::vector<float> inverse_gap_;   // 1 / (t_{j+1} - t_j)
  std::vector<std::uint32_t> grid_;  // cell -> largest j with t_j <= the cell's left edge
  float grid_scale_ = 0;             // cells per unit of y
  bool has_zero_ = false;
  std::size_t zero_index_ = 0;
  std::optional<Halving> halving_;
  unsigned index_bits_ = 0;
};

// Two 24-bit uniforms in [0, 1) from one 64-bit draw: halves the generator cost per coordinate. 24 bits are
// exact in a float, so P(u < p) = ceil(2^24 p) / 2^24: a bias below 6e-8 of one level gap.
inline void uniform_pair(std::uint64_t bits, float& u0, float& u1) {
  constexpr float scale = 0x1.0p-24f;
  u0 = static_cast<float>(bits >> 40) * scale;
  u1 = static_cast<float>((bits >> 8) & 0xFFFFFFu) * scale;
}

}  // namespace sgdsim::compression
