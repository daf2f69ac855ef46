// AD-PSGD: pairwise averages preserve the network mean, two nodes that always choose each other do not
// deadlock, it converges like D-PSGD on a homogeneous ring, a 10x straggler barely slows it down, a gradient
// and an exchange of the same length overlap (a step takes one, not two, and the summary counts the gradient
// as hidden communication), it survives failures (and keeps the mean when replies are lost), and its traces
// are deterministic. Every simulation runs in a forked child (one SimGrid engine per process).
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/protocols/requests.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "sim/simulation.hpp"
#include "tests/protocols/failing_ring.hpp"
#include "tests/protocols/logistic_ring.hpp"
#include "tests/support/child.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

json scenario(std::size_t nodes, const json& algorithm) {
  json s = testing::logistic_ring(nodes, 1);
  if (nodes == 2) s["network"]["topology"] = {{"kind", "complete"}, {"nodes", 2}};
  s["network"]["link"] = {{"bandwidth", "1Gbps"}, {"latency", "50us"}};
  // Slow hosts: the gradient (about a millisecond) dominates the tiny messages, as in the paper's setting.
  s["compute"] = {{"host_speed", "2Mf"}};
  s["eval"]["every"] = 1;
  s["algorithm"] = algorithm;
  return s;
}

// One evaluation of the snapshot every node handed to the probe for one step.
struct Row {
  std::int64_t step = 0;
  double time = 0, loss = 0, spread = 0;
  double timed_out = 0;  // receives that gave up, all nodes together (failures)
  std::vector<double> mean;
};

class Recorder : public protocols::Probe {
 public:
  Recorder(const scenarios::Scenario& s, std::size_t nodes) : s_(s), nodes_(nodes) {}
  bool wants(std::int64_t) const override { return true; }
  void observe(std::int64_t step, std::size_t, std::span<const float> model,
               const protocols::NodeStats& stats) override {
    models_.emplace_back(model.begin(), model.end());
    time_ = std::max(time_, stats.time);
    timed_out_ += static_cast<double>(stats.timed_out);
    if (models_.size() < nodes_) return;
    Row row;
    row.step = step;
    row.time = time_;
    row.timed_out = timed_out_;
    row.mean.assign(model.size(), 0.0);
    for (const auto& x : models_)
      for (std::size_t c = 0; c < x.size(); ++c) row.mean[c] += x[c] / static_cast<double>(nodes_);
    for (const auto& x : models_)
      for (std::size_t c = 0; c < x.size(); ++c) row.spread += (x[c] - row.mean[c]) * (x[c] - row.mean[c]);
    const std::vector<float> mean(row.mean.begin(), row.mean.end());
    row.loss = s_.model().evaluate(mean, s_.problem().train).loss;
    rows.push_back(std::move(row));
    models_.clear();
    time_ = 0;
    timed_out_ = 0;
  }
  std::vector<Row> rows;

 private:
  const scenarios::Scenario& s_;
  std::size_t nodes_;
  std::vector<std::vector<float>> models_;
  double time_ = 0, timed_out_ = 0;
};

// A port whose host is `factor` times slower: every charge of work takes `factor` times as long. Stands in
// for a per-node host speed (a straggler) in this test. It sends requests or takes them as the port it wraps.
class SlowPort : public protocols::Port, public protocols::Requester, public protocols::RequestInbox {
 public:
  SlowPort(protocols::Port& inner, double factor) : inner_(inner), factor_(factor) {}
  std::size_t self() const override { return inner_.self(); }
  void send(std::size_t to, protocols::Bytes bytes) override { inner_.send(to, std::move(bytes)); }
  void send_silence(std::size_t to) override { inner_.send_silence(to); }
  protocols::Received receive_or_miss(std::size_t from) override { return inner_.receive_or_miss(from); }
  std::vector<std::size_t> wait_sends() override { return inner_.wait_sends(); }
  void charge(std::span<const protocols::Charge> terms) override {
    std::vector<protocols::Charge> slower(terms.begin(), terms.end());
    for (protocols::Charge& term : slower) term.amount *= factor_;
    inner_.charge(slower);
  }
  void start_background(std::span<const protocols::Charge> pieces) override {
    std::vector<protocols::Charge> slower(pieces.begin(), pieces.end());
    for (protocols::Charge& piece : slower) piece.amount *= factor_;
    inner_.start_background(slower);
  }
  void await_background(std::size_t count) override { inner_.await_background(count); }
  double now() override { return inner_.now(); }
  const protocols::Counters& counters() const override { return inner_.counters(); }
  void request(std::size_t to, protocols::Bytes bytes) override {
    protocols::requester(inner_).request(to, std::move(bytes));
  }
  std::pair<std::size_t, protocols::Bytes> receive_request() override {
    return protocols::request_inbox(inner_).receive_request();
  }

