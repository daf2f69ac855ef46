// The dataset kind synthetic: a generated problem with a known optimum (see synthetic.hpp).
#include "algorithms/learning/libsvm.hpp"
#include "algorithms/learning/problem.hpp"
#include "algorithms/learning/synthetic.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {
namespace {

Problem load_synthetic(Spec& data, std::uint64_t seed, const std::string&) {
  SyntheticSpec spec;
  spec.kind = data.string("kind") == "linear" ? SyntheticKind::linear : SyntheticKind::logistic;
  spec.samples = static_cast<std::size_t>(data.integer("samples"));
  spec.features = static_cast<std::size_t>(data.integer("features"));
  spec.noise = data.number("noise");
  spec.test_samples = static_cast<std::size_t>(data.integer("test_samples"));
  if ((spec.samples + spec.test_samples) > max_dense_values / spec.features) {
    data.fail("samples", "samples x features is too large to hold in memory (limit " +
                             std::to_string(max_dense_values) + " values)");
  }
  return make_synthetic(spec, seed);
}

const bool registered_synthetic_dataset = datasets().add(
    {"synthetic",
     "A generated problem: features x ~ N(0, I), truth w* ~ N(0, I/d); linear targets x·w* + noise·e or "
     "logistic labels [x·w* + noise·e > 0].",
     {keys::choice("kind", {"logistic", "linear"}, "Labels (logistic) or real-valued targets (linear).")
          .fallback_to("logistic"),
      keys::integer("samples", "Training samples.").fallback_to(1000).between(1, 10'000'000),
      keys::integer("features", "Features d.").fallback_to(10).between(1, 100'000),
      keys::number("noise", "Standard deviation of the noise e.").fallback_to(0.1).at_least(0),
      keys::integer("test_samples", "Test samples.").fallback_to(1000).between(0, 10'000'000)},
     {"suboptimality_by_default"}},
    load_synthetic);

}  // namespace
}  // namespace sgdsim::learning
