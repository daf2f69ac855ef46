// libFuzzer target: the CIFAR-10 batch reader (plain or gzip-compressed, through a file as in real use) on
// arbitrary bytes. A dataset of whole 3x32x32 records with labels 0 to 9, or an InputError, are the only
// acceptable outcomes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "algorithms/learning/cifar10.hpp"
#include "common/error.hpp"
#include "memory_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const sgdsim::fuzz::MemoryFile file(data, size);
  try {
    const sgdsim::learning::Dataset dataset = sgdsim::learning::read_cifar10_file(file.path());
    if (dataset.samples() == 0 || dataset.dimension() != 3072 || dataset.labels.size() != dataset.samples())
      std::abort();
    for (const auto label : dataset.labels)
      if (label < 0 || label > 9) std::abort();
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
