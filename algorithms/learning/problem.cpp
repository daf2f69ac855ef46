#include "algorithms/learning/problem.hpp"

#include <filesystem>

#include "algorithms/learning/partition.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {

keys::Registry<DatasetFactory>& datasets() {
  static keys::Registry<DatasetFactory> family(
      "data", "dataset", "The training and test data, and how the training samples are split across nodes.",
      {keys::variant("partition", partitions(), "How training samples are assigned to nodes.")
           .fallback_to({{"kind", "iid"}}),
       keys::integer("batch_size", "Samples per minibatch of every node.")
           .fallback_to(32)
           .between(1, 1 << 24),
       keys::object("augment", augment_keys(),
                    "Data augmentation of every training minibatch (image data only); none by default.")},
      std::nullopt, {},
      {{"suboptimality_by_default",
        "Its optimum is cheap to solve exactly: with a convex model the trace's suboptimality column is on "
        "unless eval says otherwise."}});
  return family;
}

const keys::Object& augment_keys() {
  static const keys::Object object{
      "augment",
      "Random crops and flips of the training images, drawn from each node's own stream (seed, node).",
      {keys::integer("crop_padding",
                     "Zero pixels of padding per side before a random crop back to the original size (the "
                     "ResNet CIFAR recipe: 4); 0: no crop.")
           .fallback_to(0)
           .between(0, 64)
           .in_unit("pixels"),
       keys::boolean("horizontal_flip", "Flip each image horizontally with probability 1/2.")
           .fallback_to(false)}};
  return object;
}

Augmentation read_augmentation(Spec& data, const Dataset& train) {
  Spec spec = data.object("augment");
  Augmentation a;
  a.crop_padding = static_cast<int>(spec.integer("crop_padding"));
  a.horizontal_flip = spec.boolean("horizontal_flip");
  spec.finish();
  if (a.active() && train.image.empty())
    data.fail("augment", "crops and flips need image data; this data set has plain features");
  return a;
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
  if (data.holds_bytes())
    data.pixels.conservativeResize(static_cast<Eigen::Index>(limit), Eigen::NoChange);
  else
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
