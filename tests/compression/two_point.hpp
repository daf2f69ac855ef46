#pragma once
// Monte-Carlo checks of a compressor whose every coordinate takes one of two values with known probabilities
// (the Rounding of oracle.hpp): each output is one of the two, the mean is the input within 4 standard errors
// (unbiasedness; checked with `per_coordinate`, for small vectors and many trials, where the normal
// approximation holds and there are few comparisons), and the mean total squared error matches the sum of the
// exact variances.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "oracle.hpp"

namespace sgdsim::testing {

inline void check_two_point(const compression::Compressor& q, const std::vector<float>& v,
                            const std::vector<Rounding>& exact, int trials, std::uint64_t seed,
                            bool per_coordinate = true) {
  REQUIRE(exact.size() == v.size());
  std::vector<double> sum(v.size(), 0.0);
  double total = 0, total_sq = 0, expected = 0;
  for (const Rounding& r : exact) expected += r.variance();
  Rng rng(seed);
  for (int t = 0; t < trials; ++t) {
    const std::vector<float> out = q.apply(v, rng);
    double error = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const Rounding& r = exact[i];
      if (out[i] != static_cast<float>(r.low) && out[i] != static_cast<float>(r.high))
        FAIL("coordinate " << i << " (" << v[i] << ") became " << out[i] << ", neither " << r.low << " nor "
                           << r.high);
      sum[i] += out[i];
      error += (static_cast<double>(out[i]) - v[i]) * (static_cast<double>(out[i]) - v[i]);
    }
    total += error;
    total_sq += error * error;
  }
  for (std::size_t i = 0; i < v.size() && per_coordinate; ++i) {
    INFO("coordinate " << i << " value " << v[i]);
    const Rounding& r = exact[i];
    CHECK(r.mean() == Approx(v[i]).margin(1e-7 * std::fabs(v[i])));
    CHECK(std::fabs(sum[i] / trials - v[i]) <= 4 * std::sqrt(r.variance() / trials) + 1e-7 * std::fabs(v[i]));
  }
  const double mean = total / trials, spread = std::sqrt(std::max(0.0, total_sq / trials - mean * mean));
  INFO("mean squared error " << mean << ", exact expectation " << expected);
  CHECK(std::fabs(mean - expected) <= 4 * spread / std::sqrt(trials) + 1e-6 * expected);
}

}  // namespace sgdsim::testing
