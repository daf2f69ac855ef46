#include "common/rng.hpp"

#include <cmath>
#include <numbers>

namespace sgdsim {

double Rng::normal() {
  // 1 - u lies in (0, 1], so the logarithm is finite.
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace sgdsim
