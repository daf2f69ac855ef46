#include <catch2/catch.hpp>

#include <bit>
#include <vector>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/elias.hpp"
#include "common/rng.hpp"

using namespace sgdsim;
using namespace sgdsim::compression;

TEST_CASE("bit writer and reader round-trip fields of every width, most significant bit first") {
  Rng rng(11);
  std::vector<std::pair<std::uint64_t, unsigned>> fields;
  std::size_t total = 0;
  for (int i = 0; i < 5000; ++i) {
    const auto width = static_cast<unsigned>(rng.below(33));
    const std::uint64_t value = width == 0 ? 0 : rng() >> (64 - width);
    fields.emplace_back(value, width);
    total += width;
  }
  Bytes out = {0xAB};  // appending keeps what is there
  BitWriter writer(out);
  writer.reserve(total);
  for (auto [value, width] : fields) writer.write(value, width);
  writer.finish();
  REQUIRE(out.size() == 1 + (total + 7) / 8);
  CHECK(out[0] == 0xAB);
  BitReader reader(out, 1, "test");
  for (auto [value, width] : fields) REQUIRE(reader.read(width) == value);
  reader.expect_end();

  Bytes one;
  BitWriter w1(one);
  w1.reserve(3);
  w1.write(0b101, 3);
  w1.finish();
  CHECK(one == Bytes{0b10100000});
}

TEST_CASE("bit reader refuses to read past the end and rejects nonzero padding and trailing bytes") {
  const Bytes bytes = {0xFF, 0x80};
  BitReader a(bytes, 0, "test");
  CHECK(a.read(9) == 0x1FF);
  CHECK_THROWS_AS(a.read(8), DecodeError);
  BitReader b(bytes, 0, "test");
  b.read(4);
  CHECK_THROWS_AS(b.align(), DecodeError);  // the padding 1111 is not zero
  BitReader c(bytes, 0, "test");
  c.read(8);
  CHECK_THROWS_WITH(c.expect_end(), Catch::Contains("trailing") && Catch::Contains("byte offset 1"));
  const Bytes empty;
  BitReader d(empty, 0, "test");
  CHECK_THROWS_WITH(d.read(1), Catch::Contains("truncated") && Catch::Contains("byte offset 0"));
}

TEST_CASE("Elias omega and gamma lengths match the reference table") {
  const std::vector<std::pair<std::uint64_t, unsigned>> omega = {{1, 1},   {2, 3},   {3, 3},    {4, 6},
                                                                 {7, 6},   {8, 7},   {15, 7},   {16, 11},
                                                                 {31, 11}, {32, 12}, {100, 13}, {1000, 17}};
  for (auto [k, bits] : omega) {
    INFO("k = " << k);
    CHECK(elias_omega_length(k) == bits);
    Bytes out;
    BitWriter writer(out);
    writer.reserve(64);
    write_elias_omega(writer, k);
    writer.write(1, 1);  // a marker bit right after the code shows the code used exactly `bits` bits
    writer.finish();
    BitReader reader(out, 0, "test");
    CHECK(read_elias_omega(reader, k, "k") == k);
    CHECK(reader.read(1) == 1);
    CHECK(out.size() == (bits + 1 + 7) / 8);
  }
  for (std::uint64_t k : {1u, 2u, 3u, 4u, 7u, 8u, 1000u}) {
    CHECK(elias_gamma_length(k) == 2 * (std::bit_width(k) - 1) + 1);
  }
  // The two codes spelled out: omega(16) = 10 100 10000 0, gamma(5) = 00 101.
  Bytes out;
  BitWriter writer(out);
  writer.reserve(32);
  write_elias_omega(writer, 16);
  write_elias_gamma(writer, 5);
  writer.finish();
  CHECK(out == Bytes{0b10100100, 0b00000101});
}

TEST_CASE("Elias codes round-trip and reject out-of-range or runaway values") {
  Rng rng(5);
  std::vector<std::uint64_t> values = {1, 2, 3, 0xFFFFFFFFu, 0x80000000u};
  for (int i = 0; i < 20000; ++i) values.push_back(1 + (rng() >> (33 + rng.below(31))));
  for (EliasCode code : {EliasCode::omega, EliasCode::gamma}) {
    Bytes out;
    BitWriter writer(out);
    std::size_t bits = 0;
    for (auto k : values) bits += elias_length(code, k);
    writer.reserve(bits);
    for (auto k : values) write_elias(writer, code, k);
    writer.finish();
    CHECK(out.size() == (bits + 7) / 8);
    BitReader reader(out, 0, "test");
    for (auto k : values) REQUIRE(read_elias(reader, code, 0xFFFFFFFFu, "k") == k);
    reader.expect_end();

    // A value above the caller's maximum is an error, not a number.
    Bytes big;
    BitWriter w(big);
    w.reserve(64);
    write_elias(w, code, 1000);
    w.finish();
    BitReader r(big, 0, "test");
    CHECK_THROWS_WITH(read_elias(r, code, 999, "gap"), Catch::Contains("gap out of range"));
  }
  // All ones (omega) or all zeros (gamma) would describe ever larger numbers: stopped by the maximum.
  const Bytes ones(64, 0xFF), zeros(64, 0x00);
  BitReader a(ones, 0, "test"), b(zeros, 0, "test");
  CHECK_THROWS_AS(read_elias_omega(a, 0xFFFFFFFFu, "k"), DecodeError);
  CHECK_THROWS_AS(read_elias_gamma(b, 0xFFFFFFFFu, "k"), DecodeError);
}
