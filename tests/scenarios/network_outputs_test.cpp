// links.csv, summary.json's bottleneck and node time split, and `run --timeline`'s timeline.json: checked
// against each other and against the topology, by parsing the files as their readers do.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A 6-node ring learning a small synthetic problem; `algorithm` chooses who talks to whom.
json ring6(const json& algorithm) {
  json scenario = json::parse(R"({
    "name": "ring6", "seed": 2,
    "network": {"topology": {"kind": "ring", "nodes": 6}, "link": {"bandwidth": "10Mbps", "latency": "100us"},
                "header_bytes": 40},
    "compute": {"host_speed": "1Gf"},
    "data": {"dataset": "synthetic", "kind": "logistic", "samples": 240, "features": 20, "batch_size": 8},
    "model": {"kind": "logistic"},
    "eval": {"every": 5}
  })");
  scenario["algorithm"] = algorithm;
  return scenario;
}

// Hops between nodes a and b of a ring of n (routes are shortest paths).
std::uint64_t ring_hops(std::uint64_t a, std::uint64_t b, std::uint64_t n) {
  const std::uint64_t d = a > b ? a - b : b - a;
  return std::min(d, n - d);
}

// links.csv as trace.csv is read (its names hold no commas).
Trace links_of(const Run& run) {
  return parse_trace(read_text(run.directory / "links.csv"));
}

double cell(const Trace& table, std::size_t row, const std::string& column) {
  return table.number(row, column);
}

}  // namespace

TEST_CASE("links.csv: each link carries the wire bytes of every message routed over it") {
  // Data-parallel all-gather: every node sends to every other, over routes of 1 to 3 hops.
  const Run run =
      run_scenario(ring6({{"kind", "data_parallel"}, {"collective", "allgather"}, {"steps", 6}, {"lr", 0.1}}),
                   "links", "--timeline");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto links = links_of(run);
  CHECK(links.columns == std::vector<std::string>{"link", "from", "to", "bandwidth_Bps", "bytes", "messages",
                                                  "busy_s", "utilisation"});
  REQUIRE(links.rows.size() == 12);  // 6 edges, 2 directions each

  // Every message, with its wire bytes, from the timeline (which holds all of them here).
  const json timeline = json::parse(read_text(run.directory / "timeline.json"));
  REQUIRE_FALSE(timeline["otherData"]["cut"].get<bool>());
  std::uint64_t wire = 0, wire_times_hops = 0, messages_times_hops = 0;
  for (const json& event : timeline["traceEvents"]) {
    if (event["ph"] != "b") continue;
    const auto bytes = event["args"]["bytes"].get<std::uint64_t>();
    const auto hops =
        ring_hops(event["pid"].get<std::uint64_t>(), event["args"]["to"].get<std::uint64_t>(), 6);
    wire += bytes;
    wire_times_hops += bytes * hops;
    messages_times_hops += hops;
  }
  CHECK(wire == run.summary["totals"]["bytes_on_wire"].get<std::uint64_t>());
  std::uint64_t carried = 0, routed = 0;
  for (std::size_t r = 0; r < links.rows.size(); ++r) {
    carried += static_cast<std::uint64_t>(cell(links, r, "bytes"));
    routed += static_cast<std::uint64_t>(cell(links, r, "messages"));
    const double end = run.summary["totals"]["sim_time_s"].get<double>();
    CHECK(cell(links, r, "busy_s") > 0);
    CHECK(cell(links, r, "busy_s") <= end);
    CHECK(cell(links, r, "utilisation") ==
          Approx(cell(links, r, "bytes") / (cell(links, r, "bandwidth_Bps") * end)).epsilon(1e-12));
    CHECK(cell(links, r, "utilisation") <= 1.0);
  }
  CHECK(wire_times_hops > wire);  // some routes have several hops
  CHECK(carried == wire_times_hops);
  CHECK(routed == messages_times_hops);
  CHECK(cell(links, 0, "bandwidth_Bps") == 1.25e6);
}

TEST_CASE("summary.json names the busiest link and splits each node's time into computing and waiting") {
  // One slow link on a ring: it is the bottleneck.
  json scenario = ring6({{"kind", "dpsgd"}, {"steps", 10}, {"lr", 0.1}});
  scenario["network"]["overrides"] = json::parse(R"([{"edge": [2, 3], "bandwidth": "1Mbps"}])");
  const Run run = run_scenario(scenario, "bottleneck");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const json& bottleneck = run.summary["network"]["bottleneck"];
  CHECK(bottleneck["link"] == "link2-3");
  CHECK(std::set<std::string>{bottleneck["from"], bottleneck["to"]} ==
        std::set<std::string>{"node2", "node3"});
  CHECK(run.summary["network"]["link_directions"] == 12);
  const auto links = links_of(run);
  double busiest = 0;
  for (std::size_t r = 0; r < links.rows.size(); ++r)
    busiest = std::max(busiest, cell(links, r, "utilisation"));
  CHECK(bottleneck["utilisation"].get<double>() == busiest);

  const json& time = run.summary["node_time_s"];
  const json& parts = run.summary["simulated_time_s"];
  const double computing = parts["gradient"].get<double>() + parts["encode"].get<double>() +
                           parts["decode"].get<double>() + parts["mixing"].get<double>() +
                           parts["update"].get<double>();
  CHECK(time["computing"]["mean"].get<double>() == Approx(computing).epsilon(1e-9));
  CHECK(time["waiting_on_network"]["mean"].get<double>() ==
        Approx(parts["communication"].get<double>()).epsilon(1e-9));
  CHECK(time["waiting_on_network"]["max"].get<double>() >= time["waiting_on_network"]["mean"].get<double>());
  CHECK(time["computing"]["max"].get<double>() >= time["computing"]["mean"].get<double>());
  CHECK(time["communicating_while_computing"]["mean"] == 0.0);
  // The last node to finish: computing plus waiting is its whole time.
  CHECK(time["computing"]["max"].get<double>() + time["waiting_on_network"]["max"].get<double>() >=
        run.summary["final"]["sim_time_s"].get<double>() * (1 - 1e-9));
}

