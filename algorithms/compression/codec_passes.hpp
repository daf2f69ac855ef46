#pragma once
// How much memory traffic a codec configuration makes, as each compressor kind declares it: the estimate an
// accelerator profile prices a codec by when nobody has measured it on that device (docs/compute.md,
// "Accelerator profiles"). On a GPU these codecs are memory-bound: their time is the bytes they move over
// the memory bandwidth, plus a launch per kernel.
#include <optional>

#include <nlohmann/json.hpp>

namespace sgdsim::compression {

struct CodecPasses {
  // 4-byte values read or written per coordinate of the vector (a pass reads or writes the whole vector).
  double encode = 0, decode = 0;
  // Kernels launched per encoding, per decoding.
  double encode_kernels = 0, decode_kernels = 0;
};

// The passes of a resolved configuration (its kind and keys); nullopt for a kind that declares none (it then
// needs a measured price).
std::optional<CodecPasses> codec_passes(const nlohmann::json& configuration);

}  // namespace sgdsim::compression
