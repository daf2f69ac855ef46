// 1-bit SGD (Seide et al. 2014) against its definition: per bucket each entry is rebuilt as the mean of the
// entries of its sign (x >= 0 and x < 0), so the bucket's sum is kept and the error is the within-group
// spread: ||x − C(x)||² = ||x||² − n₊p² − n₋q².
#include <catch2/catch.hpp>

#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using sgdsim::compression::make_compressor;

TEST_CASE("onebit rebuilds each entry as the mean of its sign group, keeping sums, with the exact error") {
  for (const std::string shape : {"gaussian", "heavy", "sparse", "constant", "uniform", "zero"}) {
    for (std::size_t bucket : {0u, 1u, 13u, 256u}) {
      INFO(shape << " bucket " << bucket);
      const std::vector<float> v = test_vector(shape, 700, bucket + shape.size());
      auto q = make_compressor(R"({"kind": "onebit", "bucket": )" + std::to_string(bucket) + "}");
      Rng rng(1);
      const compression::Bytes bytes = q->encode(v, rng);
      const std::size_t b = bucket == 0 ? v.size() : bucket, buckets = (v.size() + b - 1) / b;
      REQUIRE(bytes.size() == padded_bytes(64 * buckets + v.size()));
      const std::vector<float> out = q->decode(bytes, v.size());
      double error = 0, spread = 0;
      for (std::size_t begin = 0; begin < v.size(); begin += b) {
        const std::size_t end = std::min(v.size(), begin + b);
        double sum_positive = 0, sum_negative = 0, norm2 = 0, sum_out = 0;
        std::size_t negatives = 0;
        for (std::size_t i = begin; i < end; ++i) {
          (v[i] < 0 ? sum_negative : sum_positive) += v[i];
          negatives += v[i] < 0;
          norm2 += static_cast<double>(v[i]) * v[i];
        }
        const std::size_t positives = end - begin - negatives;
        const double p = positives ? sum_positive / positives : 0,
                     n = negatives ? sum_negative / negatives : 0;
        // The wire: the two means as float32, then one bit per entry (1 = negative).
        const std::size_t at = (begin / b) * 64 + begin;
        CHECK(float_at(bytes, at) == Approx(p).epsilon(1e-6));
        CHECK(float_at(bytes, at + 32) == Approx(n).epsilon(1e-6));
        for (std::size_t i = begin; i < end; ++i) {
          CHECK(bits_at(bytes, at + 64 + (i - begin), 1) == (v[i] < 0 ? 1u : 0u));
          CHECK(out[i] == (v[i] < 0 ? float_at(bytes, at + 32) : float_at(bytes, at)));
          sum_out += out[i];
          error += (static_cast<double>(out[i]) - v[i]) * (static_cast<double>(out[i]) - v[i]);
        }
        CHECK(sum_out == Approx(sum_positive + sum_negative).margin(1e-5 * std::sqrt(norm2 * (end - begin))));
        spread += norm2 - positives * p * p - negatives * n * n;
      }
      CHECK(error == Approx(spread).margin(1e-9).epsilon(1e-5));
    }
  }
}