 private:
  protocols::Port& inner_;
  double factor_;
};

// Simulates `document` in a child with node 0 `slowdown` times slower; returns the evaluated snapshots.
std::vector<Row> simulate(const json& document, std::size_t nodes, double slowdown = 1) {
  const testing::ChildResult result = testing::in_child([&] {
    scenarios::Scenario s(document, "test", ".");
    Recorder recorder(s, nodes);
    s.environment().probe = &recorder;
    auto slowed = [&](std::size_t node, protocols::Port& port, bool server) {
      SlowPort slow(port, node == 0 ? slowdown : 1.0);
      if (server)
        s.protocol().serve(node, slow);
      else
        s.protocol().run(node, slow);
    };
    sim::NodeBody server;
    if (s.protocol().serves())
      server = [&](std::size_t node, protocols::Port& port) { slowed(node, port, true); };
    sim::simulate(
        s.topology(), s.network(),
        [&](std::size_t node, protocols::Port& port) { slowed(node, port, false); }, server);
    std::ostringstream out;
    out.precision(17);
    for (const Row& row : recorder.rows) {
      out << row.step << ' ' << row.time << ' ' << row.loss << ' ' << row.spread << ' ' << row.timed_out
          << ' ' << row.mean.size();
      for (double m : row.mean) out << ' ' << m;
      out << '\n';
    }
    return out.str();
  });
  INFO(result.error);
  REQUIRE(result.exit_code == 0);
  std::vector<Row> rows;
  std::istringstream in(result.output);
  Row row;
  std::size_t d = 0;
  while (in >> row.step >> row.time >> row.loss >> row.spread >> row.timed_out >> d) {
    row.mean.assign(d, 0.0);
    for (double& m : row.mean) in >> m;
    rows.push_back(row);
  }
  return rows;
}

json adpsgd(std::int64_t steps, const json& lr) {
  return {{"kind", "adpsgd"}, {"steps", steps}, {"lr", lr}};
}

// The first simulated time at which the loss of the average model is at most `target` (infinity if never).
double time_to(const std::vector<Row>& rows, double target) {
  for (const Row& row : rows)
    if (row.loss <= target) return row.time;
  return INFINITY;
}

// Gradients move the mean for 10 steps; then the rate falls by 1e-30, below the resolution of floats of these
// magnitudes, and only the averages keep moving the models.
json mean_test(std::size_t nodes) {
  const json lr = {{"schedule", "step"}, {"value", 0.5}, {"factor", 1e-30}, {"every", 10}};
  return scenario(nodes, adpsgd(60, lr));
}

// The mean of mean_test()'s run stays where the gradients left it, while averaging shrinks the spread.
void check_mean_preserved(const std::vector<Row>& rows) {
  REQUIRE(rows.size() == 61);
  // From step 11 on, every update counted towards steps 0..9 has completed (at most one per node is in
  // flight).
  const Row& first = rows[11];
  REQUIRE(first.step == 11);
  double scale = 0;
  for (double m : first.mean) scale = std::max(scale, std::abs(m));
  REQUIRE(scale > 0.01);
  for (std::size_t k = 11; k < rows.size(); ++k) {
    for (std::size_t c = 0; c < first.mean.size(); ++c) {
      INFO("step " << rows[k].step << " coordinate " << c);
      // Each exchange moves the same float Δ from one node to the other; only the float additions round.
      REQUIRE(std::abs(rows[k].mean[c] - first.mean[c]) <= 1e-6 * scale);
    }
  }
  // ...while the models did move: averaging shrank their spread.
  double spread = 0;
  for (std::size_t k = 0; k <= 10; ++k) spread = std::max(spread, rows[k].spread);
  REQUIRE(spread > 0);
  CHECK(rows.back().spread < 1e-3 * spread);
}

}  // namespace

