// libFuzzer target: the .npy header parser of `sgdsim compress` on arbitrary bytes. A layout that fits the
// input or an InputError are the only acceptable outcomes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "common/error.hpp"
#include "common/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const sgdsim::NpyLayout layout = sgdsim::parse_npy(std::span(data, size), "fuzz.npy");
    // What the caller relies on: the values lie inside the input.
    if (layout.data_offset > size || layout.count > (size - layout.data_offset) / 4) std::abort();
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
