#include "sim/neighbour_zone.hpp"

#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <utility>
#include <vector>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace sgdsim::sim {

namespace routing = simgrid::kernel::routing;

namespace {

class NeighbourZone : public routing::NetZoneImpl {
 public:
  explicit NeighbourZone(const std::string& name) : NetZoneImpl(name) {}

  void connect(routing::NetPoint* a, routing::NetPoint* b, simgrid::s4u::Link* forward,
               simgrid::s4u::Link* backward);
  void route_by_destination(const std::vector<routing::NetPoint*>& destinations,
                            const std::vector<std::uint32_t>& numbers);

 protected:
  void get_local_route(const routing::NetPoint* src, const routing::NetPoint* dst, routing::Route* into,
                       double* latency) override;

 private:
  struct Arc {
    std::uint32_t to;  // vertex index
    simgrid::s4u::Link* link;
  };
  static constexpr std::uint32_t none = UINT32_MAX;

  std::uint32_t vertex(const routing::NetPoint* point);
  std::uint32_t vertex_or_throw(const routing::NetPoint* point) const;
  const std::vector<std::uint32_t>& predecessors(std::uint32_t source);
  const std::vector<std::uint32_t>& distances(std::uint32_t target);
  const Arc* arc(std::uint32_t from, std::uint32_t to) const;

  // Vertices are numbered in order of first appearance in connect(), as the Dijkstra zone numbers its graph
  // nodes: its tie rule between equally short paths depends on that order.
  std::vector<std::uint32_t> vertex_of_point_;            // NetPoint id -> vertex, or none
  std::vector<std::vector<Arc>> arcs_;                    // out-arcs per vertex, in declaration order
  std::vector<std::vector<std::uint32_t>> predecessors_;  // per source vertex, filled on first multi-hop use
  // Routing by destination: each destination vertex's number (none: not a destination), and per
  // destination vertex the hops from every vertex to it, filled on first use.
  std::vector<std::uint32_t> destination_;
  std::vector<std::vector<std::uint32_t>> distances_;
};

void NeighbourZone::route_by_destination(const std::vector<routing::NetPoint*>& destinations,
                                         const std::vector<std::uint32_t>& numbers) {
  destination_.assign(arcs_.size(), none);
  for (std::size_t k = 0; k < destinations.size(); ++k)
    destination_[vertex_or_throw(destinations[k])] = numbers.at(k);
}

// Breadth-first from the target: every arc costs one link.
const std::vector<std::uint32_t>& NeighbourZone::distances(std::uint32_t target) {
  if (distances_.empty()) distances_.resize(arcs_.size());
  std::vector<std::uint32_t>& hops = distances_[target];
  if (!hops.empty()) return hops;
  hops.assign(arcs_.size(), none);
  std::vector<std::uint32_t> frontier = {target};
  hops[target] = 0;
  for (std::size_t next = 0; next < frontier.size(); ++next) {
    const std::uint32_t v = frontier[next];
    for (const Arc& a : arcs_[v])
      if (hops[a.to] == none) {
        hops[a.to] = hops[v] + 1;
        frontier.push_back(a.to);
      }
  }
  return hops;
}

std::uint32_t NeighbourZone::vertex(const routing::NetPoint* point) {
  const unsigned long id = point->id();
  if (id >= vertex_of_point_.size()) vertex_of_point_.resize(id + 1, none);
  if (vertex_of_point_[id] == none) {
    vertex_of_point_[id] = static_cast<std::uint32_t>(arcs_.size());
    arcs_.emplace_back();
  }
  return vertex_of_point_[id];
}

std::uint32_t NeighbourZone::vertex_or_throw(const routing::NetPoint* point) const {
  const unsigned long id = point->id();
  if (id >= vertex_of_point_.size() || vertex_of_point_[id] == none)
    throw std::invalid_argument("no route from or to '" + point->get_name() + "': it has no link");
  return vertex_of_point_[id];
}

void NeighbourZone::connect(routing::NetPoint* a, routing::NetPoint* b, simgrid::s4u::Link* forward,
                            simgrid::s4u::Link* backward) {
  const std::uint32_t u = vertex(a);
  const std::uint32_t v = vertex(b);
  if (u == v || arc(u, v) != nullptr)
    throw std::invalid_argument("route from " + a->get_name() + " to " + b->get_name() + " declared twice");
  arcs_[u].push_back({v, forward});
  arcs_[v].push_back({u, backward});
}

const NeighbourZone::Arc* NeighbourZone::arc(std::uint32_t from, std::uint32_t to) const {
  for (const Arc& a : arcs_[from])
    if (a.to == to) return &a;
  return nullptr;
}

// Dijkstra with every arc costing one link, visiting vertices by (cost, index) and keeping the first strict
// improvement: the Dijkstra zone's order, hence its choice among equally short paths.
const std::vector<std::uint32_t>& NeighbourZone::predecessors(std::uint32_t source) {
  if (predecessors_.empty()) predecessors_.resize(arcs_.size());
  std::vector<std::uint32_t>& pred = predecessors_[source];
  if (!pred.empty()) return pred;
  const std::size_t n = arcs_.size();
  pred.assign(n, none);
  std::vector<std::uint32_t> cost(n, UINT32_MAX);
  using Entry = std::pair<std::uint32_t, std::uint32_t>;  // (cost, vertex)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  cost[source] = 0;
  queue.emplace(0, source);
  while (!queue.empty()) {
    const auto [c, v] = queue.top();
    queue.pop();
    if (c != cost[v]) continue;  // stale entry: v was already settled at a lower cost
    for (const Arc& a : arcs_[v]) {
      if (c + 1 < cost[a.to]) {
        cost[a.to] = c + 1;
        pred[a.to] = v;
        queue.emplace(c + 1, a.to);
      }
    }
  }
  return pred;
}

void NeighbourZone::get_local_route(const routing::NetPoint* src, const routing::NetPoint* dst,
                                    routing::Route* into, double* latency) {
  const std::uint32_t s = vertex_or_throw(src);
  const std::uint32_t t = vertex_or_throw(dst);
  // The route is built from the destination backwards, each hop's link put in front and its latency added,
  // as in the Dijkstra zone: the latency sum's rounding depends on that order.
  const auto prepend = [&](simgrid::s4u::Link* link) {
    into->link_list_.insert(into->link_list_.begin(), link->get_impl());
    if (latency) *latency += link->get_latency();
  };
  if (s == t) {
    // The Dijkstra zone routes a host to itself over the network model's loopback link.
    simgrid::s4u::Link* loopback = simgrid::s4u::Link::by_name_or_null("__loopback__");
    if (!loopback) throw std::invalid_argument("no loopback route for '" + src->get_name() + "'");
    prepend(loopback);
    return;
  }
  if (const Arc* direct = arc(s, t)) {  // one hop: the only path of one link
    prepend(direct->link);
    return;
  }
  if (!destination_.empty() && destination_[t] != none) {
    const std::vector<std::uint32_t>& hops = distances(t);
    if (hops[s] == none)
      throw std::invalid_argument("no route from '" + src->get_name() + "' to '" + dst->get_name() + "'");
    std::vector<simgrid::s4u::Link*> path;
    std::uint64_t q = destination_[t];
    std::vector<const Arc*> closer;
    for (std::uint32_t v = s; v != t;) {
      closer.clear();
      for (const Arc& a : arcs_[v])
        if (hops[a.to] + 1 == hops[v]) closer.push_back(&a);
      const Arc* taken = closer[q % closer.size()];
      q /= closer.size();
      path.push_back(taken->link);
      v = taken->to;
    }
    for (auto link = path.rbegin(); link != path.rend(); ++link) prepend(*link);
    return;
  }
  const std::vector<std::uint32_t>& pred = predecessors(s);
  if (pred[t] == none)
    throw std::invalid_argument("no route from '" + src->get_name() + "' to '" + dst->get_name() + "'");
  for (std::uint32_t v = t; v != s; v = pred[v]) prepend(arc(pred[v], v)->link);
}

}  // namespace

