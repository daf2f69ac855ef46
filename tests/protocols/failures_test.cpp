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

TEST_CASE(
    "late messages kept: a dead link loses only its own messages, and a straggler's arrive a round late") {
  // The 8-ring of the detector test without a detector: node 0 and 1 still wait out their timeouts on each
  // other and reach their healthy neighbours late, but those take the late messages at their next receive.
  auto totals = [](const std::string& late, const json& failures, const json& stragglers) {
    json s = failing_ring(json::parse(R"({"kind": "dpsgd", "steps": 20, "lr": 0.2})"));
    s["network"]["topology"]["nodes"] = 8;
    s["network"]["failures"] = failures;
    s["network"]["late_messages"] = late;
    s["compute"]["stragglers"] = stragglers;
    const Run run = run_scenario(s, "late-" + late);
    INFO(late << ": " << run.output);
    REQUIRE(run.exit_code == 0);
    return run.summary["totals"];
  };
  const json dead = json::parse(R"([{"edge": [0, 1], "down": [[0, 1000]]}])");
  const json dropped = totals("drop", dead, json::array()), kept = totals("keep", dead, json::array());
  CHECK(dropped["messages_lost"].get<double>() > 40);
  CHECK(kept["messages_lost"].get<double>() == 40);
  // No failure, one node so slow (a gradient of about 30 ms) that its neighbours' 5 ms timeouts expire every
  // round: dropped, its messages are lost; kept, none is.
  const json slow = json::parse(R"([{"node": 3, "slowdown": 100000}])");
  const json slow_dropped = totals("drop", json::array(), slow),
             slow_kept = totals("keep", json::array(), slow);
  CHECK(slow_dropped["messages_lost"].get<double>() > 0);
  CHECK(slow_kept["messages_lost"].get<double>() == 0);
  CHECK(slow_kept["receives_timed_out"].get<double>() > 0);
}

TEST_CASE("a late message kept while still in transit is the next receive's") {
  // A 3-ring whose 804-byte messages take 6.4 ms at 1 Mbps against a 2 ms timeout: every receive gives up in
  // the middle of a transfer. Dropped, all 60 messages of 10 D-PSGD steps are lost. Kept, each of the 6
  // channels times out once, at its first receive; every later receive takes the previous round's message,
  // which its sender's wait for its sends has seen delivered by then.
  auto totals = [](const std::string& late) {
    json s = failing_ring(json::parse(R"({"kind": "dpsgd", "steps": 10, "lr": 0.2})"));
    s["network"]["topology"]["nodes"] = 3;
    s["network"]["link"] = {{"bandwidth", "1Mbps"}, {"latency", "100us"}};
    s["network"]["receive_timeout"] = "2ms";
    s["network"]["late_messages"] = late;
    s["data"]["features"] = 200;
    const Run run = run_scenario(s, "transit-" + late);
    INFO(late << ": " << run.output);
    REQUIRE(run.exit_code == 0);
    return run.summary["totals"];
  };
  const json dropped = totals("drop"), kept = totals("keep");
  CHECK(dropped["messages_lost"].get<double>() == 60);
  CHECK(kept["messages_lost"].get<double>() == 0);
  CHECK(kept["receives_timed_out"].get<double>() == 6);
}

TEST_CASE("late messages are kept only for protocols that send one message per channel and round") {
  json s = failing_ring(json::parse(R"({"kind": "adpsgd", "steps": 5, "lr": 0.2})"));
  s["network"]["late_messages"] = "keep";
  const Run run = run_scenario(s, "late-adpsgd");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("$.algorithm.kind") && Catch::Contains("late_messages") &&
                             Catch::Contains("\"dpsgd\""));
}
