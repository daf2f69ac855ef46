// The scenario kind natural: natural compression (stochastic rounding to powers of two).
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/natural.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_natural_spec = compressors().add(
    {"natural",
     "Natural compression (Horváth et al. 2019): unbiased stochastic rounding of each value to one of its "
     "two neighbouring powers of two; a sign bit and an exponent code per coordinate (9 bits, or 1 + "
     "exponent_bits with a per-bucket 8-bit top exponent).",
     {keys::integer(
          "exponent_bits",
          "Bits of each exponent code: 8 covers 2^-127 .. 2^127 with no header; fewer cover the "
          "2^bits - 1 powers below each bucket's largest (smaller values round to 0 or the lowest).")
          .fallback_to(8)
          .between(1, 8),
      keys::integer("bucket", "Coordinates per top-exponent header when exponent_bits < 8 (0: one bucket).")
          .fallback_to(0)
          .between(0, 2147483648.0)},
     {"codes_values"},
     {json::parse(R"({"kind": "natural"})"),
      json::parse(R"({"kind": "natural", "exponent_bits": 3, "bucket": 16})")}},
    [](Spec& spec) {
      const auto bits = static_cast<int>(spec.integer("exponent_bits"));
      std::size_t bucket = 0;
      if (bits < 8) {
        bucket = static_cast<std::size_t>(spec.integer("bucket"));
      } else if (spec.has("bucket")) {
        spec.fail("bucket",
                  "\"bucket\" sizes the top-exponent headers of exponent_bits < 8; with 8 bits "
                  "there are no headers");
      }
      return std::make_unique<Natural>(bits, bucket);
    });

}  // namespace
}  // namespace sgdsim::compression
