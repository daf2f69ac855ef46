// Threshold sparsification (Strom 2015; GRACE's threshold-v): exactly the coordinates with |x_i| above the
// threshold, unscaled; the positions as the sparsifiers' Elias gaps, ended by the gap landing on position d.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using sgdsim::compression::make_compressor;

namespace {
unsigned gamma_length(std::uint64_t k) {
  unsigned floor_log = 0;
  while (k >> (floor_log + 1)) ++floor_log;
  return 2 * floor_log + 1;
}

// Bits of the position list: each gap from the previous kept position (the first from −1), then the gap to d.
std::size_t index_bits(const std::vector<std::size_t>& kept, std::size_t d, bool gamma) {
  std::size_t bits = 0, previous = static_cast<std::size_t>(-1);
  for (std::size_t i : kept) {
    bits += gamma ? gamma_length(i - previous) : omega_length(i - previous);
    previous = i;
  }
  return bits + (gamma ? gamma_length(d - previous) : omega_length(d - previous));
}
}  // namespace

TEST_CASE("threshold keeps exactly the coordinates above it, as index gaps and fp32 values") {
  std::vector<float> v = test_vector("heavy", 500, 8);
  v[10] = 2.0f;  // exactly at the threshold: not kept
  v[11] = -2.0f;
  v[12] = std::nextafter(2.0f, 3.0f);
  v[13] = 0.0f;
  for (double threshold : {0.0, 2.0, 10.0, 1e30}) {
    for (const char* elias : {"omega", "gamma"}) {
      INFO("threshold " << threshold << " " << elias);
      auto q = make_compressor(R"({"kind": "threshold", "threshold": )" + std::to_string(threshold) +
                               R"(, "elias": ")" + elias + "\"}");
      std::vector<std::size_t> kept;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (std::fabs(v[i]) > threshold) kept.push_back(i);
      if (threshold == 2.0) {
        // At the threshold is not above it; the next float is.
        CHECK(std::find(kept.begin(), kept.end(), 10u) == kept.end());
        CHECK(std::find(kept.begin(), kept.end(), 11u) == kept.end());
        CHECK(std::find(kept.begin(), kept.end(), 12u) != kept.end());
      }
      Rng rng(1);
      const compression::Bytes bytes = q->encode(v, rng);
      CHECK(bytes.size() == padded_bytes(index_bits(kept, v.size(), elias[0] == 'g')) + 4 * kept.size());
      const std::vector<float> out = q->decode(bytes, v.size());
      std::size_t j = 0;
      for (std::size_t i = 0; i < v.size(); ++i) {
        const bool keep = j < kept.size() && kept[j] == i;
        CHECK(out[i] == (keep ? v[i] : 0.0f));
        j += keep;
      }
    }
  }
}

TEST_CASE("threshold is a sparsifier: compose codes its kept values with a second stage") {
  const std::vector<float> v = test_vector("gaussian", 400, 2);
  auto q = make_compressor(
      R"({"kind": "compose", "stages": [{"kind": "threshold", "threshold": 1.0}, {"kind": "terngrad"}]})");
  std::vector<std::size_t> kept;
  double s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::fabs(v[i]) > 1.0) {
      kept.push_back(i);
      s = std::max(s, static_cast<double>(std::fabs(v[i])));
    }
  }
  REQUIRE(!kept.empty());
  Rng rng(3);
  for (int t = 0; t < 20; ++t) {
    const compression::Bytes bytes = q->encode(v, rng);
    CHECK(bytes.size() ==
          padded_bytes(index_bits(kept, v.size(), false)) + padded_bytes(32 + 2 * kept.size()));
    const std::vector<float> out = q->decode(bytes, v.size());
    std::size_t j = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const bool keep = j < kept.size() && kept[j] == i;
      if (keep)
        CHECK((out[i] == 0.0f || out[i] == static_cast<float>(v[i] < 0 ? -s : s)));
      else
        CHECK(out[i] == 0.0f);
      j += keep;
    }
  }
  // Nothing above the threshold: the end gap alone, then an empty second stage.
  auto none = make_compressor(
      R"({"kind": "compose", "stages": [{"kind": "threshold", "threshold": 100}, {"kind": "qsgd"}]})");
  const compression::Bytes bytes = none->encode(v, rng);
  CHECK(bytes.size() == padded_bytes(omega_length(v.size() + 1)));
  for (float x : none->decode(bytes, v.size())) CHECK(x == 0.0f);
}
