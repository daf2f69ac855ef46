// The quantizers' coding "zstd": a zstd frame of the symbols, decoded to the same values as the other
// codings, and corrupt frames rejected with their offset.
#include <catch2/catch.hpp>

#include <zstd.h>

#include <cstring>

#include "algorithms/compression/quantizer.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"
#include "oracle.hpp"

using namespace sgdsim;

namespace {
std::vector<float> gaussian(std::size_t d, std::uint64_t seed) {
  return testing::test_vector("gaussian", d, seed);
}
}  // namespace

TEST_CASE("coding zstd is one zstd frame of the norms and one byte per level index") {
  const std::vector<float> v = gaussian(3000, 1);
  for (const std::string kind : {"qsgd", "qsgdinf", "nuqsgd"}) {
    INFO(kind);
    const auto q =
        compression::make_compressor(R"({"kind": ")" + kind + R"(", "coding": "zstd", "bucket": 512})");
    const auto fixed =
        compression::make_compressor(R"({"kind": ")" + kind + R"(", "coding": "fixed", "bucket": 512})");
    const auto& quantizer = dynamic_cast<const compression::Quantizer&>(*q);
    Rng a(5), b(5), c(5);
    const compression::Bytes bytes = q->encode(v, a);
    // The frame holds 6 float32 norms (little-endian), then the 3000 indices.
    std::vector<std::uint8_t> stream(6 * 4 + 3000);
    REQUIRE(ZSTD_decompress(stream.data(), stream.size(), bytes.data(), bytes.size()) == stream.size());
    std::vector<std::uint16_t> indices;
    std::vector<float> norms;
    quantizer.symbols(v, c, indices, norms);
    REQUIRE(norms.size() == 6);
    for (std::size_t k = 0; k < 6; ++k) CHECK(std::memcmp(stream.data() + 4 * k, &norms[k], 4) == 0);
    for (std::size_t i = 0; i < 3000; ++i) CHECK(stream[24 + i] == indices[i]);
    // Same values as the fixed-width coding with the same stream.
    CHECK(q->decode(bytes, v.size()) == fixed->decode(fixed->encode(v, b), v.size()));
  }
}

TEST_CASE("coding zstd rejects corrupt, oversized and trailing frames, naming the offset") {
  const std::vector<float> v = gaussian(1000, 2);
  const auto q = compression::make_compressor(R"({"kind": "qsgd", "coding": "zstd", "bucket": 100})");
  Rng rng(1);
  const compression::Bytes good = q->encode(v, rng);
  compression::Bytes bad = good;
  bad[0] ^= 0xFF;  // the magic number
  CHECK_THROWS_WITH(q->decode(bad, v.size()), Catch::Contains("corrupt zstd frame header at byte offset 0"));
  // A frame of another content size (a stream for 2000 coordinates) is refused before decompressing.
  CHECK_THROWS_WITH(q->decode(q->encode(gaussian(2000, 3), rng), v.size()),
                    Catch::Contains("zstd frame declares 2080 bytes, the stream has 1040"));
  bad = good;
  bad.push_back(0);
  CHECK_THROWS_WITH(q->decode(bad, v.size()), Catch::Contains("1 trailing bytes after the zstd frame"));
  bad = good;
  bad.pop_back();
  CHECK_THROWS_AS(q->decode(bad, v.size()), DecodeError);
  // A frame that decompresses to a level index past the table.
  std::vector<std::uint8_t> stream(10 * 4 + 1000, 16);
  std::memset(stream.data(), 0, 40);
  stream[40 + 7] = 200;
  compression::Bytes frame(ZSTD_compressBound(stream.size()));
  frame.resize(ZSTD_compress(frame.data(), frame.size(), stream.data(), stream.size(), 3));
  CHECK_THROWS_WITH(
      q->decode(frame, v.size()),
      Catch::Contains("level index out of range at byte offset 48 of 1040 of the zstd-decompressed"));
  // Every single-byte corruption is a clean decode or a DecodeError.
  for (std::size_t i = 0; i < good.size(); ++i) {
    bad = good;
    bad[i] ^= 0x5A;
    try {
      (void)q->decode(bad, v.size());
    } catch (const DecodeError&) {
    }
  }
}
