#include "algorithms/learning/problem.hpp"

#include <filesystem>

#include "algorithms/learning/partition.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {

keys::Registry<DatasetFactory>& datasets() {
  static keys::Registry<DatasetFactory> family(
      "data", "dataset", "The training and test data, and how the training samples are split across nodes.",
      {keys::variant("partition", partitions(), "How training samples are assigned to nodes.")
           .fallback_to({{"kind", "iid"}}),
       keys::integer("batch_size", "Samples per minibatch of every node.")
           .fallback_to(32)
           .between(1, 1 << 24)});
  return family;
}

Problem load_problem(Spec& data, std::uint64_t seed, const std::string& base_dir) {
  return datasets().factory(data.kind_name())(data, seed, base_dir);
}

std::string resolve_path(const std::string& path, const std::string& base_dir) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || base_dir.empty()) return path;
  return (std::filesystem::path(base_dir) / p).string();
}

void keep_first(Dataset& data, std::size_t limit) {
  if (limit == 0 || limit >= data.samples()) return;
  data.features.conservativeResize(static_cast<Eigen::Index>(limit), Eigen::NoChange);
  if (!data.labels.empty()) data.labels.resize(limit);
  if (!data.targets.empty()) data.targets.resize(limit);
}

std::string describe_problem(const std::string& name, const Problem& p) {
  std::string text = name + " (" + std::to_string(p.train.samples()) + " train, " +
                     std::to_string(p.test.samples()) + " test, " + std::to_string(p.train.dimension()) +
                     " features, ";
  text += p.train.classes > 0 ? std::to_string(p.train.classes) + " classes)" : "regression)";
  return text;
}

}  // namespace sgdsim::learning
