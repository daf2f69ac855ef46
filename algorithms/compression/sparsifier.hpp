#pragma once
// top-k, rand-k and threshold, alone or followed by a quantizer of the kept values (`compose`). Not
// rescaled, so top-k and rand-k are contractive with omega = k/d (rand-k in expectation). Wire: the kept
// positions as Elias gaps (the first counted from position -1), zero bits to the next byte, then the inner
// compressor's bytes for the kept values (raw float32 when used alone). For top-k and rand-k, k is not sent:
// the receiver knows it from the configuration and d. Threshold keeps a varying number of coordinates, so
// its list ends with the gap that lands on position d (as QSGD's Elias code ends a bucket).
#include <memory>
#include <optional>
#include <string>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/elias.hpp"

namespace sgdsim::compression {

enum class Selection { top, random, threshold };

struct KeepCount {
  std::optional<std::size_t> k;  // exactly one of k and fraction
  double fraction = 0;           // k = max(1, round(fraction * d))
  std::string where;             // the scenario path, for the error when k > d
  std::size_t of(std::size_t dimension) const;
};

class Sparsifier final : public Compressor {
 public:
  // `inner` codes the kept values; it must not itself be a Sparsifier.
  Sparsifier(Selection selection, KeepCount keep, std::unique_ptr<Compressor> inner,
             EliasCode code = EliasCode::omega);
  // Threshold selection (Strom 2015): keeps every coordinate with |x_i| > threshold.
  Sparsifier(double threshold, std::unique_ptr<Compressor> inner, EliasCode code = EliasCode::omega);

  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;
  bool decode_sparse(std::span<const std::uint8_t> bytes, std::size_t dimension,
                     std::vector<std::uint32_t>& positions, std::vector<float>& values) const override;

  // The kept positions for `values`, ascending (top-k: largest |x|, ties to the lower index).
  void select(std::span<const float> values, Rng& rng, std::vector<std::uint32_t>& positions) const;
  // k for top-k and rand-k (threshold selection has no fixed count).
  std::size_t kept(std::size_t dimension) const { return keep_.of(dimension); }
  const Compressor& inner() const { return *inner_; }

 private:
  // Reads message[start, ...) of a d-vector: the kept positions, then the inner compressor's values.
  void decode_kept(std::span<const std::uint8_t> message, std::size_t start, std::size_t d,
                   std::vector<std::uint32_t>& positions, std::vector<float>& values) const;
  // Top-k into `positions`; returns true (and selects nothing) when some value is not finite.
  bool select_top(std::span<const float> values, std::size_t k, std::vector<std::uint32_t>& positions) const;
  // Every position with |x| > threshold into `positions`; returns true when some value is not finite.
  bool select_threshold(std::span<const float> values, std::vector<std::uint32_t>& positions) const;
  void select_among(std::span<const float> values, const std::uint32_t* candidates, std::size_t count,
                    std::size_t k, std::vector<std::uint32_t>& positions) const;

  Selection selection_;
  KeepCount keep_;
  std::unique_ptr<Compressor> inner_;
  EliasCode code_;
  std::uint32_t threshold_bits_ = 0;  // threshold: the bits of the smallest float above the threshold
};

}  // namespace sgdsim::compression
