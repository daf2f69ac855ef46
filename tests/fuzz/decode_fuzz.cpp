// libFuzzer target: every example of every registered compressor kind against arbitrary bytes, so a new kind
// is fuzzed without being listed anywhere. Input: one byte choosing the example, two bytes choosing the
// dimension (12 to 2059, at least every k of the examples), then the message. A clean decode or a DecodeError
// are the only acceptable outcomes; the sanitizers catch everything else.
//
// With SGDSIM_FUZZ_SEEDS=DIR in the environment the target writes one valid input per example to DIR (a real
// encoding of a random vector, so the fuzzer starts from inside every wire format) and exits: tools/fuzz.sh
// makes the seed corpus that way, and it stays in step with the registered kinds.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "common/rng.hpp"

namespace {
std::vector<std::unique_ptr<sgdsim::compression::Compressor>> examples() {
  std::vector<std::unique_ptr<sgdsim::compression::Compressor>> out;
  for (const sgdsim::keys::Kind* kind : sgdsim::compression::compressors().kinds())
    for (const auto& example : kind->examples)
      out.push_back(sgdsim::compression::make_compressor(example.dump()));
  return out;
}

void write_seeds(const std::string& dir) {
  const auto compressors = examples();
  // Dimension 300: above every k of the examples; the two header bytes encode 300 - 12.
  constexpr std::size_t dimension = 300;
  constexpr std::size_t code = dimension - 12;
  sgdsim::Rng rng(1);
  std::vector<float> values(dimension);
  for (float& v : values) v = static_cast<float>(rng.normal());
  int written = 0;
  for (std::size_t i = 0; i < compressors.size() && i < 256; ++i) {
    sgdsim::compression::Bytes message{static_cast<std::uint8_t>(i), code & 0xff, code >> 8};
    try {
      compressors[i]->encode_into(values, rng, message);
    } catch (const sgdsim::InputError&) {
      continue;  // an example that cannot encode this vector gives no seed
    }
    std::ofstream out(dir + "/example-" + std::to_string(i), std::ios::binary);
    out.write(reinterpret_cast<const char*>(message.data()), static_cast<std::streamsize>(message.size()));
    if (!out) {
      std::fprintf(stderr, "cannot write seeds to %s\n", dir.c_str());
      std::exit(1);
    }
    ++written;
  }
  std::fprintf(stderr, "wrote %d seeds (%zu examples) to %s\n", written, compressors.size(), dir.c_str());
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("SGDSIM_FUZZ_SEEDS")) {
    write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

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