simgrid::s4u::NetZone* create_neighbour_zone(const std::string& name) {
  return (new NeighbourZone(name))->get_iface();
}

void connect_neighbours(simgrid::s4u::NetZone* zone, simgrid::s4u::Host* a, simgrid::s4u::Host* b,
                        simgrid::s4u::Link* forward, simgrid::s4u::Link* backward) {
  connect_neighbours(zone, a->get_netpoint(), b->get_netpoint(), forward, backward);
}

void connect_neighbours(simgrid::s4u::NetZone* zone, routing::NetPoint* a, routing::NetPoint* b,
                        simgrid::s4u::Link* forward, simgrid::s4u::Link* backward) {
  auto* neighbours = dynamic_cast<NeighbourZone*>(zone->get_impl());
  if (!neighbours)
    throw std::logic_error("connect_neighbours: " + zone->get_name() + " is not a neighbour zone");
  neighbours->connect(a, b, forward, backward);
}

void route_by_destination(simgrid::s4u::NetZone* zone, const std::vector<routing::NetPoint*>& destinations,
                          const std::vector<std::uint32_t>& numbers) {
  auto* neighbours = dynamic_cast<NeighbourZone*>(zone->get_impl());
  if (!neighbours)
    throw std::logic_error("route_by_destination: " + zone->get_name() + " is not a neighbour zone");
  neighbours->route_by_destination(destinations, numbers);
}

}  // namespace sgdsim::sim
