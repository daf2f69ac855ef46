#pragma once
// Generated problems with a known structure, for checking convergence against the exact optimum.
//   features  x ~ N(0, I_d)
//   truth     w* ~ N(0, I_d / d), so that x·w* ~ N(0, 1) whatever d
//   linear    target y = x·w* + noise·e,          e ~ N(0, 1)
//   logistic  label  y = [x·w* + noise·e > 0]     (noise 0: linearly separable)
// Draws come from Rng::stream(seed, 0, Purpose::data) in a fixed order: w*, then the training samples, then
// the test samples (each sample: its d features, then its e).
#include <cstdint>

#include "algorithms/learning/dataset.hpp"

namespace sgdsim::learning {

enum class SyntheticKind { logistic, linear };

struct SyntheticSpec {
  SyntheticKind kind = SyntheticKind::logistic;
  std::size_t samples = 1000;
  std::size_t features = 10;
  double noise = 0.1;
  std::size_t test_samples = 1000;
};

Problem make_synthetic(const SyntheticSpec& spec, std::uint64_t seed);

}  // namespace sgdsim::learning
