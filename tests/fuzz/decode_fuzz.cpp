// libFuzzer target: every example of every registered compressor kind against arbitrary bytes, so a new kind
// is fuzzed without being listed anywhere. Input: one byte choosing the example, two bytes choosing the
// dimension (12 to 2059, at least every k of the examples), then the message. A clean decode or a DecodeError
// are the only acceptable outcomes; the sanitizers catch everything else.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"

namespace {
std::vector<std::unique_ptr<sgdsim::compression::Compressor>> examples() {
  std::vector<std::unique_ptr<sgdsim::compression::Compressor>> out;
  for (const sgdsim::keys::Kind* kind : sgdsim::compression::compressors().kinds())
    for (const auto& example : kind->examples)
      out.push_back(sgdsim::compression::make_compressor(example.dump()));
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto compressors = examples();
  if (size < 3 || compressors.empty()) return 0;
  const auto& compressor = compressors[data[0] % compressors.size()];
  const std::size_t dimension = 12 + ((data[1] | (std::size_t{data[2]} << 8)) % 2048);
  std::vector<float> out(dimension);
  try {
    compressor->decode_into(std::span(data + 3, size - 3), out);
  } catch (const sgdsim::DecodeError&) {
    return 0;
  }
  return 0;
}
