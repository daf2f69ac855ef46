#include "algorithms/compression/codec_passes.hpp"

#include <map>
#include <string>

namespace sgdsim::compression {

std::optional<CodecPasses> codec_passes(const nlohmann::json& configuration) {
  if (!configuration.is_object()) return std::nullopt;
  const std::string kind = configuration.value("kind", "");
  if (kind == "compose") {
    // Every stage over the whole vector: an upper bound, since the later stages see only the kept values.
    if (!configuration.contains("stages") || !configuration["stages"].is_array()) return std::nullopt;
    CodecPasses sum;
    for (const nlohmann::json& stage : configuration["stages"]) {
      const std::optional<CodecPasses> passes = codec_passes(stage);
      if (!passes) return std::nullopt;
      sum.encode += passes->encode;
      sum.decode += passes->decode;
      sum.encode_kernels += passes->encode_kernels;
      sum.decode_kernels += passes->decode_kernels;
    }
    return sum;
  }
  // Encode, decode, and their kernels; the reasons are docs/compute.md's table.
  static const std::map<std::string, CodecPasses, std::less<>> declared = {
      {"none", {2, 2, 1, 1}},      // a copy each way
      {"fp16", {1.5, 1.5, 1, 1}},  // 4 bytes read, 2 written (and back)
      {"bf16", {1.5, 1.5, 1, 1}},
      {"signsgd", {2, 1, 2, 1}},  // a scale pass, then a sign pass (1 bit written)
      {"sign", {2, 1, 2, 1}},
      {"onebit", {2, 1, 2, 1}},
      {"signum", {4, 1, 2, 1}},    // the momentum's read, read and write, then the sign pass
      {"terngrad", {2, 1, 2, 1}},  // the maximum, then the ternary rounding
      {"natural", {2, 1, 2, 1}},   // the exponent's rounding in one pass, bucket scales in another
      {"qsgd", {2, 1, 2, 1}},      // the bucket norms, then the stochastic rounding
      {"qsgdinf", {2, 1, 2, 1}},
      {"nuqsgd", {2, 1, 2, 1}},
      {"topk", {5, 1, 4, 2}},       // a radix selection (four passes) and the gather; a zero-fill and scatter
      {"dgc", {3, 1, 3, 2}},        // a threshold from a sample, a filter, a compaction
      {"randk", {1, 1, 1, 2}},      // the gather of drawn indices
      {"threshold", {2, 1, 2, 2}},  // a filter and a compaction
      {"powersgd", {2, 1, 4, 1}},   // P = M Q and Q = Mᵀ P read M; M ≈ P Qᵀ writes it
      {"thc", {3, 3, 3, 3}},        // a blocked Hadamard transform (two passes) and the rounding; inverse
  };
  const auto found = declared.find(kind);
  if (found == declared.end()) return std::nullopt;
  CodecPasses passes = found->second;
  // A variable-length code (Elias, zstd) needs a prefix sum of the code lengths before anything is written.
  if (configuration.value("coding", std::string("fixed")) != "fixed") {
    passes.encode += 1;
    passes.decode += 1;
    passes.encode_kernels += 1;
    passes.decode_kernels += 1;
  }
  return passes;
}

}  // namespace sgdsim::compression
