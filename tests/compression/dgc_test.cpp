// DGC's sparsifier: what it sends, how many, exact sizes, determinism and its decoder's checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "algorithms/compression/dgc.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using compression::Dgc;

namespace {

std::vector<float> gaussian(std::size_t d, std::uint64_t seed) {
  return testing::test_vector("gaussian", d, seed);
}

// Elias omega length of k >= 1 (docs/compression.md): 1 for the final 0, plus each group down to 2.
std::size_t omega_length(std::uint64_t k) {
  std::size_t bits = 1;
  while (k > 1) {
    const auto width = static_cast<std::size_t>(std::floor(std::log2(static_cast<double>(k)))) + 1;
    bits += width;
    k = width - 1;
  }
  return bits;
}

}  // namespace

TEST_CASE("dgc sends every coordinate at least as large as any it keeps back, about k of them") {
  const std::vector<float> v = gaussian(20000, 1);
  for (double sample : {0.01, 0.1, 1.0}) {
    INFO("sample " << sample);
    const Dgc dgc(0.01, sample);
    Rng rng(3);
    const compression::Bytes bytes = dgc.encode(v, rng);
    const std::vector<float> out = dgc.decode(bytes, v.size());
    float smallest_sent = INFINITY, largest_kept = 0;
    std::size_t count = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (out[i] != 0.0f) {
        CHECK(out[i] == v[i]);
        smallest_sent = std::min(smallest_sent, std::fabs(v[i]));
        ++count;
      } else {
        largest_kept = std::max(largest_kept, std::fabs(v[i]));
      }
    }
    CHECK(smallest_sent >= largest_kept);
    CHECK(count <= dgc.most(v.size()));
    CHECK(dgc.most(v.size()) == 260);  // ceil(1.3 · 200)
    // A sample of 1 % (200 values, threshold their 2nd largest) is a rough estimate; sampling every
    // coordinate's worth is a close one.
    CHECK(count >= (sample == 1.0 ? 150u : 20u));
  }
}

TEST_CASE(
    "dgc message: 32-bit count then Elias omega gaps then padding then float32 values (deterministic)") {
  const std::vector<float> v = gaussian(5000, 2);
  const Dgc dgc(0.02, 0.2);
  Rng a(7), b(7), c(7);
  const compression::Bytes bytes = dgc.encode(v, a);
  CHECK(dgc.encode(v, b) == bytes);
  std::vector<std::uint32_t> positions;
  dgc.select(v, c, positions);
  REQUIRE(!positions.empty());
  std::size_t bits = 32, next = 0;
  for (std::uint32_t p : positions) {
    bits += omega_length(p + 1 - next);
    next = p + 1;
  }
  CHECK(bytes.size() == (bits + 7) / 8 + 4 * positions.size());
  CHECK(std::is_sorted(positions.begin(), positions.end()));
}

TEST_CASE("dgc with more passing the sampled threshold than 1.3 k keeps the exact top k") {
  // Every magnitude equal but one: the sampled threshold lets all pass, so the exact top-k decides
  // (ties to the lower index).
  std::vector<float> v(1000, 1.0f);
  v[500] = 2.0f;
  const Dgc dgc(0.01, 0.05);
  Rng rng(1);
  std::vector<std::uint32_t> positions;
  dgc.select(v, rng, positions);
  REQUIRE(positions.size() == 10);
  CHECK(std::find(positions.begin(), positions.end(), 500u) != positions.end());
  CHECK(positions[0] == 0);
  CHECK(positions[8] == 8);
  // A zero vector sends nothing.
  const compression::Bytes zero = dgc.encode(std::vector<float>(100, 0.0f), rng);
  CHECK(zero.size() == 4);
  CHECK(dgc.decode(zero, 100) == std::vector<float>(100, 0.0f));
}

TEST_CASE("dgc decoder rejects a count above the most it sends and trailing or missing values") {
  const Dgc dgc(0.01, 0.1);
  compression::Bytes bytes = {0, 0, 0, 3};  // count 3 > most(100) = 2
  CHECK_THROWS_WITH(dgc.decode(bytes, 100), Catch::Contains("count 3 exceeds 2"));
  Rng rng(1);
  bytes = dgc.encode(gaussian(100, 3), rng);
  bytes.push_back(0);
  CHECK_THROWS_AS(dgc.decode(bytes, 100), DecodeError);
  bytes.resize(bytes.size() - 2);
  CHECK_THROWS_WITH(dgc.decode(bytes, 100), Catch::Contains("truncated message"));
  std::vector<float> bad(10, 1.0f);
  bad[2] = INFINITY;
  CHECK_THROWS_AS(dgc.encode(bad, rng), NonFiniteInput);
}
