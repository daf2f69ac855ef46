// Decoders against damaged bytes: every truncation and extension of valid messages, single bit flips, and
// random buffers, in the dense and (for kinds that have one) the sparse form. A decoder owes its caller,
// whatever the bytes, one of two outcomes: a DecodeError naming the byte offset, or exactly d values, each
// finite unless it is a float32 copied verbatim from the bytes (the fp32 payload of `none` and of a
// sparsifier's kept values). Anything else (another exception, an out-of-bounds read caught by the sanitizer
// build, a crash) fails.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "algorithms/compression/compressor.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using namespace sgdsim::compression;

namespace {
// Every example of every registered compressor kind: a new kind is covered by declaring its examples. Built
// on first use, after static initialisation has registered every kind.
const std::vector<std::string>& decoders() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out;
    for (const keys::Kind* kind : compressors().kinds())
      for (const nlohmann::json& example : kind->examples) out.push_back(example.dump());
    return out;
  }();
  return all;
}

struct Outcome {
  bool decoded = false;
  std::string broken;  // the first promise the decoder broke, empty if none
};

// True when the 4 bytes of `value` occur somewhere in `bytes`.
bool copied_from(float value, std::span<const std::uint8_t> bytes) {
  std::uint8_t pattern[sizeof value];
  std::memcpy(pattern, &value, sizeof value);
  return std::search(bytes.begin(), bytes.end(), std::begin(pattern), std::end(pattern)) != bytes.end();
}

// The sparse form of a kind that has one (Compressor::decode_sparse) must agree with the dense decoding:
// the same refusal, or ascending positions below d whose values, scattered into zeros, are the dense values
// bit for bit. `dense` is null when the dense decoder refused. Returns the broken promise, or "".
std::string sparse_disagrees(const Compressor& c, std::span<const std::uint8_t> bytes, std::size_t d,
                             const std::vector<float>* dense) {
  std::vector<std::uint32_t> positions;
  std::vector<float> kept;
  try {
    if (!c.decode_sparse(bytes, d, positions, kept)) return "";
  } catch (const DecodeError&) {
    return dense ? "the sparse decoder refused what the dense one decoded" : "";
  }
  if (!dense) return "the sparse decoder decoded what the dense one refused";
  if (positions.size() != kept.size()) return "sparse positions and values differ in number";
  std::vector<float> scattered(d, 0.0f);
  for (std::size_t j = 0; j < positions.size(); ++j) {
    if (positions[j] >= d || (j > 0 && positions[j] <= positions[j - 1]))
      return "sparse positions are not ascending below d";
    scattered[positions[j]] = kept[j];
  }
  if (std::memcmp(scattered.data(), dense->data(), d * sizeof(float)) != 0)
    return "the sparse decoding differs from the dense one";
  return "";
}

// Decodes `bytes` and checks the decoder's promises (see the top of this file). Only DecodeError may escape
// the decoder; any other exception propagates and fails the test.
Outcome decode(const Compressor& c, std::span<const std::uint8_t> bytes, std::size_t d) {
  Outcome outcome;
  std::vector<float> values;
  try {
    values = c.decode(bytes, d);
  } catch (const DecodeError& e) {
    if (std::string(e.what()).find("byte offset") == std::string::npos)
      outcome.broken = std::string("a DecodeError without a byte offset: ") + e.what();
    else
      outcome.broken = sparse_disagrees(c, bytes, d, nullptr);
    return outcome;
  }
  outcome.decoded = true;
  outcome.broken = sparse_disagrees(c, bytes, d, &values);
  if (!outcome.broken.empty()) return outcome;
  if (values.size() != d) {
    outcome.broken = "decoded " + std::to_string(values.size()) + " values instead of " + std::to_string(d);
    return outcome;
  }
  for (std::size_t i = 0; i < d; ++i) {
    if (!std::isfinite(values[i]) && !copied_from(values[i], bytes)) {
      outcome.broken = "value " + std::to_string(i) + " is " + std::to_string(values[i]) +
                       ", which is not a float32 of the message";
      return outcome;
    }
  }
  return outcome;
}

// Tallies outcomes over many buffers and keeps the first broken promise, so that a test case makes one
// CHECK (cheap, with a useful message) instead of one per buffer.
struct Tally {
  std::size_t decoded = 0, refused = 0, broken = 0;
  std::string first_broken;
  void add(const Outcome& outcome, const std::string& context) {
    (outcome.decoded ? decoded : refused) += 1;
    if (!outcome.broken.empty() && broken++ == 0) first_broken = context + ": " + outcome.broken;
  }
};
}  // namespace

