#pragma once
// A SimGrid netzone for graphs whose traffic is mostly between neighbours. Internal to sim/.
//
// SimGrid's Dijkstra zone with its cache runs one Dijkstra per source (O(N log N + E) each) and keeps a
// predecessor array per source, i.e. N^2 words: at N = 4096 seconds of routing and 134 MB, although gossip
// only ever talks to one-hop neighbours. This zone answers one-hop routes from an adjacency list and computes
// multi-hop routes exactly as the Dijkstra zone does (same tie rule, hence the same links and the same
// latency sum, in the same order), caching a 4-byte predecessor array only for sources that need one.
#include <cstdint>
#include <string>
#include <vector>

namespace simgrid::kernel::routing {
class NetPoint;
}
namespace simgrid::s4u {
class Host;
class Link;
class NetZone;
}  // namespace simgrid::s4u

namespace sgdsim::sim {

// Creates the zone; it becomes the platform's root zone when created first (as s4u::create_*_zone does) and
// is owned by SimGrid's engine.
simgrid::s4u::NetZone* create_neighbour_zone(const std::string& name);

// Declares the edge a-b in a zone made by create_neighbour_zone: a->b traffic crosses `forward`, b->a crosses
// `backward`. Declaring an edge twice is an error.
void connect_neighbours(simgrid::s4u::NetZone* zone, simgrid::s4u::Host* a, simgrid::s4u::Host* b,
                        simgrid::s4u::Link* forward, simgrid::s4u::Link* backward);
// The same between any two points of the zone: hosts or routers (switches, which compute nothing and are
// only crossed by routes).
void connect_neighbours(simgrid::s4u::NetZone* zone, simgrid::kernel::routing::NetPoint* a,
                        simgrid::kernel::routing::NetPoint* b, simgrid::s4u::Link* forward,
                        simgrid::s4u::Link* backward);

// Makes the zone route by destination (for fat trees): from each point on the way, among the next hops that
// are one hop closer to the destination (in declaration order), a route to destinations[k] takes the one of
// index q mod c, where c is how many there are and q is numbers[k] divided by the counts of the earlier hops
// (D-mod-k in mixed radix: on a fat tree the up-link of each level is picked by the digit of the number that
// level owns; a host's number, shared by a cluster's devices on that host). Routes are still fewest-hop; only
// the choice among equally short ones changes. Call after every connect.
void route_by_destination(simgrid::s4u::NetZone* zone,
                          const std::vector<simgrid::kernel::routing::NetPoint*>& destinations,
                          const std::vector<std::uint32_t>& numbers);

}  // namespace sgdsim::sim