TEST_CASE("AD-PSGD's pairwise averages preserve the network mean, also when two nodes choose each other") {
  const std::size_t nodes = GENERATE(2, 6);
  check_mean_preserved(simulate(mean_test(nodes), nodes));
}

TEST_CASE("AD-PSGD preserves the network mean when requests and replies are lost") {
  // While the averages run on their own (steps 11 on), link 0-1 fails, and link 2-3 runs at 1/1000 of its
  // bandwidth: its replies take longer than the receive timeout, so requesters give up on them while they
  // are in flight, and requests deferred behind them are answered after their requesters gave up.
  json s = mean_test(6);
  s["network"]["receive_timeout"] = "300us";
  s["network"]["failures"] = json::parse(R"([{"edge": [0, 1], "down": [[0.0055, 0.008]]}])");
  s["network"]["dynamics"] = json::parse(
      R"([{"edge": [2, 3], "bandwidth": {"kind": "steps", "steps": [[0.005, 0.001], [0.009, 1]]}}])");
  const std::vector<Row> rows = simulate(s, 6);
  REQUIRE(rows.size() == 61);
  // Replies were given up on while only the averages moved the models.
  CHECK(rows.back().timed_out > rows[11].timed_out);
  check_mean_preserved(rows);
}

TEST_CASE("AD-PSGD converges like D-PSGD on a homogeneous ring") {
  const std::size_t nodes = 8;
  const std::vector<Row> a = simulate(scenario(nodes, adpsgd(200, 0.2)), nodes);
  const std::vector<Row> d =
      simulate(scenario(nodes, {{"kind", "dpsgd"}, {"steps", 200}, {"lr", 0.2}}), nodes);
  REQUIRE(a.size() == 201);
  REQUIRE(d.size() == 201);
  const double start = d.front().loss;
  REQUIRE(a.front().loss == start);
  INFO("AD-PSGD " << a.back().loss << ", D-PSGD " << d.back().loss << ", initial " << start);
  // The same number of samples takes both to the same loss, up to a few percent of the way travelled.
  CHECK(d.back().loss < 0.8 * start);
  CHECK(std::abs(a.back().loss - d.back().loss) < 0.05 * (start - d.back().loss));
}

TEST_CASE("With one 10x straggler AD-PSGD reaches a target loss much sooner than D-PSGD") {
  const std::size_t nodes = 8;
  const std::vector<Row> a = simulate(scenario(nodes, adpsgd(200, 0.2)), nodes, 10);
  const std::vector<Row> d =
      simulate(scenario(nodes, {{"kind", "dpsgd"}, {"steps", 200}, {"lr", 0.2}}), nodes, 10);
  const double start = d.front().loss;
  const double reached = std::max(a.back().loss, d.back().loss);
  const double target = reached + 0.1 * (start - reached);
  const double ta = time_to(a, target), td = time_to(d, target);
  INFO("target " << target << ": AD-PSGD at " << ta << " s, D-PSGD at " << td << " s");
  REQUIRE(std::isfinite(ta));
  REQUIRE(std::isfinite(td));
  // D-PSGD's every step waits for the straggler; AD-PSGD's other nodes go on.
  CHECK(ta < td / 3);
}

