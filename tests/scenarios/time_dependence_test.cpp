// Every protocol kind (and every collective of data_parallel) either computes the same under any timing —
// identical learning columns under two very different timings — or declares the capability
// "time_dependent" (then `run --record` and `retime` refuse it). The declaration is what re-timing trusts, so
// it is checked against reality here. Every run is its own process.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/protocol.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using nlohmann::json;

namespace {

// A small valid algorithm object of each kind; a kind missing here fails the test, so a new protocol is
// checked as soon as it is registered.
const std::map<std::string, json>& algorithms() {
  static const std::map<std::string, json> table = {
      {"dpsgd", {{"kind", "dpsgd"}}},
      {"choco",
       {{"kind", "choco"}, {"consensus_step", 0.3}, {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}}},
      {"sparq",
       {{"kind", "sparq"},
        {"consensus_step", 0.2},
        {"local_steps", 2},
        {"trigger", {{"schedule", "constant"}, {"c0", 0.001}}},
        {"compressor", {{"kind", "topk"}, {"fraction", 0.1}}}}},
      {"adpsgd", {{"kind", "adpsgd"}}},
      {"dsgt", {{"kind", "dsgt"}}},
      {"diloco", {{"kind", "diloco"}, {"local_steps", 3}, {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}}},
      {"powersgd", {{"kind", "powersgd"}, {"rank", 2}}},
      {"beer",
       {{"kind", "beer"}, {"consensus_step", 0.3}, {"compressor", {{"kind", "topk"}, {"fraction", 0.1}}}}},
      {"data_parallel", {{"kind", "data_parallel"}, {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}}},
      // ε 1e-2: the blank pixels' weights have v = 0, and the 1-bit momentum moves them by η·scale/ε.
      {"onebit_adam", {{"kind", "onebit_adam"}, {"warmup_steps", 3}, {"epsilon", 1e-2}}},
  };
  return table;
}

json scenario(json algorithm, const json& link, const json& compute) {
  algorithm["steps"] = 10;
  algorithm["lr"] = 0.05;
  return {
      {"seed", 2},
      {"network", {{"topology", {{"kind", "random_regular"}, {"nodes", 6}, {"degree", 3}}}, {"link", link}}},
      {"compute", compute},
      {"data", {{"dataset", "fashion-mnist"}, {"samples", 600}, {"test_samples", 60}, {"batch_size", 8}}},
      {"model", {{"kind", "softmax"}}},
      {"algorithm", algorithm},
      {"eval", {{"every", 2}}}};
}

// The learning columns of a trace, row by row.
std::string learning(const Trace& trace) {
  std::string text;
  for (const auto& row : trace.rows)
    for (const char* column : {"step", "bits_sent", "messages", "triggers", "train_loss", "test_accuracy",
                               "consensus_distance", "compression_error"})
      text += (row.count(column) ? row.at(column) : "") + ",";
  return text;
}

void check(const std::string& label, const json& algorithm) {
  const json fast =
      scenario(algorithm, {{"bandwidth", "10Gbps"}, {"latency", "1us"}}, {{"host_speed", "100Gf"}});
  const json slow = scenario(algorithm, {{"bandwidth", "1Mbps"}, {"latency", "20ms"}},
                             {{"host_speed", "200Mf"},
                              {"speed_spread", {{"distribution", "lognormal"}, {"spread", 1.0}}},
                              {"stragglers", {{{"node", 1}, {"slowdown", 9}}}}});
  const Run a = run_scenario(fast, label + "-fast");
  const Run b = run_scenario(slow, label + "-slow");
  INFO(label << "\n" << a.output << b.output);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  const bool same = learning(a.trace) == learning(b.trace);
  const bool declared =
      protocols::time_dependent(json::parse(read_text(a.directory / "resolved.json"))["algorithm"]);
  INFO("identical learning columns: " << same << ", declares time_dependent: " << declared);
  CHECK((same || declared));
  // A kind that declares itself time-dependent should show it; if not, the declaration costs re-timing for
  // nothing (a warning, not an error: a short run may not show it).
  if (declared && same) WARN(label << " declares time_dependent but learned the same under both timings");
}

}  // namespace

TEST_CASE("every protocol kind computes the same under any timing, or declares itself time-dependent") {
  for (const std::string& kind : protocols::protocols().kind_names()) {
    INFO("protocol kind " << kind << " (add it to algorithms() in this test)");
    REQUIRE(algorithms().count(kind) == 1);
    if (kind == "data_parallel") continue;  // below, with each collective
    check(kind, algorithms().at(kind));
  }
}

TEST_CASE("every collective computes the same under any timing, or declares itself time-dependent") {
  for (const std::string& collective : protocols::collectives().kind_names()) {
    json algorithm = algorithms().at("data_parallel");
    algorithm["collective"] = collective;
    if (collective == "ring_allreduce" || collective == "recursive_doubling" || collective == "thc" ||
        collective == "hierarchical_allreduce")
      algorithm["compressor"] = {{"kind", "none"}};  // they add fp32 partial sums (thc: quantizes) on the way
    check("data_parallel-" + collective, algorithm);
  }
}
