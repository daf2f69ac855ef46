// THC's pieces against their definitions: the randomized Hadamard transform is orthogonal, the stochastic
// quantization is unbiased inside the clipping range, integer sums of indices decode to the mean of the
// decoded vectors, and the wire of the sums.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "algorithms/compression/hadamard.hpp"
#include "algorithms/compression/thc.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"

using namespace sgdsim;
using namespace sgdsim::compression;

namespace {
std::vector<float> random_vector(std::size_t d, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(d);
  for (float& x : v) x = static_cast<float>(rng.normal()) * (1.0f + static_cast<float>(rng.uniform()) * 5.0f);
  return v;
}
double norm(const std::vector<float>& v) {
  double s = 0;
  for (const float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}
}  // namespace

TEST_CASE("the randomized hadamard transform is orthogonal to 1e-6") {
  // Its matrix for D = 8: the images of the unit vectors are orthonormal.
  RandomizedHadamard small(8, 3);
  std::vector<std::vector<float>> columns;
  for (std::size_t c = 0; c < 8; ++c) {
    std::vector<float> unit(8, 0.0f), image(8);
    unit[c] = 1.0f;
    small.forward(unit, image);
    columns.push_back(image);
  }
  for (std::size_t a = 0; a < 8; ++a)
    for (std::size_t b = 0; b < 8; ++b) {
      double dot = 0;
      for (std::size_t c = 0; c < 8; ++c) dot += static_cast<double>(columns[a][c]) * columns[b][c];
      CHECK(std::abs(dot - (a == b ? 1.0 : 0.0)) < 1e-6);
    }
  // Padded lengths: the norm is kept and the inverse gives the vector back.
  for (const std::size_t d : {1, 5, 64, 1000}) {
    RandomizedHadamard rotation(d, 7);
    CHECK(rotation.padded() >= d);
    CHECK((rotation.padded() & (rotation.padded() - 1)) == 0);
    const std::vector<float> x = random_vector(d, d);
    std::vector<float> y(rotation.padded()), back(d);
    rotation.forward(x, y);
    rotation.inverse(y, back);
    CHECK(std::abs(norm(y) - norm(x)) < 1e-6 * norm(x));
    double worst = 0;
    for (std::size_t c = 0; c < d; ++c)
      worst = std::max(worst, static_cast<double>(std::abs(back[c] - x[c])));
    CHECK(worst < 1e-6 * norm(x));
  }
  // Another seed is another rotation.
  RandomizedHadamard other(1000, 8), same(1000, 7);
  const std::vector<float> x = random_vector(1000, 1);
  std::vector<float> a(1024), b(1024);
  other.forward(x, a);
  same.forward(x, b);
  CHECK(a != b);
}

TEST_CASE("thc's frame: the clipping range from the largest norm and the overflow probability") {
  CHECK(normal_upper_quantile(0.5 - 1e-12) == Approx(0.0).margin(1e-9));
  CHECK(normal_upper_quantile(0.025) == Approx(1.959963985).epsilon(1e-8));
  CHECK(normal_upper_quantile(1e-4) == Approx(3.719016485).epsilon(1e-8));
  const ThcFrame frame = thc_frame(8.0, 64, 1e-4, 4);
  CHECK(frame.levels == 16);
  CHECK(frame.clip == Approx(8.0 / 8.0 * 3.719016485).epsilon(1e-8));
  CHECK(frame.step == Approx(2 * frame.clip / 15).epsilon(1e-12));
}

TEST_CASE("thc's stochastic quantization is unbiased within 4 sigma inside the range") {
  const std::vector<float> y = {-2.9f, -1.3f, -0.01f, 0.0f, 0.4f, 1.77f, 2.5f, 3.0f};
  const ThcFrame frame{3.0, 2 * 3.0 / 7, 8};  // 3 bits: levels −3 + kΔ
  Rng rng(11);
  const int draws = 20000;
  std::vector<double> sum(y.size(), 0.0);
  std::vector<std::uint32_t> indices(y.size());
  std::vector<float> decoded(y.size());
  for (int k = 0; k < draws; ++k) {
    thc_quantize(y, frame, rng, indices);
    for (const std::uint32_t index : indices) CHECK(index < 8);
    thc_decode_sums(indices, 1, frame, decoded);
    for (std::size_t c = 0; c < y.size(); ++c) sum[c] += decoded[c];
  }
  for (std::size_t c = 0; c < y.size(); ++c) {
    // Between the two neighbouring levels, the variance of one draw is Δ² f (1 − f).
    const double u = (y[c] + frame.clip) / frame.step, f = u - std::floor(u);
    const double sigma = frame.step * std::sqrt(f * (1 - f) / draws);
    INFO("coordinate " << c);
    CHECK(std::abs(sum[c] / draws - y[c]) <= 4 * sigma + 1e-6);
  }
  // Outside the range the value is clipped: the estimator is biased there, as the paper's is.
  const std::vector<float> beyond = {7.0f};
  thc_quantize(beyond, frame, rng, std::span<std::uint32_t>(indices).first(1));
  CHECK(indices[0] == 7);
}

TEST_CASE(
    "thc's integer sums decode to the mean of the decoded vectors, and a sum of other frames does not") {
  const std::size_t n = 5, d = 37;
  const ThcFrame frame = thc_frame(10.0, 64, 1e-3, 4);
  Rng rng(4);
  std::vector<std::uint32_t> sums(d, 0), indices(d);
  std::vector<double> mean(d, 0.0);
  std::vector<float> decoded(d), from_sums(d);
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<float> y = random_vector(d, 100 + i);
    thc_quantize(y, frame, rng, indices);
    thc_decode_sums(indices, 1, frame, decoded);
    for (std::size_t c = 0; c < d; ++c) {
      sums[c] += indices[c];
      mean[c] += decoded[c] / static_cast<double>(n);
    }
  }
  thc_decode_sums(sums, n, frame, from_sums);
  for (std::size_t c = 0; c < d; ++c) CHECK(from_sums[c] == Approx(mean[c]).margin(1e-5));
  // The same integers read in a frame of another norm (a worker's own instead of the largest) decode to
  // something else: the shared frame is what makes the sum meaningful.
  thc_decode_sums(sums, n, thc_frame(6.0, 64, 1e-3, 4), from_sums);
  double gap = 0;
  for (std::size_t c = 0; c < d; ++c) gap = std::max(gap, std::abs(from_sums[c] - mean[c]));
  CHECK(gap > 0.1);
}

