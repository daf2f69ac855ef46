#include "sim/platform.hpp"

#include <string>

#include <simgrid/s4u.hpp>

namespace sgdsim::sim {

std::vector<simgrid::s4u::Host*> build_platform(const topology::Topology& topology, double host_speed) {
  namespace s4u = simgrid::s4u;
  // A Dijkstra zone given only the one-hop routes computes multi-hop (fewest-hop) routes on demand and caches
  // them per source: memory grows with the edges, not with the N^2 pairs a full zone would store.
  s4u::NetZone* zone = s4u::create_dijkstra_zone("network", /*cache=*/true);
  std::vector<s4u::Host*> hosts(topology.nodes);
  for (std::size_t i = 0; i < topology.nodes; ++i)
    hosts[i] = zone->create_host("node" + std::to_string(i), host_speed)->seal();
  for (const auto& edge : topology.edges) {
    // Split-duplex: a->b and b->a traffic do not share bandwidth, as on a full-duplex Ethernet link.
    s4u::Link* link =
        zone->create_split_duplex_link("link" + std::to_string(edge.a) + "-" + std::to_string(edge.b),
                                       edge.link.bandwidth)
            ->set_latency(edge.link.latency)
            ->seal();
    // Declared a->b on the UP half; the symmetrical route b->a takes the DOWN half.
    zone->add_route(hosts[edge.a]->get_netpoint(), hosts[edge.b]->get_netpoint(), nullptr, nullptr,
                    {s4u::LinkInRoute(link, s4u::LinkInRoute::Direction::UP)}, /*symmetrical=*/true);
  }
  zone->seal();
  return hosts;
}

}  // namespace sgdsim::sim
