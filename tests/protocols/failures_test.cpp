// Every protocol that survives failures, under a link failure and under a node failure: the run completes
// (no crash, no deadlock), the trace counts what was lost, public copies stay consistent (verify_copies), and
// the same scenario gives the same bytes.
#include <catch2/catch.hpp>

#include "tests/protocols/failing_ring.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

namespace {

json scenario(const json& algorithm, const json& network_extra, const json& compute_extra) {
  json s = failing_ring(algorithm);
  s["network"].update(network_extra);
  s["compute"].update(compute_extra);
  return s;
}

const json link_failure = {{"failures", link_down()}};
const json node_failure = {{"failures", node_down()}};

std::vector<json> algorithms() {
  return {
      json::parse(R"({"kind": "dpsgd", "steps": 60, "lr": 0.2})"),
      json::parse(R"({"kind": "choco", "steps": 60, "lr": 0.2, "consensus_step": 0.3, "verify_copies": true,
                          "compressor": {"kind": "topk", "fraction": 0.5}})"),
      json::parse(R"({"kind": "sparq", "steps": 60, "lr": 0.2, "consensus_step": 0.3, "verify_copies": true,
                          "local_steps": 2, "trigger": {"schedule": "constant", "c0": 0.01},
                          "compressor": {"kind": "qsgd", "levels": 4}})"),
      json::parse(R"({"kind": "data_parallel", "steps": 60, "lr": 0.2})"),
      json::parse(R"({"kind": "data_parallel", "steps": 60, "lr": 0.2,
                          "collective": {"kind": "parameter_server"}})")};
}

}  // namespace

TEST_CASE("each protocol survives a link failure and a node failure, deterministically") {
  for (const json& algorithm : algorithms()) {
    for (const auto& [label, network, compute] : {std::tuple{"link", link_failure, json::object()},
                                                  std::tuple{"node", json::object(), node_failure}}) {
      INFO(algorithm.dump() << " under a " << label << " failure");
      const Run first = run_scenario(scenario(algorithm, network, compute), "failures");
      INFO(first.output);
      REQUIRE(first.exit_code == 0);
      const auto& columns = first.trace.columns;
      REQUIRE(std::find(columns.begin(), columns.end(), "messages_lost") != columns.end());
      const std::size_t last = first.trace.rows.size() - 1;
      CHECK(first.trace.number(last, "step") == 60);
      CHECK(first.trace.number(last, "receives_timed_out") > 0);
      CHECK(first.summary["totals"]["receives_timed_out"].get<double>() > 0);
      const Run second = run_scenario(scenario(algorithm, network, compute), "failures");
      CHECK(second.trace_text == first.trace_text);
    }
  }
}

TEST_CASE("a node failure shows in nodes_down while it lasts") {
  json compute = {{"failures", json::parse(R"([{"node": 2, "down": [[0, 1000]]}])")}};
  const Run run = run_scenario(
      scenario(json::parse(R"({"kind": "dpsgd", "steps": 20, "lr": 0.2})"), json::object(), compute), "down");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  // Node 2 never computes: the run only ends once it is back at 1000 s.
  CHECK(run.trace.number(0, "nodes_down") == 1);
  CHECK(run.summary["totals"]["sim_time_s"].get<double>() > 1000);
}

TEST_CASE("collectives that add partial sums are refused when messages can be lost") {
  const Run run = run_scenario(scenario(json::parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.2,
                               "collective": {"kind": "ring_allreduce"}})"),
                                        link_failure, json::object()),
                               "refused");
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("collective") != std::string::npos);
}

TEST_CASE("failures without a receive timeout are refused") {
  json s = scenario(json::parse(R"({"kind": "dpsgd", "steps": 5, "lr": 0.2})"), link_failure, json::object());
  s["network"]["receive_timeout"] = 0;
  const Run run = run_scenario(s, "timeout");
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("receive_timeout") != std::string::npos);
}

TEST_CASE("a failure detector confines a dead link's losses to that link: no cascade to its neighbours") {
  // An 8-ring with link 0-1 down for the whole run: D-PSGD sends one message each way over it per step, so 20
  // steps lose 40 messages. Without detection, nodes 0 and 1 wait out their timeout on each other every
  // round, reach their healthy neighbours late, and those give up on them too.
  auto lost = [](const std::string& detector) {
    json s = failing_ring(json::parse(R"({"kind": "dpsgd", "steps": 20, "lr": 0.2})"));
    s["network"]["topology"]["nodes"] = 8;
    s["network"]["failures"] = json::parse(R"([{"edge": [0, 1], "down": [[0, 1000]]}])");
    s["network"]["failure_detector"] = detector;
    s["network"]["detector_misses"] = 2;
    const Run run = run_scenario(s, "detector-" + detector);
    INFO(detector << ": " << run.output);
    REQUIRE(run.exit_code == 0);
    return run.summary["totals"]["messages_lost"].get<double>();
  };
  const double none = lost("none"), oracle = lost("oracle"), misses = lost("misses");
  CHECK(oracle == 40);
  CHECK(none > 40);
  // Suspicion after two misses, one full wait in ten receives while suspected: losses in between.
  CHECK(misses >= 40);
  CHECK(misses < none);
}
