// The compressor kind thc alone: one worker's THC message (thc_compressor.hpp), against the pieces it is
// made of, its wire size, malformed messages, and the key that belongs to the all-reduce only.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/hadamard.hpp"
#include "algorithms/compression/thc.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"

using namespace sgdsim;
using namespace sgdsim::compression;

TEST_CASE("compressor thc: one worker's indices in the frame of its own norm, decoded and rotated back") {
  for (const std::size_t d : {1, 7, 100}) {
    for (const unsigned bits : {1u, 4u}) {
      INFO("d = " << d << ", b = " << bits);
      Rng draw(d + bits);
      std::vector<float> x(d);
      for (float& v : x) v = static_cast<float>(draw.normal());
      const auto thc = make_compressor(R"({"kind": "thc", "bits": )" + std::to_string(bits) +
                                       R"(, "overflow": 0.01, "rotation_seed": 9})");
      Rng rng(5);
      const Bytes message = thc->encode(x, rng);
      // The hand computation with the same stream: rotate, quantize in the frame of ‖x‖, decode one term.
      const RandomizedHadamard rotation(d, 9);
      CHECK(message.size() == 4 + (rotation.padded() * bits + 7) / 8);
      double squares = 0;
      for (const float v : x) squares += static_cast<double>(v) * v;
      const ThcFrame frame = thc_frame(static_cast<float>(std::sqrt(squares)), rotation.padded(), 0.01, bits);
      std::vector<float> rotated(rotation.padded()), mean(rotation.padded()), expected(d);
      std::vector<std::uint32_t> indices(rotation.padded());
      rotation.forward(x, rotated);
      Rng same(5);
      thc_quantize(rotated, frame, same, indices);
      thc_decode_sums(indices, 1, frame, mean);
      rotation.inverse(mean, expected);
      CHECK(thc->decode(message, d) == expected);
      // Damaged: short, trailing bytes, a negative norm.
      CHECK_THROWS_AS(thc->decode(Bytes(message.begin(), message.end() - 1), d), DecodeError);
      Bytes longer = message;
      longer.push_back(0);
      CHECK_THROWS_AS(thc->decode(longer, d), DecodeError);
      Bytes negative = message;
      negative[0] |= 0x80;
      if (std::sqrt(squares) > 0) CHECK_THROWS_AS(thc->decode(negative, d), DecodeError);
    }
  }
}

TEST_CASE("compressor thc: error_feedback is the all-reduce's and is refused alone") {
  CHECK_THROWS_WITH(make_compressor(R"({"kind": "thc", "error_feedback": true})", "here"),
                    Catch::Contains("$.error_feedback") && Catch::Contains("all-reduce"));
}
