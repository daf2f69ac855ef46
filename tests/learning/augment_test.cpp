// Random crop with padding and horizontal flip: exact pixel movements and reproducible draws.
#include <catch2/catch.hpp>

#include <numeric>
#include <set>

#include "algorithms/learning/augment.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;

namespace {

// A 2-channel 5x4 image whose value identifies (c, y, x): 100 c + 10 y + x + 1 (never 0, the padding).
std::vector<float> labelled(const ImageShape& s) {
  std::vector<float> image(s.size());
  for (int c = 0; c < s.channels; ++c)
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x)
        image[(c * s.height + y) * s.width + x] = 100.0f * c + 10.0f * y + x + 1;
  return image;
}

}  // namespace

TEST_CASE("augmentation crops with zero padding and flips, moving whole pixels") {
  const ImageShape shape{2, 5, 4};
  const std::vector<float> original = labelled(shape);
  std::set<std::pair<int, int>> offsets;
  int flips = 0;
  Rng rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<float> image = original;
    Rng replay = rng;  // the same draws, to know what the function chose
    augment_image(image, shape, Augmentation{2, true}, rng);
    const int dy = static_cast<int>(replay.below(5)) - 2, dx = static_cast<int>(replay.below(5)) - 2;
    const bool flip = replay.below(2) == 1;
    offsets.insert({dy, dx});
    flips += flip;
    for (int c = 0; c < 2; ++c)
      for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 4; ++x) {
          const int sy = y + dy, sx = (flip ? 3 - x : x) + dx;
          const float expected =
              sy >= 0 && sy < 5 && sx >= 0 && sx < 4 ? 100.0f * c + 10.0f * sy + sx + 1 : 0.0f;
          REQUIRE(image[(c * 5 + y) * 4 + x] == expected);
        }
  }
  CHECK(offsets.size() == 25);  // every offset in [-2, 2]^2 occurs
  CHECK(flips > 100);
  CHECK(flips < 200);
  // No padding and no flip: the image is untouched and nothing is drawn.
  std::vector<float> image = original;
  Rng a(1), b(1);
  augment_image(image, shape, Augmentation{0, false}, a);
  CHECK(image == original);
  CHECK(a() == b());
}

TEST_CASE("augmented batches copy labels, keep the shape and are reproducible from the seed") {
  Dataset data = sgdsim::learning::testing::random_dataset(6, 2 * 5 * 4, 3, 1);
  data.image = ImageShape{2, 5, 4};
  const std::vector<std::size_t> batch{4, 0, 4};
  Rng r1 = Rng::stream(1, 2, Purpose::augment), r2 = Rng::stream(1, 2, Purpose::augment);
  const Dataset a = augmented_batch(data, batch, Augmentation{}, r1);
  const Dataset b = augmented_batch(data, batch, Augmentation{}, r2);
  REQUIRE(a.samples() == 3);
  CHECK(a.image == data.image);
  CHECK(a.labels == std::vector<std::int32_t>{data.labels[4], data.labels[0], data.labels[4]});
  CHECK(a.features == b.features);
  // The two copies of sample 4 get their own draws (with this seed they differ).
  CHECK(a.features.row(0) != a.features.row(2));
  Dataset flat = data;
  flat.image = ImageShape{};
  CHECK_THROWS_AS(augmented_batch(flat, batch, Augmentation{}, r1), InputError);
}
