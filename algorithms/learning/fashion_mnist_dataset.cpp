// The dataset kind fashion-mnist: Debian's dataset-fashion-mnist package, or the same IDX files elsewhere.
#include "algorithms/learning/fashion_mnist.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {
namespace {

Problem load(Spec& data, std::uint64_t, const std::string& base_dir) {
  const std::string dir = resolve_path(data.string("path"), base_dir);
  const auto samples = static_cast<std::size_t>(data.integer("samples"));
  const auto test_samples = static_cast<std::size_t>(data.integer("test_samples"));
  Problem problem = load_fashion_mnist(dir);
  if (samples > problem.train.samples())
    data.fail("samples", "asks for " + std::to_string(samples) + " training samples but " + dir + " has " +
                             std::to_string(problem.train.samples()) + " (0 means all)");
  if (test_samples > problem.test.samples())
    data.fail("test_samples", "asks for " + std::to_string(test_samples) + " test samples but " + dir +
                                  " has " + std::to_string(problem.test.samples()) + " (0 means all)");
  keep_first(problem.train, samples);
  keep_first(problem.test, test_samples);
  problem.description = describe_problem("fashion-mnist", problem);
  return problem;
}

const bool registered = datasets().add(
    {"fashion-mnist",
     "Fashion-MNIST (Xiao et al. 2017): 28×28 grey images of 10 classes of clothing, 60000 train and 10000 "
     "test, "
     "from the IDX files (gzip or not) in `path`.",
     {keys::path("path", "Folder of the four IDX files.").fallback_to(default_fashion_mnist_dir),
      keys::integer("samples", "Keep only the first n training samples (0: all).").fallback_to(0).at_least(0),
      keys::integer("test_samples", "Keep only the first n test samples (0: all).")
          .fallback_to(0)
          .at_least(0)},
     {}},
    load);

}  // namespace
}  // namespace sgdsim::learning
