// libFuzzer target: the edge-list reader (through a file, as in real use). The first byte picks the largest
// node id allowed (a declared node count). An edge list within that bound, or an InputError, are the only
// acceptable outcomes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "common/error.hpp"
#include "memory_file.hpp"
#include "topologies/edge_list.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t max_node = data[0] == 0 ? (std::size_t{1} << 20) : data[0];
  const sgdsim::fuzz::MemoryFile file(data + 1, size - 1);
  try {
    const auto edges = sgdsim::topology::read_edge_list(file.path(), max_node);
    for (const auto& [a, b] : edges.edges) {
      if (a > max_node || b > max_node || a == b || a >= edges.nodes || b >= edges.nodes) std::abort();
    }
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
