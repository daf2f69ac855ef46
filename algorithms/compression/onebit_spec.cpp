// The scenario kind onebit: 1-bit SGD.
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/onebit.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_onebit_spec = compressors().add(
    {"onebit",
     "1-bit SGD (Seide et al. 2014): one sign bit per coordinate, rebuilt as the mean of the bucket's "
     "entries of that sign (two fp32 values per bucket). Biased: use it with \"memory\": "
     "\"error_feedback\".",
     {keys::integer("bucket", "Coordinates per bucket, each with its own two means (0: one bucket).")
          .fallback_to(0)
          .between(0, 2147483648.0)},
     {"codes_values"},
     {json::parse(R"({"kind": "onebit"})"), json::parse(R"({"kind": "onebit", "bucket": 24})")}},
    [](Spec& spec) { return std::make_unique<OneBit>(static_cast<std::size_t>(spec.integer("bucket"))); });

}  // namespace
}  // namespace sgdsim::compression
