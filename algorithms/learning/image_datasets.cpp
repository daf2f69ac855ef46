// The dataset kinds read from a folder of image files: fashion-mnist (Debian's dataset-fashion-mnist package,
// or the same IDX files elsewhere), mnist (the same IDX format) and cifar10 (the binary batches). They share
// the keys `path`, `samples` and `test_samples`.
#include "algorithms/learning/cifar10.hpp"
#include "algorithms/learning/fashion_mnist.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {
namespace {

using Loader = Problem (*)(const std::string& dir);

Problem load(Spec& data, const std::string& base_dir, const std::string& name, Loader loader) {
  const std::string dir = resolve_path(data.string("path"), base_dir);
  const auto samples = static_cast<std::size_t>(data.integer("samples"));
  const auto test_samples = static_cast<std::size_t>(data.integer("test_samples"));
  Problem problem = loader(dir);
  if (samples > problem.train.samples())
    data.fail("samples", "asks for " + std::to_string(samples) + " training samples but " + dir + " has " +
                             std::to_string(problem.train.samples()) + " (0 means all)");
  if (test_samples > problem.test.samples())
    data.fail("test_samples", "asks for " + std::to_string(test_samples) + " test samples but " + dir +
                                  " has " + std::to_string(problem.test.samples()) + " (0 means all)");
  keep_first(problem.train, samples);
  keep_first(problem.test, test_samples);
  problem.description = describe_problem(name, problem);
  return problem;
}

std::vector<keys::Key> image_keys(keys::Key path) {
  return {
      std::move(path),
      keys::integer("samples", "Keep only the first n training samples (0: all).").fallback_to(0).at_least(0),
      keys::integer("test_samples", "Keep only the first n test samples (0: all).")
          .fallback_to(0)
          .at_least(0)};
}

const bool registered_image_datasets =
    datasets().add(
        {"fashion-mnist",
         "Fashion-MNIST (Xiao et al. 2017): 28×28 grey images of 10 classes of clothing, 60000 train and "
         "10000 test, from the IDX files (gzip or not) in `path`.",
         image_keys(
             keys::path("path", "Folder of the four IDX files.").fallback_to(default_fashion_mnist_dir)),
         {}},
        [](Spec& data, std::uint64_t, const std::string& base_dir) {
          return load(data, base_dir, "fashion-mnist", load_fashion_mnist);
        }) &&
    datasets().add(
        {"mnist",
         "MNIST (LeCun et al. 1998): 28×28 grey images of handwritten digits, 60000 train and 10000 test, "
         "from the four IDX files (train-images-idx3-ubyte.gz, ...; gzip or not) in `path`. Not packaged "
         "by Debian: download it yourself.",
         image_keys(keys::path("path", "Folder of the four IDX files.")),
         {}},
        [](Spec& data, std::uint64_t, const std::string& base_dir) {
          return load(data, base_dir, "mnist", load_mnist);
        }) &&
    datasets().add(
        {"cifar10",
         "CIFAR-10 (Krizhevsky 2009), binary version: 32×32 colour images of 10 classes, 50000 train "
         "(data_batch_1.bin ... data_batch_5.bin) and 10000 test (test_batch.bin), gzip or not. Not "
         "packaged by Debian: unpack cifar-10-binary.tar.gz and name its folder cifar-10-batches-bin.",
         image_keys(keys::path("path", "The folder cifar-10-batches-bin.")),
         {}},
        [](Spec& data, std::uint64_t, const std::string& base_dir) {
          return load(data, base_dir, "cifar10", load_cifar10);
        });

}  // namespace
}  // namespace sgdsim::learning
