// The memory kind dgc: Deep Gradient Compression's local side (Lin et al. 2018). Per node a momentum u and an
// accumulator v: the gradient is clipped (local gradient clipping), u ← m·u + g (momentum correction: the
// momentum is applied before sparsification, so what accumulates is the velocity, not the raw gradient),
// v ← v + u, and v is what the compressor sees. After sending, v loses what was sent, and with momentum
// factor masking u is zeroed where something was sent, so stale momentum does not push those coordinates
// again. The protocol then steps with the averaged sparse vector and no momentum of its own.
#include <cmath>
#include <vector>

#include "algorithms/protocols/memory.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {
namespace {

class DgcMemory final : public Memory {
 public:
  DgcMemory(std::size_t nodes, std::size_t dimension, double momentum, double clip, bool masking)
      : momentum_(static_cast<float>(momentum)),
        clip_(clip),
        masking_(masking),
        velocity_(nodes, std::vector<float>(dimension, 0.0f)),
        accumulated_(nodes, std::vector<float>(dimension, 0.0f)) {}

  std::span<const float> compensate(std::size_t node, std::span<const float> fresh) override {
    float scale = 1.0f;
    if (clip_ > 0) {
      double norm = 0;
      for (float g : fresh) norm += static_cast<double>(g) * g;
      norm = std::sqrt(norm);
      if (norm > clip_) scale = static_cast<float>(clip_ / norm);
    }
    std::vector<float>& u = velocity_[node];
    std::vector<float>& v = accumulated_[node];
    for (std::size_t c = 0; c < fresh.size(); ++c) {
      u[c] = momentum_ * u[c] + scale * fresh[c];
      v[c] += u[c];
    }
    return v;
  }

  void update(std::size_t node, std::span<const float> decoded) override {
    std::vector<float>& u = velocity_[node];
    std::vector<float>& v = accumulated_[node];
    for (std::size_t c = 0; c < decoded.size(); ++c) {
      v[c] -= decoded[c];
      if (masking_ && decoded[c] != 0.0f) u[c] = 0.0f;
    }
  }

  double momentum() const override { return momentum_; }

  // Clip (read g), u ← m·u + g (read two, write one), v += u (read two, write one), then v −= C(·) and the
  // mask (read three, write two).
  double floats_touched(std::size_t dimension) const override {
    return 12.0 * static_cast<double>(dimension);
  }

 private:
  float momentum_;
  double clip_;
  bool masking_;
  std::vector<std::vector<float>> velocity_, accumulated_;
};

const bool registered_dgc_memory = memories().add(
    {"dgc",
     "Deep Gradient Compression's local side: local gradient clipping, momentum correction (u ← m·u + g, "
     "v ← v + u, v is compressed) and momentum factor masking; use with a protocol step without momentum.",
     {keys::number("momentum", "m, the momentum of the correction.").fallback_to(0.9).at_least(0).below(1),
      keys::number("clip",
                   "Largest L2 norm of a node's gradient before it enters the momentum (0: no clipping).")
          .fallback_to(0.0)
          .at_least(0),
      keys::boolean("masking", "Momentum factor masking: zero u where a coordinate was sent.")
          .fallback_to(true)},
     {}},
    [](Spec& spec, std::size_t nodes, std::size_t dimension) {
      const double momentum = spec.number("momentum"), clip = spec.number("clip");
      return std::make_unique<DgcMemory>(nodes, dimension, momentum, clip, spec.boolean("masking"));
    });

}  // namespace
}  // namespace sgdsim::protocols
