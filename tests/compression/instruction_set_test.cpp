// The vector kernels give the same bits on every instruction set: each test runs once per instruction set
// this binary carries and this CPU has (Highway's dispatch forced to it), the scalar one included, and
// compares against the scalar definitions of level_table.hpp, against one another, and against the bytes
// the encoders produced before they had vector kernels.
#include <hwy/targets.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/level_table.hpp"
#include "algorithms/compression/norms.hpp"
#include "algorithms/compression/simd.hpp"
#include "algorithms/compression/sparsifier.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::compression;

namespace {

// Runs body() once per instruction set, then restores Highway's own choice.
template <typename Body>
void for_each_instruction_set(Body body) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  REQUIRE(std::find(targets.begin(), targets.end(), std::int64_t{HWY_STATIC_TARGET}) != targets.end());
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());  // dispatch anew, under the mock
    INFO("instruction set " << hwy::TargetName(target));
    REQUIRE(std::string(simd::instruction_set()) == hwy::TargetName(target));
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

// Values on levels, at ±1, ±0, just past the ends, tiny and random: the edges of every rounder.
std::vector<float> edge_values(std::size_t n, Rng& rng, const LevelTable& table) {
  std::vector<float> y(n);
  for (float& x : y) {
    switch (rng.below(7)) {
      case 0:
        x = table.values()[rng.below(table.size())];
        break;
      case 1:
        x = rng.below(2) ? -0.0f : 0.0f;
        break;
      case 2:
        x = rng.below(2) ? 1.0001f : -1.0001f;
        break;
      case 3:
        x = static_cast<float>((2 * rng.uniform() - 1) * 1e-6);
        break;
      case 4:
        x = std::nextafter(table.values()[rng.below(table.size())], rng.below(2) ? 2.0f : -2.0f);
        break;
      default:
        x = static_cast<float>(2 * rng.uniform() - 1);
    }
  }
  return y;
}

}  // namespace

TEST_CASE("every instruction set rounds exactly as the scalar rounders do") {
  const std::vector<LevelTable> tables = {LevelTable::uniform(16),
                                          LevelTable::uniform(1),
                                          LevelTable::uniform(300),
                                          LevelTable::code_uniform(4),
                                          LevelTable::code_uniform(1),
                                          LevelTable::exponential(7, 0.5),
                                          LevelTable::exponential(1, 0.5),
                                          LevelTable::exponential(2, 0.5),
                                          LevelTable::exponential(20, 0.5),
                                          LevelTable::exponential(3, 0.7),
                                          LevelTable::exponential(40, 0.9),
                                          LevelTable::code_exponential(4, 0.5),
                                          LevelTable::code_exponential(2, 0.5),
                                          LevelTable::code_exponential(6, 0.5),
                                          LevelTable::code_exponential(8, 0.9)};
  Rng rng(7);
  for (const LevelTable& table : tables) {
    INFO("table of " << table.size() << " levels");
    for (const float norm : {1.0f, 3.5f, 1e-41f}) {
      // n not a multiple of any vector length: the tails run too.
      const std::size_t n = 1001;
      std::vector<float> v = edge_values(n, rng, table);
      for (float& x : v) x *= norm;
      const Rng start(rng());
      Rng reference = start;
      const simd::RoundJob job = simd::round_job(table, norm);
      std::vector<std::uint16_t> expected(n);
      float u0 = 0, u1 = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (i % 2 == 0) uniform_pair(reference(), u0, u1);
        const float y = job.divide ? v[i] / norm : v[i] * (1.0f / norm);
        expected[i] = static_cast<std::uint16_t>(table.round(y, i % 2 ? u1 : u0));
      }
      const unsigned w = table.index_bits();
      Bytes expected_bytes;
      {
        BitWriter writer(expected_bytes);
        writer.reserve(n * w);
        for (const std::uint16_t index : expected) writer.write(index, w);
        writer.finish();
      }
      const std::uint64_t next = Rng(reference)();
      for_each_instruction_set([&] {
        std::vector<std::uint16_t> indices(n);
        Rng a = start;
        simd::round_indices(job, v.data(), n, a, indices.data());
        CHECK(indices == expected);
        CHECK(a() == next);  // one word per two coordinates, no more
        if (w <= 8) {
          Bytes bytes;
          BitWriter writer(bytes);
          writer.reserve(n * w);
          BitCursor cursor = writer.cursor();
          Rng b = start;
          simd::encode_fixed(job, v.data(), n, w, b, cursor);
          writer.commit(cursor);
          writer.finish();
          CHECK(bytes == expected_bytes);
          CHECK(b() == next);
        }
      });
    }
  }
}

