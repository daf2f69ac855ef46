#include "algorithms/compression/level_table.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

namespace sgdsim::compression {

namespace {
// Mirrors magnitudes 0 < m_1 < ... < m_k around zero, with or without a zero level between them.
std::vector<double> mirror(const std::vector<double>& magnitudes, bool with_zero) {
  std::vector<double> levels;
  for (auto it = magnitudes.rbegin(); it != magnitudes.rend(); ++it) levels.push_back(-*it);
  if (with_zero) levels.push_back(0.0);
  levels.insert(levels.end(), magnitudes.begin(), magnitudes.end());
  return levels;
}
}  // namespace

LevelTable::LevelTable(std::vector<double> levels) {
  if (levels.size() < 2 || levels.size() > 65536)
    throw std::invalid_argument("level table size out of range");
  values_.assign(levels.begin(), levels.end());
  for (std::size_t j = 0; j + 1 < values_.size(); ++j) {
    if (!(values_[j] < values_[j + 1]))
      throw std::invalid_argument("level table not strictly increasing in float");
    inverse_gap_.push_back(1.0f / (values_[j + 1] - values_[j]));
  }
  for (std::size_t j = 0; j < values_.size(); ++j) {
    if (values_[j] == 0.0f) has_zero_ = true, zero_index_ = j;
  }
  index_bits_ = static_cast<unsigned>(std::bit_width(values_.size() - 1));
  zero_ = static_cast<std::uint32_t>(zero_index_);
  last_interval_ = static_cast<std::uint32_t>(values_.size() - 2);
  const double spacing = (levels.back() - levels.front()) / static_cast<double>(levels.size() - 1);
  bool even = true;
  for (std::size_t j = 0; j + 1 < levels.size(); ++j)
    even = even && std::fabs(levels[j + 1] - levels[j] - spacing) < 1e-12;
  if (even) {
    shape_ = has_zero_ ? Shape::mirrored_uniform : Shape::evenly_spaced;
    steps_ = static_cast<float>(static_cast<double>(levels.size() - 1) / (levels.back() - levels.front()));
  }
  // Halving tables: the positive levels are 2^k, k = min_exponent..0 (a normal float each), mirrored below.
  const std::size_t positives = values_.size() / 2, first = values_.size() - positives;
  const int min_exponent = 1 - static_cast<int>(positives);
  bool halving = shape_ == Shape::general && min_exponent >= -126 &&
                 values_.size() == 2 * positives + (has_zero_ ? 1 : 0);
  for (std::size_t m = 0; halving && m < positives; ++m) {
    const float level = std::ldexp(1.0f, min_exponent + static_cast<int>(m));
    halving = values_[first + m] == level && values_[positives - 1 - m] == -level;
  }
  if (halving) halving_ = Halving{min_exponent, static_cast<std::uint32_t>(positives)};
  // About four cells per level, at least 1024; one extra cell for y at the top end.
  const std::size_t cells = std::clamp<std::size_t>(4 * values_.size(), 1024, 1u << 18);
  const double low = values_.front(), high = values_.back();
  grid_scale_ = static_cast<float>(cells / (high - low));
  grid_.resize(cells + 1);
  std::uint32_t j = 0;
  for (std::size_t c = 0; c <= cells; ++c) {
    const double edge = low + (high - low) * static_cast<double>(c) / static_cast<double>(cells);
    while (j + 2 < values_.size() && values_[j + 1] <= edge) ++j;
    grid_[c] = j;
  }
}

LevelTable LevelTable::uniform(int s) {
  std::vector<double> magnitudes;
  for (int i = 1; i <= s; ++i) magnitudes.push_back(static_cast<double>(i) / s);
  return LevelTable(mirror(magnitudes, true));
}

LevelTable LevelTable::exponential(int s, double p) {
  std::vector<double> magnitudes;
  for (int i = s; i >= 0; --i) magnitudes.push_back(std::pow(p, i));
  return LevelTable(mirror(magnitudes, true));
}

LevelTable LevelTable::code_uniform(int bits) {
  // Built from its positive half, (2i + 1)/(n - 1), so that the negative levels are exact mirrors.
  const std::size_t n = std::size_t{1} << bits;
  std::vector<double> magnitudes;
  for (std::size_t i = 0; i < n / 2; ++i)
    magnitudes.push_back(static_cast<double>(2 * i + 1) / static_cast<double>(n - 1));
  return LevelTable(mirror(magnitudes, false));
}

LevelTable LevelTable::code_exponential(int bits, double p) {
  const std::size_t k = std::size_t{1} << (bits - 1);
  std::vector<double> magnitudes;
  for (std::size_t i = k; i-- > 0;) magnitudes.push_back(std::pow(p, static_cast<double>(i)));
  return LevelTable(mirror(magnitudes, false));
}

}  // namespace sgdsim::compression
