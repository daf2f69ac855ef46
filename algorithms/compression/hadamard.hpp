#pragma once
// The randomized Hadamard transform (RHT) that THC, DRIVE and EDEN rotate a vector with before quantizing it:
// y = (1/√D) H_D diag(s) x, with x zero-padded to D, the next power of two, and s ∈ {−1, +1}^D drawn from a
// seed every worker shares. It is orthogonal, so its inverse is diag(s) (1/√D) H_D; after it the coordinates
// of y are close to normal with variance ‖x‖²/D whatever x looks like, which is what a uniform quantizer
// with a clipping range set from the norm needs.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sgdsim::compression {

class RandomizedHadamard {
 public:
  RandomizedHadamard(std::size_t dimension, std::uint64_t seed);
  std::size_t dimension() const { return dimension_; }
  std::size_t padded() const { return signs_.size(); }
  // out (padded() values) = the transform of x (dimension() values).
  void forward(std::span<const float> x, std::span<float> out) const;
  // out (dimension() values) = the first dimension() coordinates of the inverse transform of y (padded()).
  void inverse(std::span<const float> y, std::span<float> out) const;

 private:
  std::size_t dimension_;
  std::vector<double> signs_;
  mutable std::vector<double> scratch_;  // used within one call only
};

// The unnormalized fast Walsh–Hadamard transform in place (v.size() a power of two).
void walsh_hadamard(std::span<double> v);

}  // namespace sgdsim::compression