TEST_CASE("every instruction set encodes the bytes the encoders produced before they had vector kernels") {
  // FNV-1a of the encodings (and of the next random draw, so the Rng state after encode counts too) over
  // five vector shapes, four dimensions and three scales (1, subnormal, huge), computed with the scalar
  // encoders of commit fb3c907. A mismatch means every golden trace changes: see docs/compression.md.
  const std::vector<std::pair<std::string, std::uint64_t>> golden = {
#include "instruction_set_golden.inc"
  };
  for (const auto& [json, expected] : golden) {
    INFO(json);
    const auto c = make_compressor(json);
    std::vector<std::uint64_t> hashes;
    for_each_instruction_set([&] {
      std::uint64_t h = 0xcbf29ce484222325ULL;
      for (const std::string shape : {"gaussian", "heavy", "sparse", "constant", "zero"}) {
        for (const std::size_t d : {1u, 7u, 1001u, 20000u}) {
          for (const float scale : {1.0f, 1e-41f, 1e30f}) {
            std::vector<float> v = testing::test_vector(shape, d, d + 3);
            for (float& x : v) x *= scale;
            Rng rng(d * 31 + 5);
            Bytes bytes;
            bool encoded = true;
            try {
              bytes = c->encode(v, rng);
            } catch (const std::exception&) {
              bytes.assign(1, 0xEE);  // 1e30 overflows some norms: the error is part of the behaviour
              encoded = false;
            }
            h = fnv1a(h, bytes.data(), bytes.size());
            const std::uint64_t next = rng();
            h = fnv1a(h, &next, 8);
            if (encoded) CHECK(c->decode(bytes, d).size() == d);
          }
        }
      }
      hashes.push_back(h);
    });
    for (const std::uint64_t h : hashes) CHECK(h == expected);
  }
}

TEST_CASE("every instruction set decodes to the same values") {
  for (const std::string json :
       {R"({"kind": "qsgd", "coding": "fixed", "bucket": 1000})", R"({"kind": "nuqsgd", "coding": "fixed"})",
        R"({"kind": "qsgd", "levels": 2, "scale": "contractive", "bucket": 64, "coding": "fixed"})",
        R"({"kind": "sign", "bucket": 100})", R"({"kind": "qsgd"})"}) {
    INFO(json);
    const auto c = make_compressor(json);
    const std::vector<float> v = testing::test_vector("heavy", 5003, 9);
    Rng rng(4);
    const Bytes bytes = c->encode(v, rng);
    std::vector<std::vector<float>> decoded;
    for_each_instruction_set([&] { decoded.push_back(c->decode(bytes, v.size())); });
    for (const auto& values : decoded)
      CHECK(std::memcmp(values.data(), decoded[0].data(), 4 * v.size()) == 0);
  }
}

