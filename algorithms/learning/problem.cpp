// Dispatch on "dataset" and the keys specific to each data set.
#include "algorithms/learning/problem.hpp"

#include <filesystem>
#include <limits>

#include "algorithms/learning/fashion_mnist.hpp"
#include "algorithms/learning/libsvm.hpp"
#include "algorithms/learning/synthetic.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {

namespace {

std::string resolve(const std::string& path, const std::string& base_dir) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || base_dir.empty()) return path;
  return (std::filesystem::path(base_dir) / p).string();
}

// Keeps the first `limit` samples (0 = all).
void truncate(Dataset& data, std::size_t limit) {
  if (limit == 0 || limit >= data.samples()) return;
  data.features.conservativeResize(static_cast<Eigen::Index>(limit), Eigen::NoChange);
  if (!data.labels.empty()) data.labels.resize(limit);
  if (!data.targets.empty()) data.targets.resize(limit);
}

std::string summary(const std::string& name, const Problem& p) {
  std::string text = name + " (" + std::to_string(p.train.samples()) + " train, " +
                     std::to_string(p.test.samples()) + " test, " + std::to_string(p.train.dimension()) +
                     " features, ";
  text += p.train.classes > 0 ? std::to_string(p.train.classes) + " classes)" : "regression)";
  return text;
}

Problem load_fashion(Spec& data, const std::string& base_dir) {
  const std::string dir = resolve(data.string("path", std::string(default_fashion_mnist_dir)), base_dir);
  const auto samples = static_cast<std::size_t>(data.integer("samples", 0, 0));
  const auto test_samples = static_cast<std::size_t>(data.integer("test_samples", 0, 0));
  Problem problem = load_fashion_mnist(dir);
  if (samples > problem.train.samples())
    data.fail("samples", "asks for " + std::to_string(samples) + " training samples but " + dir + " has " +
                             std::to_string(problem.train.samples()) + " (0 means all)");
  if (test_samples > problem.test.samples())
    data.fail("test_samples", "asks for " + std::to_string(test_samples) + " test samples but " + dir +
                                  " has " + std::to_string(problem.test.samples()) + " (0 means all)");
  truncate(problem.train, samples);
  truncate(problem.test, test_samples);
  problem.description = summary("fashion-mnist", problem);
  return problem;
}

Problem load_libsvm(Spec& data, const std::string& base_dir) {
  const std::string train_path = resolve(data.string("path"), base_dir);
  std::string test_path;
  if (data.has("test_path")) test_path = resolve(data.string("test_path"), base_dir);
  const auto features = static_cast<std::size_t>(data.integer("features", 0, 0, std::int64_t{1} << 31));
  const SparseSamples train = read_libsvm_file(train_path);
  const SparseSamples test = test_path.empty() ? SparseSamples{} : read_libsvm_file(test_path);
  std::size_t dimension = std::max(train.dimension, test.dimension);
  if (features > 0) {
    if (dimension > features) {
      const bool in_train = train.dimension > features;
      data.fail("features", "is " + std::to_string(features) + " but " + (in_train ? train_path : test_path) +
                                " uses feature index " +
                                std::to_string(in_train ? train.dimension : test.dimension));
    }
    dimension = features;
  }
  if (dimension == 0) throw InputError(train_path + ": no sample has any feature");
  const LabelCoding coding = test_path.empty() ? label_coding({&train}) : label_coding({&train, &test});
  Problem problem;
  problem.train = densify(train, dimension, coding, train_path);
  problem.test = densify(test, dimension, coding, test_path.empty() ? train_path : test_path);
  problem.description = summary("libsvm " + train_path, problem);
  return problem;
}

Problem load_synthetic(Spec& data, std::uint64_t seed) {
  SyntheticSpec spec;
  spec.kind = data.choice("kind", {"logistic", "linear"}, "logistic") == "linear" ? SyntheticKind::linear
                                                                                  : SyntheticKind::logistic;
  spec.samples = static_cast<std::size_t>(data.integer("samples", 1000, 1, 10'000'000));
  spec.features = static_cast<std::size_t>(data.integer("features", 10, 1, 100'000));
  spec.noise = data.number("noise", 0.1, 0.0);
  spec.test_samples = static_cast<std::size_t>(data.integer("test_samples", 1000, 0, 10'000'000));
  if ((spec.samples + spec.test_samples) > max_dense_values / spec.features) {
    data.fail("samples", "samples x features is too large to hold in memory (limit " +
                             std::to_string(max_dense_values) + " values)");
  }
  return make_synthetic(spec, seed);
}

}  // namespace

Problem load_problem(Spec& data, std::uint64_t seed, const std::string& base_dir) {
  const std::string dataset = data.choice("dataset", {"fashion-mnist", "libsvm", "synthetic"});
  if (dataset == "fashion-mnist") return load_fashion(data, base_dir);
  if (dataset == "libsvm") return load_libsvm(data, base_dir);
  return load_synthetic(data, seed);
}

}  // namespace sgdsim::learning
