#include "sim/platform.hpp"

#include "sim/neighbour_zone.hpp"

#include <memory>
#include <string>

#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u.hpp>

namespace sgdsim::sim {

namespace {

namespace profile = simgrid::kernel::profile;

// A SimGrid profile following the product of `parts`, each value multiplied by `scale`. The events are
// generated lazily (SimGrid asks for more when it has used them up), so random and periodic profiles need no
// horizon. SimGrid stores each value with the delay since the previous one. Every change counts against
// `budget`; past its limit the profile ends (the nodes then stop the run, sim/simgrid_port.cpp).
profile::Profile* make_profile(const std::string& name, const std::vector<Profile>& parts, double scale,
                               EventBudget& budget) {
  struct State {
    ProfileEvents events;
    double last = 0;
  };
  auto state = std::make_shared<State>(State{ProfileEvents(parts), 0});
  return profile::ProfileBuilder::from_callback(
      name,
      [state, scale, name, &budget](std::vector<profile::DatedValue>& values) {
        for (int k = 0; k < 64; ++k) {
          const auto event = state->events.next();
          if (!event) return;
          if (++budget.used > budget.limit) {
            if (budget.exceeded.empty()) {
              budget.exceeded = name;
              budget.at = event->first;
            }
            return;
          }
          values.emplace_back(event->first - state->last, event->second * scale);
          state->last = event->first;
        }
      },
      -1);
}

}  // namespace

std::vector<simgrid::s4u::Host*> build_platform(const topology::Topology& topology, double host_speed,
                                                const Dynamics& dynamics, std::vector<PlatformLink>& links,
                                                EventBudget& budget) {
  namespace s4u = simgrid::s4u;
  // Given only the one-hop routes, the zone answers them from an adjacency list and computes multi-hop
  // (fewest-hop) routes on demand: memory and set-up grow with the edges, not with the N^2 pairs.
  s4u::NetZone* zone = create_neighbour_zone("network");
  std::vector<s4u::Host*> hosts(topology.nodes);
  for (std::size_t i = 0; i < topology.nodes; ++i) {
    const std::string name = "node" + std::to_string(i);
    hosts[i] = zone->create_host(name, host_speed);
    // Host speed profiles are factors of the nominal speed.
    if (const auto parts = resolved_speed(dynamics, i); !parts.empty())
      hosts[i]->set_speed_profile(make_profile(name + "/speed", parts, 1.0, budget));
    hosts[i]->seal();
  }
  // Switches: routers that compute nothing, vertices after the nodes.
  std::vector<simgrid::kernel::routing::NetPoint*> points(topology.vertices());
  for (std::size_t i = 0; i < topology.nodes; ++i) points[i] = hosts[i]->get_netpoint();
  for (std::size_t r = 0; r < topology.routers.size(); ++r)
    points[topology.nodes + r] = zone->create_router(topology.routers[r]);
  const auto vertex_name = [&](std::size_t v) {
    return v < topology.nodes ? "node" + std::to_string(v) : topology.routers[v - topology.nodes];
  };
  const auto short_name = [&](std::size_t v) {
    return v < topology.nodes ? std::to_string(v) : topology.routers[v - topology.nodes];
  };
  for (std::size_t k = 0; k < topology.edges.size(); ++k) {
    const auto& edge = topology.edges[k];
    const std::string name = "link" + short_name(edge.a) + "-" + short_name(edge.b);
    // Split-duplex: a->b and b->a traffic do not share bandwidth, as on a full-duplex Ethernet link.
    s4u::Link* link =
        zone->create_split_duplex_link(name, edge.link.bandwidth)->set_latency(edge.link.latency);
    // SimGrid 3.32 applies profiles only to the two directions of a split-duplex link, not to the pair (an
    // event on the pair aborts), and takes bandwidth and latency profile values in absolute units.
    const ResolvedLink profiles = resolved_link(dynamics, k, edge.a, edge.b);
    for (const char* direction : {"_UP", "_DOWN"}) {
      s4u::Link* half = s4u::Link::by_name(name + direction);
      const std::string prefix = name + direction;
      if (!profiles.bandwidth.empty())
        half->set_bandwidth_profile(
            make_profile(prefix + "/bandwidth", profiles.bandwidth, edge.link.bandwidth, budget));
      if (!profiles.latency.empty())
        half->set_latency_profile(
            make_profile(prefix + "/latency", profiles.latency, edge.link.latency, budget));
      if (!profiles.state.empty())
        half->set_state_profile(make_profile(prefix + "/state", profiles.state, 1.0, budget));
    }
    link->seal();
    const std::string a = vertex_name(edge.a), b = vertex_name(edge.b);
    links.push_back({s4u::Link::by_name(name + "_UP"), {name, a, b, edge.link.bandwidth}});
    links.push_back({s4u::Link::by_name(name + "_DOWN"), {name, b, a, edge.link.bandwidth}});
    // a->b takes the UP half, b->a the DOWN half.
    connect_neighbours(zone, points[edge.a], points[edge.b], s4u::Link::by_name(name + "_UP"),
                       s4u::Link::by_name(name + "_DOWN"));
  }
  // Fat trees spread flows over their parallel up-links by destination host (D-mod-k); other networks keep
  // the fewest-hop route with the lowest-vertex tie rule.
  if (const keys::Kind* kind = topology::topologies().find(topology.kind);
      kind && kind->has("destination_routing")) {
    std::vector<std::uint32_t> host_of(topology.nodes);
    for (std::size_t i = 0; i < topology.nodes; ++i)
      host_of[i] = static_cast<std::uint32_t>(i / topology.gpus_per_host);
    route_by_destination(zone, {points.begin(), points.begin() + static_cast<std::ptrdiff_t>(topology.nodes)},
                         host_of);
  }
  zone->seal();
  return hosts;
}

}  // namespace sgdsim::sim
