#pragma once
// The `edges` topology: an edge-list file with one "a b" pair of 0-based node ids per line.
#include <cstddef>
#include <string>
#include <string_view>

#include "topologies/generators.hpp"

namespace sgdsim::topology {

struct EdgeFile {
  EdgeList edges;         // as listed; a pair repeated (in either order) is kept once by build_topology
  std::size_t nodes = 0;  // largest id + 1
};

// '#' starts a comment; blank lines are skipped. Bad lines, self-loops and ids above `max_node` are
// InputErrors naming the file and line.
EdgeFile read_edge_list(const std::string& path, std::size_t max_node);
// The same, for the text of an edge list read from `path`.
EdgeFile parse_edge_list(std::string_view text, const std::string& path, std::size_t max_node);

}  // namespace sgdsim::topology
