// The observer sums over nodes in node order, whatever order the nodes reach an evaluation step in: a
// synchronous run's learning columns are then the same, to the last bit, under any timing (DESIGN.md,
// "Learning and timing are separable"). Each run is its own process.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

TEST_CASE("a synchronous run's learning columns do not depend on the order nodes reach a trace row") {
  // A random graph with uneven degrees and per-node speeds: nodes reach each evaluation step in an order
  // that changes with the timing settings.
  json scenario = {
      {"seed", 4},
      {"network",
       {{"topology", {{"kind", "random_regular"}, {"nodes", 9}, {"degree", 4}}},
        {"link", {{"bandwidth", "100Mbps"}, {"latency", "100us"}}}}},
      {"compute", {{"host_speed", "1Gf"}}},
      {"data", {{"dataset", "fashion-mnist"}, {"samples", 900}, {"test_samples", 100}, {"batch_size", 8}}},
      {"model", {{"kind", "softmax"}}},
      {"algorithm", {{"kind", "dpsgd"}, {"steps", 12}, {"lr", 0.05}}},
      {"eval", {{"every", 3}}}};
  const Run a = run_scenario(scenario, "order-a");
  scenario["network"]["link"] = {{"bandwidth", "3Mbps"}, {"latency", "2ms"}};
  scenario["compute"] = {{"host_speed", "5Gf"},
                         {"speed_spread", {{"distribution", "lognormal"}, {"spread", 1.0}}},
                         {"stragglers", {{{"node", 2}, {"slowdown", 7}}}}};
  const Run b = run_scenario(scenario, "order-b");
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  REQUIRE(a.trace.rows.size() == b.trace.rows.size());
  bool timing_differs = false;
  for (std::size_t r = 0; r < a.trace.rows.size(); ++r) {
    for (const char* column : {"step", "train_loss", "test_accuracy", "consensus_distance", "bits_sent"}) {
      INFO("row " << r << ", column " << column);
      CHECK(a.trace.rows[r].at(column) == b.trace.rows[r].at(column));
    }
    timing_differs = timing_differs || a.trace.rows[r].at("sim_time_s") != b.trace.rows[r].at("sim_time_s");
  }
  CHECK(timing_differs);
}
