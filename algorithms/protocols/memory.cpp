#include "algorithms/protocols/memory.hpp"

#include <vector>

#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {

class NoMemory final : public Memory {
 public:
  std::span<const float> compensate(std::size_t, std::span<const float> fresh) override { return fresh; }
  void update(std::size_t, std::span<const float>) override {}
};

// Error feedback (Seide et al. 2014; Karimireddy et al. 2019): e ← (g + e) − C(g + e).
class ErrorFeedback final : public Memory {
 public:
  ErrorFeedback(std::size_t nodes, std::size_t dimension)
      : error_(nodes, std::vector<float>(dimension, 0.0f)) {}
  std::span<const float> compensate(std::size_t node, std::span<const float> fresh) override {
    std::vector<float>& e = error_[node];
    for (std::size_t c = 0; c < fresh.size(); ++c) e[c] += fresh[c];
    return e;
  }
  void update(std::size_t node, std::span<const float> decoded) override {
    std::vector<float>& e = error_[node];
    for (std::size_t c = 0; c < decoded.size(); ++c) e[c] -= decoded[c];
  }
  // e += g and e −= C(·): each reads two vectors and writes one.
  double floats_touched(std::size_t dimension) const override { return 6.0 * static_cast<double>(dimension); }

 private:
  std::vector<std::vector<float>> error_;
};

const bool registered_memory =
    memories().add({"none", "Nothing is carried over: each vector is compressed as it is.", {}, {}},
                   [](Spec&, std::size_t, std::size_t) { return std::make_unique<NoMemory>(); }) &&
    memories().add({"error_feedback",
                    "Error feedback: the compression error is kept and added to the next vector, "
                    "e ← (g + e) − C(g + e).",
                    {},
                    {}},
                   [](Spec&, std::size_t nodes, std::size_t dimension) {
                     return std::make_unique<ErrorFeedback>(nodes, dimension);
                   });

}  // namespace

keys::Registry<MemoryFactory>& memories() {
  static keys::Registry<MemoryFactory> family(
      "memory", "kind", "What a node carries from one compressed message to the next.", {},
      keys::Shorthand{keys::Type::string, "", ""}, {},
      {{"estimates_average",
        "Steps with an estimate it keeps of the averaged vector, not "
        "with the average of the messages (EF21): only protocols that "
        "hand it that average take it (data_parallel)."}});
  return family;
}

std::unique_ptr<Memory> make_memory(Spec& spec, std::size_t nodes, std::size_t dimension) {
  auto memory = memories().factory(spec.kind_name())(spec, nodes, dimension);
  spec.finish();
  return memory;
}

}  // namespace sgdsim::protocols