TEST_CASE("top-k keeps the k largest magnitudes, ties to the lower index, on every instruction set") {
  Rng rng(11);
  for (const std::size_t d : {1u, 2u, 63u, 200u, 2000u, 70000u}) {
    for (const std::string shape : {"gaussian", "constant", "sparse", "zero", "heavy"}) {
      std::vector<float> v = testing::test_vector(shape, d, d);
      if (shape == "heavy") {
        // Many exact ties among large values, and a sorted stretch that fools an evenly spread sample.
        for (std::size_t i = 0; i < d; i += 3) v[i] = 2.0f;
        for (std::size_t i = 0; i < d / 2; ++i) v[i] = static_cast<float>(i);
      }
      for (const std::size_t k :
           {std::size_t{1}, std::max<std::size_t>(1, d / 100), std::min<std::size_t>(d, 32),
            std::min<std::size_t>(d, 33), std::max<std::size_t>(1, d / 3), d}) {
        INFO(shape << " d = " << d << " k = " << k);
        // The definition: order by |x| descending, then index ascending; keep k; sort by index.
        std::vector<std::uint32_t> order(d);
        for (std::size_t i = 0; i < d; ++i) order[i] = static_cast<std::uint32_t>(i);
        std::stable_sort(order.begin(), order.end(), [&v](std::uint32_t a, std::uint32_t b) {
          return std::fabs(v[a]) > std::fabs(v[b]);
        });
        std::vector<std::uint32_t> expected(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
        std::sort(expected.begin(), expected.end());
        const Sparsifier topk(Selection::top, KeepCount{k, 0, "k"}, make_compressor(R"({"kind": "none"})"));
        for_each_instruction_set([&] {
          std::vector<std::uint32_t> positions;
          topk.select(v, rng, positions);
          CHECK(positions == expected);
        });
      }
    }
  }
}

TEST_CASE("every instruction set sums squared errors in the same eight lanes as the scalar definition") {
  Rng rng(17);
  for (const std::size_t n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 2000u, 70001u}) {
    INFO("n = " << n);
    // Values from 1e-20 to 1e20 and zeros of both signs, so that the sums round at every step.
    std::vector<float> v(n), approx(n);
    for (std::size_t i = 0; i < n; ++i) {
      const float scale = std::pow(10.0f, static_cast<float>(rng.below(41)) - 20.0f);
      v[i] = rng.below(9) == 0 ? (rng.below(2) ? -0.0f : 0.0f) : static_cast<float>(rng.normal()) * scale;
      approx[i] = rng.below(3) == 0 ? v[i] : static_cast<float>(rng.normal()) * scale;
    }
    // The definition: lane i % 8 gains v² and (approx − v)² in double, in index order, starting from these
    // sums (the kernel adds to what it is given).
    double norm[8], error[8];
    for (std::size_t k = 0; k < 8; ++k) norm[k] = error[k] = static_cast<double>(k) * 0.1;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = v[i];
      const double e = static_cast<double>(approx[i]) - x;
      norm[i % 8] += x * x;
      error[i % 8] += e * e;
    }
    for_each_instruction_set([&] {
      double got_norm[8], got_error[8];
      for (std::size_t k = 0; k < 8; ++k) got_norm[k] = got_error[k] = static_cast<double>(k) * 0.1;
      simd::squared_error(v.data(), approx.data(), n, got_norm, got_error);
      CHECK(std::memcmp(got_norm, norm, sizeof norm) == 0);
      CHECK(std::memcmp(got_error, error, sizeof error) == 0);
    });
  }
}

TEST_CASE(
    "every instruction set sums magnitudes and squares for the norms in the scalar definition's order") {
  Rng rng(23);
  for (const std::size_t n : {0u, 1u, 63u, 64u, 65u, 127u, 128u, 1000u, 65541u}) {
    INFO("n = " << n);
    // Magnitudes from 1e-4 to 1e4 (squares and their float sums stay in float's range, so the L2 norm takes
    // its fast path) and zeros of both signs.
    std::vector<float> v(n);
    for (float& x : v) {
      const float scale = std::pow(10.0f, static_cast<float>(rng.below(9)) - 4.0f);
      x = rng.below(9) == 0 ? (rng.below(2) ? -0.0f : 0.0f) : static_cast<float>(rng.normal()) * scale;
    }
    // The definitions (norms.hpp): eight lanes; per chunk of 64, each lane's eight terms summed from zero
    // (L1: |x| in double; L2: x² in float), then added to the lane's double total; the tail term by term (in
    // double) into lanes 0, 1, ..., 7, 0, ...; the totals pairwise.
    const auto definition = [&](bool squares) {
      double sum[8] = {};
      std::size_t i = 0;
      for (; i + 64 <= n; i += 64) {
        double part[8] = {};
        float float_part[8] = {};
        for (std::size_t j = 0; j < 64; j += 8) {
          for (std::size_t k = 0; k < 8; ++k) {
            const float x = v[i + j + k];
            part[k] += std::fabs(static_cast<double>(x));
            float_part[k] += x * x;
          }
        }
        for (std::size_t k = 0; k < 8; ++k) sum[k] += squares ? float_part[k] : part[k];
      }
      for (std::size_t k = 0; i < n; ++i, k = (k + 1) % 8) {
        const double x = v[i];
        sum[k] += squares ? x * x : std::fabs(x);
      }
      return ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]));
    };
    const double l1 = definition(false), l2 = definition(true);
    REQUIRE((n == 0 || (l2 >= 1e-20 && l2 <= 1e30)));  // the fast path
    for_each_instruction_set([&] {
      const double got_l1 = bucket_norms(v, NormsWanted::l1).sum_abs;
      const double got_l2 = bucket_norms(v, NormsWanted::l2).sum_squares;
      CHECK(std::memcmp(&got_l1, &l1, sizeof l1) == 0);
      CHECK(std::memcmp(&got_l2, &l2, sizeof l2) == 0);
    });
  }
}
