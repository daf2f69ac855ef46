// A standalone probe of SimGrid's ns-3 network model (not part of the build; see docs/network.md):
//   g++ -O1 -std=c++17 tools/ns3_probe.cpp -o ns3_probe $(pkg-config --cflags --libs simgrid)
//   ./ns3_probe NODES BYTES full|dijkstra SPLIT_DUPLEX(0|1) MESSAGES [--cfg=network/model:ns-3 ...]
// NODES hosts on a ring (two hosts: one link) of 100 MB/s links, latency LAT seconds (default 500 µs). Every
// node sends MESSAGES messages of BYTES bytes, one after the other, to the node HOP ids further on (default
// 1; with SINGLE=1 only node 0 sends, to node 1) and prints node 0's transfer times. FIRE=1 fires the
// engine's "platform created" signal after sealing the zone, which the ns-3 model needs to build its routing
// tables.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

namespace s4u = simgrid::s4u;

namespace {
double env(const char* name, double fallback) {
  const char* value = std::getenv(name);
  return value ? std::atof(value) : fallback;
}
}  // namespace

int main(int argc, char** argv) {
  s4u::Engine engine(&argc, argv);
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s NODES BYTES full|dijkstra SPLIT MESSAGES [--cfg=...]\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const double bytes = std::atof(argv[2]);
  const std::string zone_kind = argv[3];
  const bool split = std::atoi(argv[4]) != 0;
  const int messages = std::atoi(argv[5]);
  const int hop = static_cast<int>(env("HOP", 1));
  const double latency = env("LAT", 5e-4);
  const bool everyone = n > 2 && !std::getenv("SINGLE");

  s4u::NetZone* zone =
      zone_kind == "full" ? s4u::create_full_zone("z") : s4u::create_dijkstra_zone("z", true);
  std::vector<s4u::Host*> hosts;
  for (int i = 0; i < n; ++i) hosts.push_back(zone->create_host("h" + std::to_string(i), 1e9)->seal());
  for (int i = 0; i < (n == 2 ? 1 : n); ++i) {
    const std::string name = "l" + std::to_string(i);
    s4u::Link* link = split ? zone->create_split_duplex_link(name, 1e8) : zone->create_link(name, 1e8);
    link->set_latency(latency)->seal();
    const s4u::LinkInRoute route =
        split ? s4u::LinkInRoute(link, s4u::LinkInRoute::Direction::UP) : s4u::LinkInRoute(link);
    zone->add_route(hosts[i]->get_netpoint(), hosts[(i + 1) % n]->get_netpoint(), nullptr, nullptr, {route},
                    true);
  }
  zone->seal();
  if (std::getenv("FIRE")) s4u::Engine::on_platform_created();

  static int payload = 0;
  for (int i = 0; i < n; ++i) {
    s4u::Actor::create("a" + std::to_string(i), hosts[i], [=] {
      s4u::Mailbox* out = s4u::Mailbox::by_name(std::to_string(i) + ">" + std::to_string((i + hop) % n));
      s4u::Mailbox* in = s4u::Mailbox::by_name(std::to_string((i + n - hop) % n) + ">" + std::to_string(i));
      for (int m = 0; m < messages; ++m) {
        const double start = s4u::Engine::get_clock();
        s4u::CommPtr comm;
        if (everyone || i == 0) comm = out->put_async(&payload, bytes);
        if (everyone || i == 1) in->get<int>();
        if (comm) comm->wait();
        if (i == 0) std::printf("msg %d: %.6f s\n", m, s4u::Engine::get_clock() - start);
      }
    });
  }
  engine.run();
  std::printf("end %.6f\n", s4u::Engine::get_clock());
}
