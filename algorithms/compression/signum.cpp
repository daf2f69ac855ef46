#include "algorithms/compression/signum.hpp"

#include <stdexcept>

#include "algorithms/compression/simd.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {
struct Momentum final : Compressor::State {
  explicit Momentum(std::size_t dimension) : m(dimension, 0.0f) {}
  std::vector<float> m;
};
}  // namespace

std::unique_ptr<Compressor::State> Signum::make_state(std::size_t dimension) const {
  return std::make_unique<Momentum>(dimension);
}

void Signum::encode_with(std::span<const float> values, Rng& rng, State* state, Bytes& out) const {
  if (!state) return encode_into(values, rng, out);
  auto* momentum = dynamic_cast<Momentum*>(state);
  if (!momentum || momentum->m.size() != values.size())
    throw std::invalid_argument("signum: the state was not made for this compressor and dimension");
  // Checked before the update, so that a rejected vector leaves the momentum as it was.
  if (simd::any_non_finite(values.data(), values.size()))
    throw NonFiniteInput("signum: cannot compress a vector with infinite or NaN values");
  std::vector<float>& m = momentum->m;
  const float keep = momentum_, take = 1.0f - momentum_;
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = keep * m[i] + take * values[i];
  signs_.encode_into(m, rng, out);
}

void Signum::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  Momentum fresh(values.size());
  encode_with(values, rng, &fresh, out);
}

}  // namespace sgdsim::compression
