// Simulator speed: building a torus platform, and neighbour exchanges in messages per wall second. Every
// simulation runs in a forked child (one SimGrid engine per process); the child's peak RSS is reported too.
#include <sys/resource.h>

#include <chrono>
#include <string>

#include <benchmark/benchmark.h>

#include "sim/simulation.hpp"
#include "tests/support/child.hpp"
#include "topologies/generators.hpp"
#include "topologies/graph.hpp"

namespace {

using namespace sgdsim;

topology::Topology square_torus(std::size_t side) {
  return topology::build_topology("torus", side * side, topology::torus_edges({side, side}),
                                  {12.5e6, 500e-6});
}

struct ChildFigures {
  double seconds = 0;  // wall time inside the child: engine start, platform, run
  double rss_mb = 0;   // the child's peak resident set
};

// Runs `rounds` exchanges of `bytes` with every neighbour in a child.
ChildFigures exchange_in_child(const topology::Topology& torus, int rounds, std::size_t bytes) {
  const auto result = testing::in_child([&] {
    const auto start = std::chrono::steady_clock::now();
    sim::simulate(torus, {}, [&](std::size_t node, protocols::Port& port) {
      const auto& neighbors = torus.neighbors[node];
      for (int r = 0; r < rounds; ++r) {
        for (auto j : neighbors) port.send(j, protocols::Bytes(bytes));
        for (auto j : neighbors) port.receive(j);
        port.wait_sends();
      }
    });
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) +
           " " + std::to_string(static_cast<double>(usage.ru_maxrss) / 1024.0);
  });
  if (result.exit_code != 0) throw std::runtime_error("simulation failed: " + result.error);
  ChildFigures figures;
  std::size_t used = 0;
  figures.seconds = std::stod(result.output, &used);
  figures.rss_mb = std::stod(result.output.substr(used));
  return figures;
}

// Platform build (and an empty run) for a side x side torus.
void BM_TorusPlatform(benchmark::State& state) {
  const auto torus = square_torus(static_cast<std::size_t>(state.range(0)));
  ChildFigures figures;
  for (auto _ : state) figures = exchange_in_child(torus, 0, 0);
  state.counters["nodes"] = static_cast<double>(torus.nodes);
  state.counters["child_peak_rss_MB"] = figures.rss_mb;
}
BENCHMARK(BM_TorusPlatform)->Arg(16)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();

// Neighbour exchange: every node sends 4 KB to each of its 4 neighbours and receives, `rounds` times.
void BM_NeighbourExchange(benchmark::State& state) {
  const auto torus = square_torus(static_cast<std::size_t>(state.range(0)));
  const int rounds = static_cast<int>(state.range(1));
  double messages = 0, seconds = 0;
  ChildFigures figures;
  for (auto _ : state) {
    figures = exchange_in_child(torus, rounds, 4000);
    seconds += figures.seconds;
    messages += static_cast<double>(rounds) * 2.0 * static_cast<double>(torus.edges.size());
  }
  state.counters["nodes"] = static_cast<double>(torus.nodes);
  state.counters["messages_per_wall_s"] = messages / seconds;  // inside the child, engine start included
  state.counters["child_peak_rss_MB"] = figures.rss_mb;
}
BENCHMARK(BM_NeighbourExchange)
    ->Args({4, 200})
    ->Args({16, 50})
    ->Args({32, 20})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
