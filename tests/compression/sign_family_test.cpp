// The signSGD family (Bernstein et al. 2018): signsgd sends sign(x) as one bit per coordinate and decodes
// ±1; signum sends the sign of a momentum m ← β·m + (1 − β)·x that each sender keeps from call to call.
#include <catch2/catch.hpp>

#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using sgdsim::compression::make_compressor;

namespace {
// +1 for x >= 0 (zeros of either sign included), −1 for x < 0.
float sign_of(float x) {
  return x < 0 ? -1.0f : 1.0f;
}
}  // namespace

TEST_CASE("signsgd sends one bit per coordinate and decodes ±1") {
  auto q = make_compressor(R"({"kind": "signsgd"})");
  for (std::size_t d : {1u, 31u, 32u, 33u, 1000u}) {
    std::vector<float> v = test_vector("sparse", d, d);
    v[0] = -0.0f;
    Rng rng(1);
    const compression::Bytes bytes = q->encode(v, rng);
    REQUIRE(bytes.size() == padded_bytes(d));
    const std::vector<float> out = q->decode(bytes, d);
    for (std::size_t i = 0; i < d; ++i) {
      CHECK(bits_at(bytes, i, 1) == (v[i] < 0 ? 1u : 0u));
      CHECK(out[i] == sign_of(v[i]));
    }
  }
  // The same bit stream as the scaled sign's, without its float32 scale.
  const std::vector<float> v = test_vector("gaussian", 256, 3);
  Rng rng(1);
  const compression::Bytes plain = q->encode(v, rng),
                           scaled = make_compressor(R"({"kind": "sign"})")->encode(v, rng);
  CHECK(compression::Bytes(scaled.begin() + 4, scaled.end()) == plain);
}

TEST_CASE("signum sends the signs of a momentum each sender carries from call to call") {
  for (double beta : {0.0, 0.5, 0.9}) {
    INFO("momentum " << beta);
    auto q = make_compressor(R"({"kind": "signum", "momentum": )" + std::to_string(beta) + "}");
    auto plain = make_compressor(R"({"kind": "signsgd"})");
    const std::size_t d = 300;
    const auto state = q->make_state(d);
    REQUIRE(state != nullptr);
    std::vector<float> m(d, 0.0f);
    const float keep = static_cast<float>(beta), take = 1.0f - keep;
    Rng rng(2), other(2);
    bool any_sign_differs_from_gradient = false;
    for (int t = 0; t < 8; ++t) {
      const std::vector<float> g = test_vector("gaussian", d, 50 + t);
      for (std::size_t i = 0; i < d; ++i) m[i] = keep * m[i] + take * g[i];
      compression::Bytes bytes;
      q->encode_with(g, rng, state.get(), bytes);
      // Exactly signsgd's bytes of the momentum.
      CHECK(bytes == plain->encode(m, other));
      const std::vector<float> out = q->decode(bytes, d);
      for (std::size_t i = 0; i < d; ++i) {
        REQUIRE(out[i] == sign_of(m[i]));
        any_sign_differs_from_gradient |= out[i] != sign_of(g[i]);
      }
      // Without a state, a call is a sender's first: the sign of (1 − β)·x.
      if (t == 0) CHECK(q->encode(g, other) == bytes);
    }
    // With momentum the signs lag the fresh gradient somewhere; without, never.
    CHECK(any_sign_differs_from_gradient == (beta > 0));
  }
}
