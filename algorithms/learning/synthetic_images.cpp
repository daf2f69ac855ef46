// The dataset kind synthetic_images: images of seeded random pixels with random labels, of any shape, so that
// an image model (an ImageNet ResNet-50 on 3x224x224) can be run and priced without data files. There is
// nothing to learn in them: a run measures the time per step, never accuracy (the run warns so).
#include <limits>

#include "algorithms/learning/libsvm.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {
namespace {

// `samples` images of `shape` as bytes, each pixel and label uniform, from the (seed, part) data stream.
Dataset random_images(const ImageShape& shape, int classes, std::size_t samples, std::uint64_t seed,
                      std::size_t part) {
  Rng rng = Rng::stream(seed, part, Purpose::data);
  Dataset data;
  data.image = shape;
  data.classes = classes;
  data.pixels.resize(static_cast<Eigen::Index>(samples), static_cast<Eigen::Index>(shape.size()));
  std::uint8_t* pixel = data.pixels.data();
  for (std::size_t k = 0; k < samples * shape.size(); ++k) pixel[k] = static_cast<std::uint8_t>(rng() >> 56);
  data.labels.resize(samples);
  for (auto& label : data.labels)
    label = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(classes)));
  return data;
}

Problem load_synthetic_images(Spec& data, std::uint64_t seed, const std::string&) {
  const std::vector<std::int64_t> shape = data.integers("shape");
  const ImageShape image{static_cast<int>(shape[0]), static_cast<int>(shape[1]), static_cast<int>(shape[2])};
  const int classes = static_cast<int>(data.integer("classes"));
  const auto samples = static_cast<std::size_t>(data.integer("samples"));
  const auto test_samples = static_cast<std::size_t>(data.integer("test_samples"));
  if (samples + test_samples > 4 * max_dense_values / image.size())
    data.fail("samples", "samples x pixels is too large to hold in memory (limit " +
                             std::to_string(4 * max_dense_values) + " bytes)");
  Problem problem;
  problem.train = random_images(image, classes, samples, seed, 0);
  problem.test = random_images(image, classes, test_samples, seed, 1);
  problem.description = describe_problem("synthetic_images", problem);
  return problem;
}

const bool registered_synthetic_images = datasets().add(
    {"synthetic_images",
     "Images of seeded random pixels with random labels, of any shape: a model runs and is priced without "
     "data files (an ImageNet-shaped ResNet-50, docs/compute.md). There is nothing to learn: loss and "
     "accuracy mean nothing, only the time and the bytes do.",
     {keys::integers("shape", "Channels, height and width of an image.")
          .fallback_to(nlohmann::json::array({3, 224, 224}))
          .items(3, 3)
          .between(1, 4096),
      keys::integer("classes", "Classes of the random labels.").fallback_to(1000).between(2, 100'000),
      keys::integer("samples", "Training images.").fallback_to(256).between(1, 10'000'000),
      keys::integer("test_samples", "Test images.").fallback_to(0).between(0, 10'000'000)},
     {}},
    load_synthetic_images);

}  // namespace
}  // namespace sgdsim::learning
