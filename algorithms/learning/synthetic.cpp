#include "algorithms/learning/synthetic.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "common/rng.hpp"

namespace sgdsim::learning {

namespace {

Dataset draw(const SyntheticSpec& spec, const std::vector<double>& truth, std::size_t samples, Rng& rng) {
  const std::size_t d = spec.features;
  Dataset data;
  data.features.resize(static_cast<Eigen::Index>(samples), static_cast<Eigen::Index>(d));
  for (std::size_t i = 0; i < samples; ++i) {
    double signal = 0;
    for (std::size_t j = 0; j < d; ++j) {
      const double x = rng.normal();
      data.features(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = static_cast<float>(x);
      // The stored (rounded) feature defines the sample, so the signal uses it too.
      signal += static_cast<double>(static_cast<float>(x)) * truth[j];
    }
    const double y = signal + spec.noise * rng.normal();
    if (spec.kind == SyntheticKind::linear)
      data.targets.push_back(static_cast<float>(y));
    else
      data.labels.push_back(y > 0 ? 1 : 0);
  }
  data.classes = spec.kind == SyntheticKind::linear ? 0 : 2;
  return data;
}

}  // namespace

Problem make_synthetic(const SyntheticSpec& spec, std::uint64_t seed) {
  Rng rng = Rng::stream(seed, 0, Purpose::data);
  std::vector<double> truth(spec.features);
  const double scale = 1.0 / std::sqrt(static_cast<double>(spec.features));
  for (double& w : truth) w = scale * rng.normal();
  Problem problem;
  problem.train = draw(spec, truth, spec.samples, rng);
  problem.test = draw(spec, truth, spec.test_samples, rng);
  problem.synthetic = true;
  problem.description = std::string("synthetic ") +
                        (spec.kind == SyntheticKind::linear ? "linear" : "logistic") + " (" +
                        std::to_string(spec.samples) + " train, " + std::to_string(spec.test_samples) +
                        " test, " + std::to_string(spec.features) + " features)";
  return problem;
}

}  // namespace sgdsim::learning
