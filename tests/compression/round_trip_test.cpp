// Exact round trips and the sizes of the wire formats.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "common/error.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using namespace sgdsim::compression;

TEST_CASE("none sends exactly 4·d bytes and decodes bit-exactly") {
  auto none = make_compressor(R"({"kind": "none"})");
  std::vector<float> v = test_vector("heavy", 1001, 2);
  v[3] = -0.0f;
  v[4] = std::numeric_limits<float>::denorm_min();
  Rng rng(1);
  const Bytes bytes = none->encode(v, rng);
  CHECK(bytes.size() == 4 * v.size());
  const std::vector<float> back = none->decode(bytes, v.size());
  CHECK(std::memcmp(back.data(), v.data(), bytes.size()) == 0);
  float first;
  std::memcpy(&first, bytes.data(), 4);  // little-endian float32 on the wire
  CHECK(first == v[0]);
}

TEST_CASE("decoding a quantizer's bytes gives exactly its quantized values, whichever coding carries them") {
  const std::vector<std::string> methods = {
      R"("kind": "qsgd", "levels": 5)", R"("kind": "qsgdinf", "levels": 16, "bucket": 100)",
      R"("kind": "nuqsgd", "levels": 6)",
      R"("kind": "qsgd", "levels": 2, "scale": "contractive", "bucket": 64)",
      R"("kind": "nuqsgd", "levels": 3, "ratio": 0.7, "bucket": 33)"};
  for (const std::string& method : methods) {
    for (const std::string shape : {"gaussian", "sparse", "zero", "heavy"}) {
      INFO(method << " on " << shape);
      const std::vector<float> v = test_vector(shape, 777, 5);
      std::vector<std::vector<float>> decoded;
      for (const std::string coding :
           {R"("coding": "elias")", R"("coding": "fixed")", R"("elias": "gamma")"}) {
        auto c = make_compressor("{" + method + ", " + coding + "}");
        const auto& q = dynamic_cast<const Quantizer&>(*c);
        Rng a(77), b(77);
        const Bytes bytes = q.encode(v, a);
        std::vector<float> quantized(v.size());
        q.quantize(v, b, quantized);
        CHECK(a() == b());  // encode and quantize drew the same random numbers
        const std::vector<float> back = q.decode(bytes, v.size());
        CHECK(back == quantized);
        decoded.push_back(back);
        Rng again(77);
        CHECK(q.encode(v, again) == bytes);  // deterministic given the Rng state
        if (q.config().coding == Coding::fixed) {
          // Per bucket a float32 norm and ceil(log2(2s + 1)) bits per coordinate, padded once to a byte.
          const std::size_t bucket = q.config().bucket, buckets = (v.size() + bucket - 1) / bucket;
          const std::size_t bits = 32 * buckets + v.size() * q.table().index_bits();
          CHECK(bytes.size() == (bits + 7) / 8);
        }
      }
      CHECK(decoded[0] == decoded[1]);
      CHECK(decoded[0] == decoded[2]);
    }
  }
}

TEST_CASE("QSGDinf reproduces vectors that lie on its levels exactly") {
  auto q = make_compressor(R"({"kind": "qsgdinf", "levels": 4, "bucket": 8})");
  std::vector<float> v;
  Rng pick(3);
  for (int i = 0; i < 64; ++i) v.push_back(static_cast<float>(static_cast<int>(pick.below(9)) - 4) * 0.75f);
  v[0] = 3.0f, v[8] = -3.0f, v[16] = 3.0f, v[24] = 3.0f, v[32] = 3.0f, v[40] = 3.0f, v[48] = 3.0f,
  v[56] = 3.0f;
  Rng rng(8);
  CHECK(q->apply(v, rng) == v);
}

TEST_CASE("the code tables send exactly bits per coordinate plus one norm per bucket") {
  auto q = make_compressor(R"({"kind": "nuqsgd", "table": "code", "bits": 4, "bucket": 8192})");
  const std::vector<float> v = test_vector("gaussian", 20000, 6);
  Rng rng(2);
  const Bytes bytes = q->encode(v, rng);
  CHECK(bytes.size() == (3 * 32 + 4 * 20000 + 7) / 8);
  // Every decoded coordinate is ±norm·0.5^i, i < 8: no zero level.
  for (float x : q->decode(bytes, v.size())) {
    REQUIRE(x != 0.0f);
  }
}

TEST_CASE("sparsifiers and sign decode exactly what they kept") {
  const std::vector<float> v = test_vector("gaussian", 500, 12);
  // Counts the nonzero decoded coordinates, each of which must equal the input exactly.
  auto kept_exactly = [&v](const std::vector<float>& decoded) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (decoded[i] != 0.0f) {
        CHECK(decoded[i] == v[i]);
        ++kept;
      }
    }
    return kept;
  };
  Rng rng(3);
  auto top = make_compressor(R"({"kind": "topk", "k": 20})");
  CHECK(kept_exactly(top->apply(v, rng)) == 20);
  auto rand = make_compressor(R"({"kind": "randk", "fraction": 0.1})");
  const Bytes bytes = rand->encode(v, rng);
  CHECK(kept_exactly(rand->decode(bytes, v.size())) == 50);
  auto sign = make_compressor(R"({"kind": "sign", "bucket": 128})");
  const Bytes sb = sign->encode(v, rng);
  CHECK(sb.size() == (4 * 32 + 500 + 7) / 8);
  const std::vector<float> s = sign->decode(sb, v.size());
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(std::signbit(s[i]) == std::signbit(v[i]));
}

TEST_CASE("k larger than the vector and non-finite values are input errors") {
  auto top = make_compressor(R"({"kind": "topk", "k": 20})", "s.json");
  const std::vector<float> small(10, 1.0f);
  Rng rng(1);
  CHECK_THROWS_WITH(top->encode(small, rng),
                    Catch::Contains("s.json: $.k") && Catch::Contains("exceeds the dimension 10"));
  std::vector<float> bad(100, 1.0f);
  bad[7] = std::nanf("");
  for (const char* json : {R"({"kind": "qsgd"})", R"({"kind": "qsgdinf"})", R"({"kind": "sign"})",
                           R"({"kind": "topk", "k": 3})", R"({"kind": "randk", "k": 3})"}) {
    INFO(json);
    CHECK_THROWS_AS(make_compressor(json)->encode(bad, rng), InputError);
  }
  // Empty vectors are legal and cost nothing but the formats' fixed parts.
  for (const char* json : {R"({"kind": "qsgd"})", R"({"kind": "none"})", R"({"kind": "sign"})"}) {
    auto c = make_compressor(json);
    const Bytes bytes = c->encode(std::vector<float>{}, rng);
    CHECK(bytes.empty());
    CHECK(c->decode(bytes, 0).empty());
  }
}
