#pragma once
// A SimGrid netzone for graphs whose traffic is mostly between neighbours. Internal to sim/.
//
// SimGrid's Dijkstra zone with its cache runs one Dijkstra per source (O(N log N + E) each) and keeps a
// predecessor array per source, i.e. N^2 words: at N = 4096 a few seconds of routing and 134 MB, although
// gossip only ever talks to one-hop neighbours. This zone answers one-hop routes from an adjacency list and
// computes multi-hop routes exactly as the Dijkstra zone does (same tie rule, hence the same links and the
// same latency sum, in the same order), caching a 4-byte predecessor array only for sources that need one.
#include <cstdint>
#include <string>
#include <vector>

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace sgdsim::sim {

class NeighbourZone : public simgrid::kernel::routing::NetZoneImpl {
 public:
  // Becomes the platform's root zone when created first (as s4u::create_*_zone does).
  explicit NeighbourZone(const std::string& name) : NetZoneImpl(name) {}

  // The edge a-b: a->b traffic crosses `forward`, b->a crosses `backward`. Declaring an edge twice is an
  // error.
  void connect(simgrid::s4u::Host* a, simgrid::s4u::Host* b, simgrid::s4u::Link* forward,
               simgrid::s4u::Link* backward);

 protected:
  void get_local_route(const simgrid::kernel::routing::NetPoint* src,
                       const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                       double* latency) override;

 private:
  struct Arc {
    std::uint32_t to;  // vertex index
    simgrid::s4u::Link* link;
  };
  static constexpr std::uint32_t none = UINT32_MAX;

  std::uint32_t vertex(const simgrid::kernel::routing::NetPoint* point);
  std::uint32_t vertex_or_throw(const simgrid::kernel::routing::NetPoint* point) const;
  const std::vector<std::uint32_t>& predecessors(std::uint32_t source);
  const Arc* arc(std::uint32_t from, std::uint32_t to) const;

  // Vertices are numbered in order of first appearance in connect(), as the Dijkstra zone numbers its graph
  // nodes: its tie rule between equally short paths depends on that order.
  std::vector<std::uint32_t> vertex_of_point_;            // NetPoint id -> vertex, or none
  std::vector<std::vector<Arc>> arcs_;                    // out-arcs per vertex, in declaration order
  std::vector<std::vector<std::uint32_t>> predecessors_;  // per source vertex, filled on first multi-hop use
};

}  // namespace sgdsim::sim
