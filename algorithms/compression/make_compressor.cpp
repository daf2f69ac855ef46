// The compressor family: every kind registers itself with its keys (see the *_spec.cpp files beside this
// one).
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {

keys::Registry<CompressorFactory>& compressors() {
  static keys::Registry<CompressorFactory> family(
      "compressor", "kind",
      "How a message's vector becomes bytes on the wire (docs/compression.md has every wire format).", {},
      std::nullopt, {},
      {{"sparsifier", "Selects coordinates: the first stage of `compose`."},
       {"codes_values", "Codes a vector's values: the second stage of `compose`."},
       {"sign_votes",
        "Messages decode to ±1 per coordinate, so data-parallel workers may take their majority vote."},
       {"float_format",
        "Sends every coordinate as a float of one format (float_format.hpp): the all-reduce collectives "
        "sum and forward it."},
       {"shares_scales",
        "Its per-bucket scale may be any bound of the bucket's magnitudes, so data-parallel workers can "
        "share the maximum of theirs (TernGrad's scaler sharing, data_parallel share_scales)."},
       {"homomorphic",
        "Its integers are summed inside data_parallel's all-reduce in a frame the workers agree on (THC): no "
        "protocol takes it as the compressor of its own messages."},
       {"wants_error_feedback",
        "Biased: its paper runs it with error feedback; a run without memory \"error_feedback\" warns."}});
  return family;
}

std::unique_ptr<Compressor> make_compressor(Spec& spec) {
  auto compressor = compressors().factory(spec.kind_name())(spec);
  spec.finish();
  return compressor;
}

std::unique_ptr<Compressor> make_compressor(const std::string& json_text, const std::string& origin) {
  const json value = parse_json_text(json_text, origin);
  json resolved;
  Spec spec = Spec::of_family(value, origin, "$", resolved, compressors());
  return make_compressor(spec);
}

}  // namespace sgdsim::compression
