// The scenario kind none: raw fp32 values.
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/identity.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_identity_spec =
    compressors().add({"none",
                       "No compression: the d values as little-endian fp32, exactly 4·d bytes.",
                       {},
                       {"codes_values", "float_format"},
                       {json::parse(R"({"kind": "none"})")}},
                      [](Spec&) { return std::make_unique<Identity>(); });

}  // namespace
}  // namespace sgdsim::compression
