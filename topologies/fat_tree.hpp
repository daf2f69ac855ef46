#pragma once
// The switches of a fat tree (fat_tree.cpp): above the hosts of the kind fat_tree, and above the hosts'
// fabrics of a cluster whose hosts meet on a fat tree (switched_networks.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/keys.hpp"
#include "topologies/generators.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::topology {

// XGFT(h; m₁…m_h; w₁…w_h): a switch of level l has down[l − 1] children, a node of level l − 1 up[l − 1]
// parents; level 0 (the leaves' children: hosts, or a cluster's host fabrics) has m₁⋯m_h nodes.
struct FatTreeShape {
  std::vector<std::int64_t> down, up;
  std::size_t bottom() const;  // nodes of level 0
};

// The keys "down" and "up".
std::vector<keys::Key> fat_tree_keys();
// Reads them from `spec`, refusing (InputError naming them) a tree of fewer than 2 or more than max_nodes
// level-0 nodes, or one too large to build.
FatTreeShape read_fat_tree(Spec& spec);
// Appends the switches of levels 1 … h: level-0 node i is vertex first_bottom + i, the switches become
// vertices first_switch, first_switch + 1, … (level by level; `routers` gets their names, switch<l>.<i>),
// and `edges` their links, each node's parents in the order D-mod-k picks them.
void add_fat_tree_switches(const FatTreeShape& shape, std::size_t first_bottom, std::size_t first_switch,
                           EdgeList& edges, std::vector<std::string>& routers);

}  // namespace sgdsim::topology
