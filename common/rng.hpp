#pragma once
// Deterministic random streams. Every stream is derived from (seed, node, purpose) by hashing, never from
// time or addresses, and draws are computed from raw 64-bit outputs so results do not depend on the standard
// library's distribution implementations.
#include <cstdint>
#include <limits>

namespace sgdsim {

// SplitMix64 finaliser: a bijective 64-bit mixer, used to derive independent stream keys.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Named purposes keep streams of different roles apart even for the same node.
enum class Purpose : std::uint64_t {
  data = 1,         // dataset generation
  partition = 2,    // assignment of samples to nodes
  init = 3,         // model initialisation
  batch = 4,        // minibatch sampling
  compression = 5,  // stochastic rounding, rand-k
  topology = 6,     // random graphs, heterogeneous links
  eval = 7,         // evaluation subsets
  user = 8,         // tools (sgdsim compress)
  augment = 9,      // data augmentation (random crops and flips)
  peer = 10,        // choice of a peer (AD-PSGD's random neighbour)
  dynamics = 11,    // random link and host profiles, failures, background traffic
  variance = 12,    // the observer's draws for the gradient estimator's variance
};

// xoshiro256** generator; satisfies UniformRandomBitGenerator.
class Rng {
 public:
  using result_type = std::uint64_t;

  explicit Rng(std::uint64_t seed = 0) {
    std::uint64_t s = seed;
    for (auto& word : state_) {
      s = mix64(s);
      word = s;
    }
  }
  // The stream for (seed, node, purpose).
  static Rng stream(std::uint64_t seed, std::uint64_t node, Purpose purpose) {
    return Rng(
        mix64(mix64(seed) ^ mix64(node * 0x632be59bd9b4e019ULL + static_cast<std::uint64_t>(purpose))));
  }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n), n > 0 (Lemire's nearly-divisionless method, unbiased).
  std::uint64_t below(std::uint64_t n) {
    __uint128_t m = static_cast<__uint128_t>((*this)()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = -n % n;
      while (low < threshold) {
        m = static_cast<__uint128_t>((*this)()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  // Standard normal (Box-Muller on our own uniforms, deterministic across libraries).
  double normal();

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace sgdsim
