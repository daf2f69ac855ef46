// NeighbourZone must route exactly as SimGrid's Dijkstra zone (which sgdsim used before): the same links in
// the same order and the same latency sum, bit for bit, for every pair of hosts, including multi-hop routes
// where several shortest paths tie.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/neighbour_zone.hpp"
#include "tests/support/child.hpp"

namespace {

namespace s4u = simgrid::s4u;
using Edges = std::vector<std::pair<int, int>>;

// Every route of an n-host platform with one split-duplex link per edge (latencies vary per edge so that the
// order of the latency sum matters), as text.
std::string routes(int n, const Edges& edges, bool neighbour_zone) {
  const sgdsim::testing::ChildResult result = sgdsim::testing::in_child([&] {
    int argc = 1;
    char name[] = "routes";
    char* argv[] = {name, nullptr};
    s4u::Engine engine(&argc, argv);
    s4u::NetZone* zone = neighbour_zone ? sgdsim::sim::create_neighbour_zone("network")
                                        : s4u::create_dijkstra_zone("network", true);
    // Names are a character + a number: a one-character literal + a string draws a false -Wrestrict from GCC
    // 12 (its bug 105329).
    std::vector<s4u::Host*> hosts;
    for (int i = 0; i < n; ++i) hosts.push_back(zone->create_host('h' + std::to_string(i), 1e9)->seal());
    for (std::size_t k = 0; k < edges.size(); ++k) {
      const auto [a, b] = edges[k];
      const std::string link_name = 'l' + std::to_string(k);
      s4u::Link* link = zone->create_split_duplex_link(link_name, 1e9)->set_latency(1e-6 * (1.0 + 0.1 * k));
      link->seal();
      if (neighbour_zone)
        sgdsim::sim::connect_neighbours(zone, hosts[a], hosts[b], s4u::Link::by_name(link_name + "_UP"),
                                        s4u::Link::by_name(link_name + "_DOWN"));
      else
        zone->add_route(hosts[a]->get_netpoint(), hosts[b]->get_netpoint(), nullptr, nullptr,
                        {s4u::LinkInRoute(link, s4u::LinkInRoute::Direction::UP)}, true);
    }
    zone->seal();
    std::string text;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        std::vector<s4u::Link*> links;
        double latency = 0;
        hosts[i]->route_to(hosts[j], links, &latency);
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.17g", latency);
        text += std::to_string(i) + ">" + std::to_string(j) + " " + buffer + ":";
        for (const s4u::Link* l : links) text += " " + l->get_name();
        text += "\n";
      }
    }
    return text;
  });
  INFO(result.error);
  REQUIRE(result.exit_code == 0);
  return result.output;
}

void check_same_routes(int n, const Edges& edges) {
  const std::string dijkstra = routes(n, edges, false);
  REQUIRE(dijkstra.size() > static_cast<std::size_t>(n * n));
  CHECK(routes(n, edges, true) == dijkstra);
}

}  // namespace

TEST_CASE("neighbour zone: torus routes equal the Dijkstra zone's", "[sim][routing]") {
  const int rows = 4, cols = 5;
  Edges edges;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      edges.emplace_back(r * cols + c, r * cols + (c + 1) % cols);
      edges.emplace_back(r * cols + c, ((r + 1) % rows) * cols + c);
    }
  check_same_routes(rows * cols, edges);
}

TEST_CASE("neighbour zone: random graph routes equal the Dijkstra zone's", "[sim][routing]") {
  // A ring (connected) plus random chords, declared in a scrambled order so that the Dijkstra zone's vertex
  // numbering differs from the hosts' order.
  const int n = 24;
  Edges edges;
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>(state >> 33);
  };
  for (int i = 0; i < n; ++i) edges.emplace_back((i * 7 + 3) % n, (i * 7 + 4) % n);
  for (int k = 0; k < 20; ++k) {
    const int a = next() % n, b = next() % n;
    bool known = a == b;
    for (const auto& [x, y] : edges) known = known || (x == a && y == b) || (x == b && y == a);
    if (!known) edges.emplace_back(a, b);
  }
  check_same_routes(n, edges);
}
