// Decoders against damaged bytes: every truncation and extension of valid messages, single bit flips, and
// random buffers. Acceptable outcomes are a clean decode or a DecodeError; anything else (another exception,
// an out-of-bounds read caught by the sanitizer build, a crash) fails.
#include <catch2/catch.hpp>

#include "algorithms/compression/compressor.hpp"
#include "common/error.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using namespace sgdsim::compression;

namespace {
const std::vector<std::string> decoders = {
    R"({"kind": "none"})",
    R"({"kind": "qsgd", "levels": 4, "bucket": 64})",
    R"({"kind": "qsgd", "levels": 5, "coding": "fixed", "bucket": 50})",
    R"({"kind": "qsgdinf", "levels": 16, "elias": "gamma", "bucket": 0})",
    R"({"kind": "nuqsgd", "levels": 7, "bucket": 100})",
    R"({"kind": "nuqsgd", "table": "code", "bits": 4, "bucket": 64})",
    R"({"kind": "qsgd", "table": "code", "bits": 3, "scale": "contractive"})",
    R"({"kind": "topk", "k": 10})",
    R"({"kind": "randk", "fraction": 0.2, "elias": "gamma"})",
    R"({"kind": "sign", "bucket": 40})",
    R"({"kind": "compose", "stages": [{"kind": "topk", "fraction": 0.3}, {"kind": "qsgd", "levels": 2}]})",
    R"({"kind": "compose", "stages": [{"kind": "randk", "k": 12}, {"kind": "nuqsgd", "coding": "fixed"}]})",
    R"({"kind": "compose", "stages": [{"kind": "topk", "k": 12}, {"kind": "sign"}]})",
};

// Decodes and reports whether it succeeded; only DecodeError may escape the decoder.
bool decodes(const Compressor& c, std::span<const std::uint8_t> bytes, std::size_t d) {
  std::vector<float> out(d);
  try {
    c.decode_into(bytes, out);
    return true;
  } catch (const DecodeError&) {
    return false;
  }
}
}  // namespace

TEST_CASE("every truncation of a valid message, and any extra byte, is a DecodeError naming the offset") {
  for (const std::string& json : decoders) {
    auto c = make_compressor(json);
    for (std::size_t d : {13u, 200u}) {
      for (const std::string shape : {"gaussian", "sparse", "zero"}) {
        INFO(json << " d=" << d << " " << shape);
        Rng rng(d);
        const Bytes bytes = c->encode(test_vector(shape, d, 7), rng);
        REQUIRE(decodes(*c, bytes, d));
        for (std::size_t n = 0; n < bytes.size(); ++n) {
          INFO("truncated to " << n << " of " << bytes.size() << " bytes");
          REQUIRE_FALSE(decodes(*c, std::span(bytes).first(n), d));
        }
        Bytes longer = bytes;
        longer.push_back(0);
        CHECK_THROWS_WITH(c->decode(longer, d), Catch::Contains("byte offset"));
      }
    }
  }
}

TEST_CASE("single bit flips of valid messages decode or fail cleanly") {
  for (const std::string& json : decoders) {
    INFO(json);
    auto c = make_compressor(json);
    Rng rng(3);
    const Bytes bytes = c->encode(test_vector("gaussian", 150, 3), rng);
    for (std::size_t bit = 0; bit < 8 * bytes.size(); ++bit) {
      Bytes damaged = bytes;
      damaged[bit / 8] ^= static_cast<std::uint8_t>(0x80u >> (bit % 8));
      decodes(*c, damaged, 150);
    }
  }
}

// One test case per decoder, so ctest runs them as separate processes.
static void random_buffers(std::size_t which) {
  const std::string& json = decoders.at(which);
  INFO(json);
  auto c = make_compressor(json);
  Rng rng(99 + which);
  Bytes buffer;
  std::size_t successes = 0;
  for (int t = 0; t < 100000; ++t) {
    const std::size_t d = 12 + rng.below(64);  // at least the largest k above
    buffer.resize(rng.below(80));
    for (auto& b : buffer) b = static_cast<std::uint8_t>(rng() >> 56);
    // Half the buffers start like a plausible header (a small positive float32 norm) to get further in.
    if (t % 2 == 0 && buffer.size() >= 4) buffer[0] = 0x3F, buffer[1] &= 0x8F;
    successes += decodes(*c, buffer, d);
  }
  INFO("decoded " << successes << " of 100000");
  SUCCEED();
}

#define RANDOM_BUFFERS(i)                                                  \
  TEST_CASE("100000 random buffers decode or fail cleanly: decoder " #i) { \
    random_buffers(i);                                                     \
  }
RANDOM_BUFFERS(0)
RANDOM_BUFFERS(1)
RANDOM_BUFFERS(2)
RANDOM_BUFFERS(3)
RANDOM_BUFFERS(4)
RANDOM_BUFFERS(5)
RANDOM_BUFFERS(6)
RANDOM_BUFFERS(7)
RANDOM_BUFFERS(8)
RANDOM_BUFFERS(9)
RANDOM_BUFFERS(10)
RANDOM_BUFFERS(11)
RANDOM_BUFFERS(12)

TEST_CASE("the random-buffer cases cover every decoder") {
  CHECK(decoders.size() == 13);
}