TEST_CASE("thc's sums travel on bit_width((q − 1) k) bits, and malformed ones are decode errors") {
  CHECK(sum_width(16, 1) == 4);
  CHECK(sum_width(16, 2) == 5);
  CHECK(sum_width(16, 8) == 7);
  CHECK(sum_width(2, 1) == 1);
  CHECK(sum_width(2, 3) == 2);
  const std::vector<std::uint32_t> sums = {0, 29, 30, 7, 1, 15, 22};
  Bytes bytes;
  write_sums(sums, 5, bytes);
  CHECK(bytes.size() == (7 * 5 + 7) / 8);
  std::vector<std::uint32_t> back(7);
  read_sums(bytes, 5, 30, back);
  CHECK(back == sums);
  CHECK_THROWS_AS(read_sums(bytes, 5, 29, back), DecodeError);  // 30 is above the largest, 29
  Bytes short_message(bytes.begin(), bytes.end() - 1);
  CHECK_THROWS_AS(read_sums(short_message, 5, 30, back), DecodeError);
  Bytes longer = bytes;
  longer.push_back(0);
  CHECK_THROWS_AS(read_sums(longer, 5, 30, back), DecodeError);
}

TEST_CASE("thc's sums decoder against damaged bytes: a decode error or values within their bound") {
  // What decoder_robustness_test does for compressors, for the collective's integer sums: truncations,
  // extensions, bit flips and random buffers.
  Rng rng(21);
  for (const unsigned width : {1u, 4u, 7u, 13u}) {
    for (const std::size_t count : {1, 3, 17, 100}) {
      const std::uint64_t largest = (std::uint64_t{1} << width) - 2;
      std::vector<std::uint32_t> sums(count);
      for (std::uint32_t& s : sums) s = static_cast<std::uint32_t>(rng.below(largest + 1));
      Bytes valid;
      write_sums(sums, width, valid);
      std::vector<Bytes> damaged;
      for (std::size_t cut = 0; cut < valid.size(); ++cut)
        damaged.emplace_back(valid.begin(), valid.begin() + cut);
      for (const std::uint8_t extra : {0, 1, 255}) {
        damaged.push_back(valid);
        damaged.back().push_back(extra);
      }
      for (std::size_t bit = 0; bit < 8 * valid.size(); ++bit) {
        damaged.push_back(valid);
        damaged.back()[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      }
      for (int k = 0; k < 20; ++k) {
        Bytes random(rng.below(2 * valid.size() + 2));
        for (std::uint8_t& b : random) b = static_cast<std::uint8_t>(rng.below(256));
        damaged.push_back(random);
      }
      for (const Bytes& bytes : damaged) {
        std::vector<std::uint32_t> out(count, 0);
        try {
          read_sums(bytes, width, largest, out);
          for (const std::uint32_t s : out) CHECK(s <= largest);
        } catch (const DecodeError& e) {
          CHECK(std::string(e.what()).find("byte offset") != std::string::npos);
        }
      }
    }
  }
}
