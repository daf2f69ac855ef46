// libFuzzer target: the LIBSVM reader (plain or gzip-compressed, through a file as in real use), then the
// label coding and, for small results, the dense form. Only InputErrors may come out.
#include <cstddef>
#include <cstdint>

#include "algorithms/learning/libsvm.hpp"
#include "common/error.hpp"
#include "memory_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const sgdsim::fuzz::MemoryFile file(data, size);
  try {
    using namespace sgdsim::learning;
    const SparseSamples samples = read_libsvm_file(file.path());
    const LabelCoding coding = label_coding({&samples});
    // The dense form is bounded by max_dense_values (2 GiB) by design; keep the fuzzer's memory small.
    if (samples.samples() * (samples.dimension + 1) <= (std::size_t{1} << 20)) {
      densify(samples, samples.dimension, coding, "fuzz");
    }
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
