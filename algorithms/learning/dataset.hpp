#pragma once
// A labelled dataset held once in memory; node shards refer to it by sample index (no per-node copies).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace sgdsim::learning {

// The layout of an image sample: a row of channels x height x width values in that (CHW) order, the
// layout convolutional models take. All zero when the samples are not images.
struct ImageShape {
  int channels = 0;
  int height = 0;
  int width = 0;
  std::size_t size() const {
    return static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) *
           static_cast<std::size_t>(width);
  }
  bool empty() const { return size() == 0; }
  std::string text() const {
    return std::to_string(channels) + "x" + std::to_string(height) + "x" + std::to_string(width);
  }
  bool operator==(const ImageShape&) const = default;
};

// Row-major so that one sample is one contiguous row.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Dataset {
  Matrix features;                   // samples x features
  std::vector<std::int32_t> labels;  // class index in [0, classes); for regression unused
  std::vector<float> targets;  // real-valued targets for regression problems (synthetic linear), else empty
  int classes = 2;             // 0 for regression data (no class labels)
  // The label written in the source file for each class index (LIBSVM labels such as -1/+1 or 1..7); empty
  // when the class index is the label itself (Fashion-MNIST, synthetic).
  std::vector<double> class_values;
  ImageShape image;  // set by image data sets (Fashion-MNIST, MNIST, CIFAR-10); features = image.size()
  std::size_t samples() const { return static_cast<std::size_t>(features.rows()); }
  std::size_t dimension() const { return static_cast<std::size_t>(features.cols()); }
};

struct Problem {
  Dataset train;
  Dataset test;  // may be empty (0 rows)
  std::string description;
  // For synthetic problems: the optimal regularised training loss, so the trace can report suboptimality.
  // The glue computes it with solve_optimum (optimum.hpp) once the model is known: f* depends on the model's
  // l2.
  std::optional<double> optimum;
  bool synthetic = false;  // true for generated problems, whose optimum the trace reports against
};

}  // namespace sgdsim::learning
