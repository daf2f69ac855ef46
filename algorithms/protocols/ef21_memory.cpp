// The memory kind ef21: EF21 (Richtárik, Sokolov and Fatkhullin 2021, "EF21: A New, Simpler, Theoretically
// Better, and Practically Faster Error Feedback"). Worker i keeps gᵢ and sends cᵢ = C(∇fᵢ − gᵢ), then
// gᵢ ← gᵢ + cᵢ; every replica keeps g = mean gᵢ by g ← g + mean cᵢ and steps with g. Unlike error feedback,
// which adds the compression error to the next vector, EF21 compresses the change of the gradient, so its
// messages shrink as the gradients settle.
#include <vector>

#include "algorithms/protocols/memory.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {
namespace {

class Ef21 final : public Memory {
 public:
  Ef21(std::size_t nodes, std::size_t dimension)
      : own_(nodes, std::vector<float>(dimension, 0.0f)),
        difference_(nodes, std::vector<float>(dimension, 0.0f)),
        estimate_(nodes, std::vector<float>(dimension, 0.0f)) {}

  std::span<const float> compensate(std::size_t node, std::span<const float> fresh) override {
    const std::vector<float>& g = own_[node];
    std::vector<float>& difference = difference_[node];
    for (std::size_t c = 0; c < fresh.size(); ++c) difference[c] = fresh[c] - g[c];
    return difference;
  }

  void update(std::size_t node, std::span<const float> decoded) override {
    std::vector<float>& g = own_[node];
    for (std::size_t c = 0; c < decoded.size(); ++c) g[c] += decoded[c];
  }

  // Every replica's copy of g = mean gᵢ moves by the mean of the messages.
  void restore(std::size_t node, std::span<float> average) override {
    std::vector<float>& g = estimate_[node];
    for (std::size_t c = 0; c < average.size(); ++c) {
      g[c] += average[c];
      average[c] = g[c];
    }
  }

  // ∇fᵢ − gᵢ (read two, write one), gᵢ += cᵢ (read two, write one).
  double floats_touched(std::size_t dimension) const override { return 6.0 * static_cast<double>(dimension); }
  // g += mean cᵢ (read two, write one), then the step's vector is g (write one).
  double restore_floats(std::size_t dimension) const override { return 4.0 * static_cast<double>(dimension); }

 private:
  std::vector<std::vector<float>> own_;         // gᵢ, what the other workers know of node i's gradient
  std::vector<std::vector<float>> difference_;  // ∇fᵢ − gᵢ, what is compressed
  std::vector<std::vector<float>> estimate_;    // each replica's g = mean gᵢ
};

const bool registered_ef21_memory = memories().add(
    {"ef21",
     "EF21 (Richtárik et al. 2021): worker i keeps gᵢ and sends C(∇fᵢ − gᵢ); every replica keeps g = mean gᵢ "
     "and steps with g. For data_parallel.",
     {},
     {"estimates_average"}},
    [](Spec&, std::size_t nodes, std::size_t dimension) { return std::make_unique<Ef21>(nodes, dimension); });

}  // namespace
}  // namespace sgdsim::protocols
