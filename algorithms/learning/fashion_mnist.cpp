#include "algorithms/learning/fashion_mnist.hpp"

#include <algorithm>
#include <filesystem>

#include "algorithms/learning/idx.hpp"
#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

constexpr int fashion_side = 28;
constexpr int fashion_classes = 10;

// The packaged name ends in .gz; an uncompressed copy without the suffix is accepted too.
std::string locate(const std::string& dir, const std::string& name) {
  const std::filesystem::path gz = std::filesystem::path(dir) / (name + ".gz");
  const std::filesystem::path plain = std::filesystem::path(dir) / name;
  std::error_code ignored;
  if (!std::filesystem::exists(gz, ignored) && std::filesystem::exists(plain, ignored)) return plain.string();
  return gz.string();  // if it is missing too, the reader reports the expected name
}

Dataset load_split(const std::string& dir, const std::string& prefix, const std::string& name) {
  const std::string images_path = locate(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = locate(dir, prefix + "-labels-idx1-ubyte");
  const IdxArray images = read_idx_file(images_path, 3);
  const IdxArray labels = read_idx_file(labels_path, 1);
  if (images.dims[1] != fashion_side || images.dims[2] != fashion_side) {
    throw InputError(images_path + ": bad dimensions " + std::to_string(images.dims[1]) + "x" +
                     std::to_string(images.dims[2]) + ", " + name + " images are 28x28");
  }
  if (images.dims[0] != labels.dims[0]) {
    throw InputError(labels_path + ": holds " + std::to_string(labels.dims[0]) + " labels but " +
                     images_path + " holds " + std::to_string(images.dims[0]) + " images");
  }
  const std::size_t n = images.dims[0];
  Dataset data;
  data.classes = fashion_classes;
  data.image = ImageShape{1, fashion_side, fashion_side};
  data.labels.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (labels.values[i] >= fashion_classes) {
      throw InputError(labels_path + ": label " + std::to_string(labels.values[i]) + " of sample " +
                       std::to_string(i) + " is not a class from 0 to 9");
    }
    data.labels[i] = labels.values[i];
  }
  constexpr int pixels = fashion_side * fashion_side;
  data.pixels.resize(static_cast<Eigen::Index>(n), pixels);
  std::copy(images.values.begin(), images.values.begin() + static_cast<std::ptrdiff_t>(n * pixels),
            data.pixels.data());
  return data;
}

// MNIST and Fashion-MNIST share file names, format and sizes; only the messages differ.
Problem load_idx_images(const std::string& dir, const std::string& name) {
  Problem problem;
  problem.train = load_split(dir, "train", name);
  problem.test = load_split(dir, "t10k", name);
  return problem;
}

}  // namespace

Problem load_fashion_mnist(const std::string& dir) {
  return load_idx_images(dir, "Fashion-MNIST");
}

Problem load_mnist(const std::string& dir) {
  return load_idx_images(dir, "MNIST");
}

}  // namespace sgdsim::learning