TEST_CASE("every truncation of a valid message, and any extra byte, is a DecodeError naming the offset") {
  for (const std::string& json : decoders()) {
    auto c = make_compressor(json);
    for (std::size_t d : {13u, 200u}) {
      for (const std::string shape : {"gaussian", "sparse", "zero"}) {
        INFO(json << " d=" << d << " " << shape);
        Rng rng(d);
        const Bytes bytes = c->encode(test_vector(shape, d, 7), rng);
        const Outcome whole = decode(*c, bytes, d);
        CHECK(whole.broken == "");
        REQUIRE(whole.decoded);
        for (std::size_t n = 0; n < bytes.size(); ++n) {
          INFO("truncated to " << n << " of " << bytes.size() << " bytes");
          const Outcome truncated = decode(*c, std::span(bytes).first(n), d);
          REQUIRE_FALSE(truncated.decoded);
          REQUIRE(truncated.broken == "");
        }
        Bytes longer = bytes;
        longer.push_back(0);
        CHECK_THROWS_WITH(c->decode(longer, d), Catch::Contains("byte offset"));
      }
    }
  }
}

TEST_CASE("single bit flips of valid messages decode to d values or fail with a DecodeError") {
  for (const std::string& json : decoders()) {
    INFO(json);
    auto c = make_compressor(json);
    Rng rng(3);
    const Bytes bytes = c->encode(test_vector("gaussian", 150, 3), rng);
    Tally tally;
    for (std::size_t bit = 0; bit < 8 * bytes.size(); ++bit) {
      Bytes damaged = bytes;
      damaged[bit / 8] ^= static_cast<std::uint8_t>(0x80u >> (bit % 8));
      tally.add(decode(*c, damaged, 150), "bit " + std::to_string(bit) + " flipped");
    }
    INFO(tally.first_broken);
    CHECK(tally.broken == 0);
  }
}

// Random buffers against each decoder; the decoders are dealt over a fixed number of test cases so that ctest
// runs them as separate processes in parallel.
namespace {
constexpr std::size_t random_buffer_cases = 8;

void random_buffers(const std::string& json, std::size_t which) {
  INFO(json);
  auto c = make_compressor(json);
  Rng rng(99 + which);
  Bytes buffer;
  Tally tally;
  for (int t = 0; t < 100000; ++t) {
    const std::size_t d = 12 + rng.below(64);  // at least the largest k of the examples
    buffer.resize(rng.below(80));
    for (auto& b : buffer) b = static_cast<std::uint8_t>(rng() >> 56);
    // Half the buffers start like a plausible header (a small positive float32 norm) to get further in.
    if (t % 2 == 0 && buffer.size() >= 4) buffer[0] = 0x3F, buffer[1] &= 0x8F;
    tally.add(decode(*c, buffer, d), "buffer " + std::to_string(t) + " (d=" + std::to_string(d) + ")");
  }
  INFO("decoded " << tally.decoded << " of 100000; " << tally.first_broken);
  CHECK(tally.broken == 0);
  // A decoder that accepted every random buffer would not be reading its input.
  CHECK(tally.refused > 0);
}

void random_buffer_case(std::size_t slot) {
  for (std::size_t which = slot; which < decoders().size(); which += random_buffer_cases)
    random_buffers(decoders()[which], which);
}

}  // namespace

#define RANDOM_BUFFERS(i)                                                           \
  TEST_CASE("100000 random buffers decode or fail cleanly: decoders " #i " + 8k") { \
    random_buffer_case(i);                                                          \
  }
RANDOM_BUFFERS(0)
RANDOM_BUFFERS(1)
RANDOM_BUFFERS(2)
RANDOM_BUFFERS(3)
RANDOM_BUFFERS(4)
RANDOM_BUFFERS(5)
RANDOM_BUFFERS(6)
RANDOM_BUFFERS(7)

TEST_CASE("every compressor kind has examples, and every example is valid") {
  for (const keys::Kind* kind : compressors().kinds()) {
    INFO(kind->name);
    CHECK_FALSE(kind->examples.empty());
    for (const nlohmann::json& example : kind->examples) {
      CHECK(example.at("kind") == kind->name);
      CHECK_NOTHROW(make_compressor(example.dump()));
    }
  }
  CHECK(decoders().size() >= compressors().kinds().size());
}
