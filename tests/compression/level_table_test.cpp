// The level tables. (The vector rounders are checked against the scalar ones in instruction_set_test.cpp.)
#include <catch2/catch.hpp>

#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/level_table.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::compression;

TEST_CASE("level tables hold the paper's and the official code's levels") {
  const auto check = [](const LevelTable& table, const std::vector<double>& expected) {
    REQUIRE(table.size() == expected.size());
    for (std::size_t j = 0; j < expected.size(); ++j)
      CHECK(table.values()[j] == static_cast<float>(expected[j]));
  };
  check(LevelTable::uniform(4), testing::paper_uniform_levels(4));
  check(LevelTable::exponential(3, 0.5), testing::paper_exponential_levels(3, 0.5));
  check(LevelTable::code_uniform(3), testing::code_uniform_levels(3));
  check(LevelTable::code_exponential(4, 0.5), testing::code_exponential_levels(4, 0.5));
  CHECK(LevelTable::uniform(16).index_bits() == 6);  // 33 signed levels
  CHECK(LevelTable::code_exponential(4, 0.5).index_bits() == 4);
  CHECK_FALSE(LevelTable::code_uniform(2).has_zero());
  CHECK(LevelTable::uniform(3).zero_index() == 3);
}

TEST_CASE("tables of levels 0 and ±2^k, k = -s..0, are known as halving tables") {
  const auto halving = [](const LevelTable& table) { return table.halving().has_value(); };
  REQUIRE(halving(LevelTable::exponential(7, 0.5)));
  CHECK(LevelTable::exponential(7, 0.5).halving()->min_exponent == -7);
  CHECK(LevelTable::exponential(7, 0.5).halving()->count == 8);
  REQUIRE(halving(LevelTable::code_exponential(4, 0.5)));
  CHECK(LevelTable::code_exponential(4, 0.5).halving()->min_exponent == -7);
  CHECK(halving(LevelTable::exponential(2, 0.5)));
  CHECK(halving(LevelTable::code_exponential(2, 0.5)));
  CHECK_FALSE(halving(LevelTable::exponential(3, 0.7)));
  CHECK_FALSE(halving(LevelTable::code_exponential(4, 0.9)));
  CHECK_FALSE(halving(LevelTable::exponential(1, 0.5)));  // {0, ±1/2, ±1} is evenly spaced: its own rounder
  CHECK_FALSE(halving(LevelTable::uniform(4)));
  CHECK_FALSE(halving(LevelTable::code_exponential(1, 0.5)));  // ±1 alone, evenly spaced too
}

TEST_CASE("buckets with subnormal or huge norms quantize without overflow or NaN") {
  auto q = make_compressor(R"({"kind": "qsgd", "levels": 4, "coding": "fixed"})");
  Rng rng(3);
  for (float scale : {1e-42f, 1e-30f, 1e-19f, 1e19f, 1e30f}) {
    INFO("scale " << scale);
    std::vector<float> v = testing::test_vector("gaussian", 100, 2);
    for (float& x : v) x *= scale;
    const double norm = testing::l2_norm(v);
    double mean_error = 0;
    for (int t = 0; t < 50; ++t) {
      const std::vector<float> out = q->apply(v, rng);
      for (float x : out) REQUIRE(std::isfinite(x));
      mean_error += testing::squared_distance(out, v) / (norm * norm) / 50;
    }
    // QSGD's bound min(d/s^2, sqrt(d)/s) = 2.5 relative; far below that for a Gaussian.
    CHECK(mean_error < 2.5);
    CHECK(mean_error > 0.01);
  }
}
