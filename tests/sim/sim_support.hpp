#pragma once
// Helpers for simulation tests: each simulation runs in a forked child (one SimGrid engine per process).
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "algorithms/protocols/prices.hpp"
#include "sim/simulation.hpp"
#include "tests/support/child.hpp"
#include "topologies/graph.hpp"

namespace sgdsim::testing {

inline topology::Topology path_topology(std::size_t nodes, topology::Link link) {
  topology::EdgeList edges;
  for (std::size_t i = 0; i + 1 < nodes; ++i) edges.emplace_back(i, i + 1);
  return topology::build_topology("path", nodes, edges, link);
}

// Work charged directly by a test: `amount` flops of model math at the host's speed, or `amount` seconds at
// the host's nominal speed (both counted as gradient work), or `amount` floats of mixing arithmetic (not
// charged by these prices). test_prices() prices them.
inline protocols::Charge flops(double amount) {
  return {0, amount};
}
inline protocols::Charge seconds(double amount) {
  return {1, amount};
}
inline protocols::Charge mixing_floats(double amount) {
  return {2, amount};
}
inline std::shared_ptr<const protocols::PriceTable> test_prices() {
  auto prices = std::make_shared<protocols::PriceTable>();
  prices->add(
      {protocols::Work::gradient, protocols::Unit::passes, "flops", protocols::Basis::flops, 1, "test"});
  prices->add({protocols::Work::gradient, protocols::Unit::passes, "seconds", protocols::Basis::throughput, 1,
               "test"});
  prices->add({protocols::Work::mixing, protocols::Unit::floats, {}, protocols::Basis::bandwidth, 4, "test"});
  return prices;
}
// `options` with test_prices() when it has no prices.
inline sim::NetworkOptions priced(sim::NetworkOptions options) {
  if (!options.prices) options.prices = test_prices();
  return options;
}

inline std::string format(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

// Runs `simulate` in a child; returns the values the body stored in `out` (one slot per node) followed by the
// final simulated time. The child's error (if any) fails the test.
inline std::vector<double> timed_run(
    const topology::Topology& t, const sim::NetworkOptions& options,
    const std::function<void(std::size_t, protocols::Port&, std::vector<double>&)>& body) {
  const ChildResult result = in_child([&] {
    std::vector<double> out(t.nodes, -1.0);
    const double end = sim::simulate(t, priced(options),
                                     [&](std::size_t node, protocols::Port& port) { body(node, port, out); });
    std::string text;
    for (double x : out) text += format(x) + " ";
    return text + format(end);
  });
  INFO(result.error);
  REQUIRE(result.exit_code == 0);
  std::vector<double> values;
  std::size_t pos = 0;
  while (pos < result.output.size()) {
    std::size_t used = 0;
    values.push_back(std::stod(result.output.substr(pos), &used));
    pos += used;
    while (pos < result.output.size() && result.output[pos] == ' ') ++pos;
  }
  return values;
}

inline double relative_error(double actual, double expected) {
  return std::abs(actual - expected) / std::abs(expected);
}

}  // namespace sgdsim::testing
