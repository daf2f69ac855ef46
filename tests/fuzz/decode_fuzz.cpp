// libFuzzer target: one decoder (chosen at build time by SGDSIM_FUZZ_COMPRESSOR) against arbitrary bytes.
// Input: two bytes choosing the dimension (12 to 2059, at least every k used here), then the message.
// A clean decode or a DecodeError are the only acceptable outcomes; the sanitizers catch everything else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "common/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto compressor = sgdsim::compression::make_compressor(SGDSIM_FUZZ_COMPRESSOR, "fuzz");
  if (size < 2) return 0;
  const std::size_t dimension = 12 + ((data[0] | (std::size_t{data[1]} << 8)) % 2048);
  std::vector<float> out(dimension);
  try {
    compressor->decode_into(std::span(data + 2, size - 2), out);
  } catch (const sgdsim::DecodeError&) {
    return 0;
  }
  return 0;
}
