// The scenario kinds fp16 and bf16: every coordinate as a 16-bit float.
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/float16.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_float16_spec =
    compressors().add(
        {"fp16",
         "IEEE half precision: each value rounded to the nearest fp16 (ties to even), exactly 2·d "
         "bytes. Largest finite 65504: a larger value (or a sum of the all-reduce collectives) "
         "stops the run as diverged.",
         {},
         {"codes_values", "float_format"},
         {json::parse(R"({"kind": "fp16"})")}},
        [](Spec&) { return std::make_unique<Float16>(Float16::Format::fp16); }) &&
    compressors().add(
        {"bf16",
         "bfloat16: each value rounded to the nearest bf16 (fp32's range, 8 significant bits; ties "
         "to even), exactly 2·d bytes.",
         {},
         {"codes_values", "float_format"},
         {json::parse(R"({"kind": "bf16"})")}},
        [](Spec&) { return std::make_unique<Float16>(Float16::Format::bf16); });

}  // namespace
}  // namespace sgdsim::compression
