// Per-tensor bucketing of the quantizers: buckets never span two tensors of the layout, exact sizes, and the
// flat default unchanged.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "algorithms/compression/layout.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "common/rng.hpp"

using namespace sgdsim;
using compression::Layout;
using compression::Tensor;

namespace {

// Tensors of 100, 30 and 70 coordinates at scales 1e-3, 1e3 and 1.
const Layout layout({Tensor{1, 100}, Tensor{1, 30}, Tensor{10, 7}});
std::vector<float> three_scales() {
  Rng rng(5);
  std::vector<float> v(200);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(rng.normal() * (i < 100 ? 1e-3 : i < 130 ? 1e3 : 1.0));
  return v;
}

std::unique_ptr<compression::Compressor> quantizer(const std::string& options, bool with_layout) {
  auto q = compression::make_compressor(R"({"kind": "qsgd", "levels": 16, "bucket": 64)" + options + "}");
  if (with_layout) q->use_layout(layout);
  return q;
}

// The 32-bit field at bit `position` of an MSB-first stream.
float float_at(const compression::Bytes& bytes, std::size_t position) {
  std::uint32_t bits = 0;
  for (std::size_t b = 0; b < 32; ++b) {
    const std::size_t at = position + b;
    bits = (bits << 1) | ((bytes[at / 8] >> (7 - at % 8)) & 1u);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float l2(const std::vector<float>& v, std::size_t begin, std::size_t n) {
  double sum = 0;
  for (std::size_t i = begin; i < begin + n; ++i) sum += static_cast<double>(v[i]) * v[i];
  return static_cast<float>(std::sqrt(sum));
}

}  // namespace

TEST_CASE("per-tensor buckets end at every tensor boundary: sizes and norms on the wire are exact") {
  const std::vector<float> v = three_scales();
  Rng rng(1);
  const auto per_tensor = quantizer(R"(, "coding": "fixed", "bucketing": "per_tensor")", true);
  const compression::Bytes bytes = per_tensor->encode(v, rng);
  // Buckets 64 + 36 | 30 | 64 + 6: five norms and 200 six-bit indices.
  const std::vector<std::pair<std::size_t, std::size_t>> buckets = {
      {0, 64}, {64, 36}, {100, 30}, {130, 64}, {194, 6}};
  CHECK(bytes.size() == (5 * 32 + 200 * 6 + 7) / 8);
  std::size_t position = 0;
  for (const auto& [begin, n] : buckets) {
    CHECK(float_at(bytes, position) == l2(v, begin, n));
    position += 32 + 6 * n;
  }
  // Flat: 64 | 64 | 64 | 8, the second bucket mixing the 1e-3 and the 1e3 tensors.
  Rng again(1);
  const compression::Bytes flat = quantizer(R"(, "coding": "fixed")", true)->encode(v, again);
  CHECK(flat.size() == (4 * 32 + 200 * 6 + 7) / 8);
  CHECK(float_at(flat, 32 + 6 * 64) == l2(v, 64, 64));
}

TEST_CASE("per-tensor buckets keep a small-scale tensor from being rounded away by a large one") {
  const std::vector<float> v = three_scales();
  double part = 0;
  for (std::size_t i = 64; i < 100; ++i) part += static_cast<double>(v[i]) * v[i];
  for (const std::string& options : {std::string(), std::string(R"(, "bucketing": "per_tensor")")}) {
    const auto q = quantizer(options, true);
    Rng rng(2);
    double error = 0;
    const int repeats = 50;
    for (int r = 0; r < repeats; ++r) {
      const std::vector<float> out = q->apply(v, rng);
      for (std::size_t i = 64; i < 100; ++i) error += (out[i] - v[i]) * static_cast<double>(out[i] - v[i]);
    }
    error /= repeats * part;
    INFO(options << ": relative error of coordinates 64..99 " << error);
    // Per tensor: QSGD's bound min(n/s², √n/s) = 0.14 for n = 36 (the bucket 64..99 of its own tensor),
    // averaged over 50 draws. Flat: the bucket's norm is the 1e3 tensor's, so these round to zero.
    if (options.empty())
      CHECK(error > 0.99);
    else
      CHECK(error < 0.2);
  }
}

TEST_CASE(
    "per-tensor bucketing: deterministic, the flat bytes without a layout, every coding decodes as "
    "quantize") {
  const std::vector<float> v = three_scales();
  for (const std::string coding : {"elias", "fixed", "zstd"}) {
    INFO(coding);
    const std::string options = R"(, "bucketing": "per_tensor", "coding": ")" + coding + "\"";
    const auto q = quantizer(options, true);
    Rng a(9), b(9), c(9);
    const compression::Bytes first = q->encode(v, a);
    CHECK(q->encode(v, b) == first);
    // The decoded vector is quantize()'s with the same stream.
    std::vector<float> expected(v.size());
    dynamic_cast<const compression::Quantizer&>(*q).quantize(v, c, expected);
    CHECK(q->decode(first, v.size()) == expected);
    // Without a layout (or with one of another dimension) per_tensor is flat.
    const auto no_layout = quantizer(options, false);
    const auto flat = quantizer(R"(, "coding": ")" + coding + "\"", false);
    Rng x(9), y(9);
    CHECK(no_layout->encode(v, x) == flat->encode(v, y));
    no_layout->use_layout(Layout({Tensor{1, 50}, Tensor{1, 50}}));
    Rng z(9), w(9);
    CHECK(no_layout->encode(v, z) == flat->encode(v, w));
  }
}

TEST_CASE("per-tensor contractive scale uses the largest bucket of any tensor") {
  const auto q = compression::make_compressor(
      R"({"kind": "qsgd", "levels": 4, "bucket": 0, "bucketing": "per_tensor", "scale": "contractive"})");
  q->use_layout(layout);
  const auto& quantizer = dynamic_cast<const compression::Quantizer&>(*q);
  // One bucket per tensor; the largest has 100 coordinates.
  CHECK(quantizer.output_scale(200) == static_cast<float>(1.0 / (1.0 + quantizer.variance_factor(100))));
}
