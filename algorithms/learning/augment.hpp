#pragma once
// Data augmentation for image data, as in the ResNet CIFAR recipe (He et al. 2016): a random crop of the
// image padded with zeros on every side, then a horizontal flip with probability 1/2. Draws come from the
// caller's Rng (e.g. Rng::stream(seed, node, Purpose::augment)), so runs are reproducible.
#include <span>

#include "algorithms/learning/dataset.hpp"
#include "common/rng.hpp"

namespace sgdsim::learning {

struct Augmentation {
  int crop_padding = 4;  // pixels of zero padding per side before cropping back to the original size; 0: none
  bool horizontal_flip = true;
  bool active() const { return crop_padding > 0 || horizontal_flip; }
};

// Augments one image (shape.size() values, channels x height x width) in place. Draws, in this order: the
// vertical then the horizontal offset, each uniform in [0, 2 * crop_padding] (only when crop_padding > 0),
// then the flip (only when horizontal_flip).
void augment_image(std::span<float> image, const ImageShape& shape, const Augmentation& augmentation,
                   Rng& rng);

// The samples `batch` of `data`, each augmented, as a new data set of batch.size() rows in batch order
// (labels copied); pass it to Model::loss_and_gradient with the indices 0 .. batch.size() - 1. InputError
// when `data` has no image shape.
Dataset augmented_batch(const Dataset& data, std::span<const std::size_t> batch,
                        const Augmentation& augmentation, Rng& rng);

}  // namespace sgdsim::learning
