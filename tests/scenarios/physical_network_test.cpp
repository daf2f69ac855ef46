// The physical network (network.topology) and the logical graph a gossip protocol mixes over
// (algorithm.graph): learning depends only on the logical graph, time on the physical network.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

namespace {

json scenario(const json& topology, const json& algorithm) {
  json s = json::parse(R"({
    "name": "physical", "seed": 3,
    "network": {"link": {"bandwidth": "10Mbps", "latency": "100us"}, "header_bytes": 40},
    "compute": {"host_speed": "1Gf"},
    "data": {"dataset": "synthetic", "kind": "logistic", "samples": 240, "features": 20, "batch_size": 8},
    "model": {"kind": "logistic"},
    "eval": {"every": 5}
  })");
  s["network"]["topology"] = topology;
  s["algorithm"] = algorithm;
  return s;
}

const json ring6 = {{"kind", "ring"}, {"nodes", 6}};
const json switch6 = {{"kind", "switch"}, {"nodes", 6}};

}  // namespace

TEST_CASE("a logical ring over a switch learns exactly what a physical ring learns, in another time") {
  for (const char* kind : {"dpsgd", "choco"}) {
    json algorithm = {{"kind", kind}, {"steps", 20}, {"lr", 0.1}};
    if (std::string(kind) == "choco") {
      algorithm["consensus_step"] = 0.3;
      algorithm["compressor"] = {{"kind", "qsgd"}, {"levels", 4}};
    }
    const Run physical = run_scenario(scenario(ring6, algorithm), "ring");
    algorithm["graph"] = ring6;
    const Run logical = run_scenario(scenario(switch6, algorithm), "switch");
    INFO(kind << "\n" << physical.output << logical.output);
    REQUIRE(physical.exit_code == 0);
    REQUIRE(logical.exit_code == 0);
    REQUIRE(physical.trace.rows.size() == logical.trace.rows.size());
    for (const char* column : {"step", "bits_sent", "bytes_on_wire", "messages", "train_loss",
                               "test_accuracy", "consensus_distance"})
      for (std::size_t r = 0; r < physical.trace.rows.size(); ++r)
        CHECK(physical.trace.rows[r].at(column) == logical.trace.rows[r].at(column));
    // Over the switch every message crosses two links, and a node's two messages share its one NIC.
    const std::size_t last = physical.trace.rows.size() - 1;
    CHECK(logical.trace.number(last, "sim_time_s") > physical.trace.number(last, "sim_time_s"));
    CHECK(logical.summary["nodes"] == 6);
    CHECK(logical.summary["edges"] == 6);  // the six NIC links
  }
}

TEST_CASE("links.csv names the switch and counts each message on both links it crosses") {
  const json algorithm = {{"kind", "dpsgd"}, {"steps", 4}, {"lr", 0.1}, {"graph", ring6}};
  const Run run = run_scenario(scenario(switch6, algorithm), "switch-links");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const Trace links = parse_trace(read_text(run.directory / "links.csv"));
  REQUIRE(links.rows.size() == 12);
  double up = 0, down = 0;
  for (const auto& row : links.rows) {
    CHECK((row.at("from") == "switch") != (row.at("to") == "switch"));
    (row.at("to") == "switch" ? up : down) += std::stod(row.at("bytes"));
  }
  const double wire = run.summary["totals"]["bytes_on_wire"].get<double>();
  CHECK(up == wire);
  CHECK(down == wire);
}

TEST_CASE("a gossip protocol on a network of switches needs algorithm.graph, of the same nodes") {
  const json dpsgd = {{"kind", "dpsgd"}, {"steps", 4}, {"lr", 0.1}};
  Run run = run_scenario(scenario(switch6, dpsgd), "no-graph");
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("$.algorithm.graph") != std::string::npos);
  CHECK(run.output.find("\"graph\": {\"kind\": \"ring\", \"nodes\": 6}") != std::string::npos);

  json wrong = dpsgd;
  wrong["graph"] = {{"kind", "ring"}, {"nodes", 5}};
  run = run_scenario(scenario(switch6, wrong), "graph-size");
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("$.algorithm.graph") != std::string::npos);
  CHECK(run.output.find("5 nodes") != std::string::npos);

  json switched = dpsgd;
  switched["graph"] = switch6;
  run = run_scenario(scenario(ring6, switched), "graph-switch");
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("$.algorithm.graph.kind") != std::string::npos);

  // Data-parallel kinds mix over no graph: they run on a switch as they are, and do not take one.
  const json allreduce = {
      {"kind", "data_parallel"}, {"steps", 4}, {"lr", 0.1}, {"collective", "ring_allreduce"}};
  run = run_scenario(scenario(switch6, allreduce), "switch-allreduce");
  INFO(run.output);
  CHECK(run.exit_code == 0);
  json with_graph = allreduce;
  with_graph["graph"] = ring6;
  run = run_scenario(scenario(switch6, with_graph), "allreduce-graph");
  CHECK(run.exit_code == 2);
}

TEST_CASE(
    "a logical graph over a physical one of direct links: messages are routed over the physical links") {
  // A logical complete graph on a physical ring: every node talks to every other over up to 3 hops.
  const json algorithm = {
      {"kind", "dpsgd"}, {"steps", 6}, {"lr", 0.1}, {"graph", {{"kind", "complete"}, {"nodes", 6}}}};
  const Run over_ring = run_scenario(scenario(ring6, algorithm), "complete-on-ring");
  const Run direct = run_scenario(scenario({{"kind", "complete"}, {"nodes", 6}}, algorithm), "complete");
  INFO(over_ring.output << direct.output);
  REQUIRE(over_ring.exit_code == 0);
  REQUIRE(direct.exit_code == 0);
  const std::size_t last = direct.trace.rows.size() - 1;
  CHECK(over_ring.trace.rows[last].at("train_loss") == direct.trace.rows[last].at("train_loss"));
  CHECK(over_ring.trace.number(last, "sim_time_s") > direct.trace.number(last, "sim_time_s"));
}
