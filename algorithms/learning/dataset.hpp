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
using ByteMatrix = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The samples are held in one of two forms: as floats (`features`), or, for data sets read from 8-bit image
// files, as the bytes themselves (`pixels`), a quarter of the memory (Fashion-MNIST's training images: 47 MB
// instead of 188 MB, CIFAR-10's: 154 MB instead of 614 MB). A byte's feature is float(byte) * byte_scale,
// computed where a sample is read, which is exactly the float the loaders used to store.
struct Dataset {
  Matrix features;    // samples x features, unless `pixels` holds them (then 0 x 0)
  ByteMatrix pixels;  // samples x features as bytes; 0 x 0 when `features` holds them
  static constexpr float byte_scale = 1.0f / 255.0f;
  std::vector<std::int32_t> labels;  // class index in [0, classes); for regression unused
  std::vector<float> targets;  // real-valued targets for regression problems (synthetic linear), else empty
  int classes = 2;             // 0 for regression data (no class labels)
  // The label written in the source file for each class index (LIBSVM labels such as -1/+1 or 1..7); empty
  // when the class index is the label itself (Fashion-MNIST, synthetic).
  std::vector<double> class_values;
  ImageShape image;  // set by image data sets (Fashion-MNIST, MNIST, CIFAR-10); features = image.size()
  bool holds_bytes() const { return pixels.cols() > 0; }
  std::size_t samples() const {
    return static_cast<std::size_t>(holds_bytes() ? pixels.rows() : features.rows());
  }
  std::size_t dimension() const {
    return static_cast<std::size_t>(holds_bytes() ? pixels.cols() : features.cols());
  }
  // Feature c of sample r.
  float feature(std::size_t r, std::size_t c) const {
    const auto row = static_cast<Eigen::Index>(r), col = static_cast<Eigen::Index>(c);
    return holds_bytes() ? static_cast<float>(pixels(row, col)) * byte_scale : features(row, col);
  }
  // Writes sample r's dimension() features to `out` as T (float, or double for the optimum solver).
  template <typename T>
  void copy_row(std::size_t r, T* out) const {
    const std::size_t d = dimension();
    const auto row = static_cast<Eigen::Index>(r);
    if (holds_bytes()) {
      const std::uint8_t* in = pixels.row(row).data();
      for (std::size_t c = 0; c < d; ++c) out[c] = static_cast<T>(static_cast<float>(in[c]) * byte_scale);
    } else {
      const float* in = features.row(row).data();
      for (std::size_t c = 0; c < d; ++c) out[c] = static_cast<T>(in[c]);
    }
  }
  // Bytes held by the samples.
  std::size_t sample_bytes() const {
    return static_cast<std::size_t>(features.size()) * sizeof(float) +
           static_cast<std::size_t>(pixels.size());
  }
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
