// libFuzzer target: the IDX reader (plain or gzip-compressed, through a file as in real use) on arbitrary
// bytes. The first byte picks the expected rank (1 to 4). An array whose values match its dims, or an
// InputError, are the only acceptable outcomes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "algorithms/learning/idx.hpp"
#include "common/error.hpp"
#include "memory_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int rank = 1 + data[0] % 4;
  const sgdsim::fuzz::MemoryFile file(data + 1, size - 1);
  try {
    const sgdsim::learning::IdxArray array = sgdsim::learning::read_idx_file(file.path(), rank);
    std::uint64_t count = 1;
    for (std::uint32_t dim : array.dims) count *= dim;
    if (array.dims.size() != static_cast<std::size_t>(rank) || count != array.values.size()) std::abort();
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
