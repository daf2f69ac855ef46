#include "algorithms/learning/augment.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "common/error.hpp"

namespace sgdsim::learning {

void augment_image(std::span<float> image, const ImageShape& shape, const Augmentation& augmentation,
                   Rng& rng) {
  if (image.size() != shape.size()) throw std::invalid_argument("augment_image: image and shape disagree");
  if (augmentation.crop_padding < 0) throw std::invalid_argument("augment_image: negative padding");
  const int p = augmentation.crop_padding;
  int dy = 0, dx = 0;
  if (p > 0) {
    const auto choices = static_cast<std::uint64_t>(2 * p + 1);
    dy = static_cast<int>(rng.below(choices)) - p;
    dx = static_cast<int>(rng.below(choices)) - p;
  }
  const bool flip = augmentation.horizontal_flip && rng.below(2) == 1;
  if (dy == 0 && dx == 0 && !flip) return;
  const int h = shape.height, w = shape.width;
  // Output pixel (y, x) of the padded-then-cropped image is input pixel (y + dy, x + dx), zero outside; the
  // flip then mirrors x.
  std::vector<float> source(image.begin(), image.end());
  for (int c = 0; c < shape.channels; ++c) {
    const float* in = source.data() + static_cast<std::size_t>(c) * h * w;
    float* out = image.data() + static_cast<std::size_t>(c) * h * w;
    for (int y = 0; y < h; ++y) {
      const int sy = y + dy;
      for (int x = 0; x < w; ++x) {
        const int sx = (flip ? w - 1 - x : x) + dx;
        out[y * w + x] = sy >= 0 && sy < h && sx >= 0 && sx < w ? in[sy * w + sx] : 0.0f;
      }
    }
  }
}

Dataset augmented_batch(const Dataset& data, std::span<const std::size_t> batch,
                        const Augmentation& augmentation, Rng& rng) {
  if (data.image.empty() || data.image.size() != data.dimension()) {
    throw InputError("augmentation needs image data; this data set's samples are not images");
  }
  Dataset out;
  out.classes = data.classes;
  out.class_values = data.class_values;
  out.image = data.image;
  out.features.resize(static_cast<Eigen::Index>(batch.size()), static_cast<Eigen::Index>(data.dimension()));
  out.labels.reserve(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i] >= data.samples())
      throw std::out_of_range("augmented_batch: sample index beyond the data set");
    const auto row = static_cast<Eigen::Index>(i);
    data.copy_row(batch[i], out.features.row(row).data());
    augment_image(std::span<float>(out.features.row(row).data(), data.dimension()), data.image, augmentation,
                  rng);
    if (!data.labels.empty()) out.labels.push_back(data.labels[batch[i]]);
  }
  return out;
}

}  // namespace sgdsim::learning