TEST_CASE(
    "AD-PSGD computes its gradient while it averages: a step is nearer the longer of the two than their "
    "sum") {
  // Only the gradient costs compute time; on an infinitely fast network a step is one gradient, G.
  const std::size_t nodes = 6;
  const int steps = 40;
  json s = scenario(nodes, adpsgd(steps, 0.2));
  s["compute"]["charge"] = {{"encode", false}, {"decode", false}, {"mixing", false}, {"update", false}};
  s["eval"]["every"] = steps;
  s["network"]["link"] = {{"bandwidth", "1000Tbps"}, {"latency", "0us"}};
  const testing::Run fast = testing::run_scenario(s, "adpsgd-compute-only");
  INFO(fast.output);
  REQUIRE(fast.exit_code == 0);
  const double G = fast.trace.number(1, "sim_time_s") / steps;
  // A latency of G/2 per message: an exchange (request, then reply) takes about G, as long as the gradient.
  s["network"]["link"]["latency"] = std::to_string(G / 2 * 1e6) + "us";
  const testing::Run balanced = testing::run_scenario(s, "adpsgd-balanced");
  REQUIRE(balanced.exit_code == 0);
  const double step = balanced.trace.number(1, "sim_time_s") / steps;
  INFO("gradient " << G << " s, exchange about " << G << " s, step " << step << " s");
  CHECK(step >= G * (1 - 1e-9));
  // One after the other they would take 2 G; concurrently the step is nearer G than 2 G. It is not G: a
  // request that meets a node busy with its own exchange waits for it (deferred) or is refused (measured:
  // 1.43 G).
  CHECK(step < 1.5 * G);

  // The summary's split: with the exchange as long as the gradient, most of the gradient runs while the node
  // waits on the network (hidden communication); on the infinitely fast network, none does.
  const json& time = balanced.summary["node_time_s"];
  const double computing = time["computing"]["mean"].get<double>();
  const double hidden = time["communicating_while_computing"]["mean"].get<double>();
  INFO("computing " << computing << " s, hidden " << hidden << " s");
  CHECK(hidden > 0.5 * computing);
  CHECK(time["communicating_while_computing"]["max"].get<double>() <= time["computing"]["max"].get<double>());
  const json& fast_time = fast.summary["node_time_s"];
  CHECK(fast_time["communicating_while_computing"]["mean"].get<double>() <
        1e-6 * fast_time["computing"]["mean"].get<double>());
}

TEST_CASE("AD-PSGD traces are byte-identical across runs, with a compressor") {
  json s = scenario(6, adpsgd(30, 0.2));
  s["algorithm"]["compressor"] = {{"kind", "qsgd"}, {"levels", 4}};
  s["eval"]["every"] = 5;
  const testing::Run first = testing::run_scenario(s, "adpsgd-a");
  const testing::Run second = testing::run_scenario(s, "adpsgd-b");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  REQUIRE(first.trace.rows.size() == 7);
  CHECK(first.trace_text == second.trace_text);
  CHECK(first.trace.number(6, "bits_sent") > 0);
}

TEST_CASE("AD-PSGD survives a link failure and a node failure, deterministically") {
  json s = testing::failing_ring({{"kind", "adpsgd"}, {"steps", 60}, {"lr", 0.2}});
  const std::string label = GENERATE(std::string("link"), std::string("node"));
  if (label == "link")
    s["network"]["failures"] = testing::link_down();
  else
    s["compute"]["failures"] = testing::node_down();
  INFO("a " << label << " failure");
  const testing::Run first = testing::run_scenario(s, "adpsgd-" + label);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const std::size_t last = first.trace.rows.size() - 1;
  CHECK(first.trace.number(last, "step") == 60);
  // Requests over the failed link (or to the failed node) reached nobody.
  CHECK(first.trace.number(last, "messages_lost") > 0);
  CHECK(first.summary["totals"]["messages_lost"].get<double>() > 0);
  if (label == "node") CHECK(first.trace.number(1, "nodes_down") == 1);
  // The failed node's updates wait for it: the run outlasts the failure.
  if (label == "node") CHECK(first.summary["totals"]["sim_time_s"].get<double>() > 0.02);
  CHECK(first.trace.number(last, "train_loss") < first.trace.number(0, "train_loss"));
  const testing::Run second = testing::run_scenario(s, "adpsgd-" + label);
  CHECK(second.trace_text == first.trace_text);
}