TEST_CASE("timeline.json is Trace Event Format: spans per node that add up to the trace's time by part") {
  const json scenario = ring6({{"kind", "choco"},
                               {"steps", 8},
                               {"lr", 0.1},
                               {"consensus_step", 0.3},
                               {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}});
  const Run run = run_scenario(scenario, "timeline", "--timeline");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string text = read_text(run.directory / "timeline.json");
  const json timeline = json::parse(text);  // a parser reads it whole
  REQUIRE(timeline.is_object());
  REQUIRE(timeline["traceEvents"].is_array());
  CHECK(timeline["displayTimeUnit"] == "ms");

  const double end_us = run.summary["totals"]["sim_time_s"].get<double>() * 1e6;
  std::map<std::string, double> work_us;                                        // kind -> summed duration
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> spans;  // (pid, tid) -> X spans
  std::map<std::uint64_t, int> open;                                            // async id -> b minus e
  std::set<std::string> process_names, categories;
  std::size_t counters = 0;
  for (const json& e : timeline["traceEvents"]) {
    INFO(e.dump());
    const std::string ph = e.at("ph");
    REQUIRE(e.at("pid").is_number_integer());
    if (ph == "M") {
      if (e["name"] == "process_name") process_names.insert(e["args"]["name"].get<std::string>());
      continue;
    }
    const double ts = e.at("ts").get<double>();
    CHECK(ts >= 0);
    CHECK(ts <= end_us * (1 + 1e-12));
    if (ph == "X") {
      const double dur = e.at("dur").get<double>();
      CHECK(dur >= 0);
      categories.insert(e.at("cat").get<std::string>());
      spans[{e["pid"].get<int>(), e.at("tid").get<int>()}].push_back({ts, ts + dur});
      if (e["cat"] == "work") work_us[e["name"].get<std::string>()] += dur;
      CHECK(e["args"]["step"].get<int>() >= 1);
      CHECK(e["args"]["step"].get<int>() <= 8);
    } else if (ph == "b" || ph == "e") {
      CHECK(e.at("cat") == "send");
      open[e.at("id").get<std::uint64_t>()] += ph == "b" ? 1 : -1;
    } else if (ph == "C") {
      ++counters;
      const double u = e.at("args").at("utilisation").get<double>();
      CHECK(u >= 0);
      CHECK(u <= 1 + 1e-9);
    } else {
      FAIL("unexpected phase " << ph);
    }
  }
  CHECK(process_names.count("node 0") == 1);
  CHECK(process_names.count("node 5") == 1);
  CHECK(process_names.count("links") == 1);
  CHECK(categories == std::set<std::string>{"work", "receive", "wait"});
  CHECK(counters > 0);
  for (const auto& [id, balance] : open) CHECK(balance == 0);
  // A node does one thing at a time: its spans follow each other.
  for (auto& [track, list] : spans) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) CHECK(list[i].first >= list[i - 1].second - 1e-6);
  }
  // The work spans are the trace's simulated time by part (mean over the 6 nodes).
  const json& parts = run.summary["simulated_time_s"];
  for (const char* kind : {"gradient", "encode", "decode", "mixing", "update"}) {
    INFO(kind);
    CHECK(work_us[kind] / 6 / 1e6 == Approx(parts[kind].get<double>()).epsilon(1e-9));
  }

  // Simulated times only: a second run writes the same bytes.
  const Run again = run_scenario(scenario, "timeline-again", "--timeline");
  REQUIRE(again.exit_code == 0);
  CHECK(read_text(again.directory / "timeline.json") == text);
}

TEST_CASE("a timeline keeps to its step window and says where its size limit cut it") {
  const json scenario = ring6({{"kind", "dpsgd"}, {"steps", 10}, {"lr", 0.1}});
  const Run window = run_scenario(scenario, "window", "--timeline --timeline-steps 3:4");
  INFO(window.output);
  REQUIRE(window.exit_code == 0);
  const json timeline = json::parse(read_text(window.directory / "timeline.json"));
  std::set<int> steps;
  for (const json& e : timeline["traceEvents"])
    if (e["ph"] == "X") steps.insert(e["args"]["step"].get<int>());
  CHECK(steps == std::set<int>{3, 4});
  CHECK(timeline["otherData"]["first_step"] == 3);
  CHECK(timeline["otherData"]["last_step"] == 4);

  const Run cut = run_scenario(scenario, "cut", "--timeline --timeline-limit 25");
  INFO(cut.output);
  REQUIRE(cut.exit_code == 0);
  CHECK_THAT(cut.output, Catch::Contains("the timeline was cut at its limit of 25 spans"));
  const json small = json::parse(read_text(cut.directory / "timeline.json"));
  CHECK(small["otherData"]["cut"] == true);
  CHECK(small["otherData"]["spans"] == 25);
  CHECK_THAT(small["otherData"]["cut_note"].get<std::string>(), Catch::Contains("later spans are left out"));

  // Without --timeline there is no timeline; a bad window is refused before anything runs.
  const Run plain = run_scenario(scenario, "plain");
  REQUIRE(plain.exit_code == 0);
  CHECK_FALSE(fs::exists(plain.directory / "timeline.json"));
  CHECK(fs::exists(plain.directory / "links.csv"));
  const Run bad = run_scenario(scenario, "bad-window", "--timeline-steps 5:2");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--timeline-steps 5:2"));
  CHECK_FALSE(fs::exists(bad.directory));
}
