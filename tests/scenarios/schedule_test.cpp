// The schedule (observation/schedule.hpp, docs/schedule.md): `run --record` writes one that holds every
// node's operations and the trace; recording changes nothing of the run; the reader refuses a corrupt, a
// truncated and another version's file, naming it. Runs are child processes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "observation/schedule.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json scenario(const json& algorithm) {
  return {{"seed", 3},
          {"network", {{"topology", {{"kind", "ring"}, {"nodes", 5}}}, {"link", {{"bandwidth", "20Mbps"}}}}},
          {"data", {{"dataset", "fashion-mnist"}, {"samples", 500}, {"test_samples", 50}, {"batch_size", 8}}},
          {"model", {{"kind", "softmax"}}},
          {"algorithm", algorithm},
          {"eval", {{"every", 3}}}};
}

const json choco = {{"kind", "choco"},
                    {"steps", 7},
                    {"lr", 0.05},
                    {"consensus_step", 0.3},
                    {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}};

std::vector<std::uint8_t> bytes_of(const std::string& text) {
  return {text.begin(), text.end()};
}

}  // namespace

TEST_CASE("run --record writes a schedule of every node's operations and changes nothing else") {
  const Run plain = run_scenario(scenario(choco), "plain");
  const Run recorded = run_scenario(scenario(choco), "recorded", "--record");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(recorded.exit_code == 0);
  CHECK_FALSE(fs::exists(plain.directory / "schedule.bin"));
  CHECK(recorded.trace_text == plain.trace_text);
  CHECK(read_text(recorded.directory / "links.csv") == read_text(plain.directory / "links.csv"));

  const observation::Schedule schedule =
      observation::read_schedule((recorded.directory / "schedule.bin").string());
  CHECK(json::parse(schedule.resolved) == json::parse(read_text(recorded.directory / "resolved.json")));
  REQUIRE(schedule.rows.size() == recorded.trace.rows.size());
  for (std::size_t r = 0; r < schedule.rows.size(); ++r)
    CHECK(std::to_string(schedule.rows[r].step) == recorded.trace.rows[r].at("step"));
  REQUIRE(schedule.nodes.size() == 5);
  CHECK_FALSE(schedule.prices.empty());
  for (std::size_t i = 0; i < schedule.nodes.size(); ++i) {
    // What the node did: one observe marker per row, and every message the trace counts.
    observation::OperationCursor cursor(schedule.nodes[i]);
    std::size_t observes = 0, sends = 0, receives = 0, charges = 0;
    while (!cursor.done()) {
      const observation::ScheduledOperation& op = cursor.next();
      observes += op.kind == observation::Operation::observe;
      sends += op.kind == observation::Operation::send;
      receives += op.kind == observation::Operation::receive;
      charges += op.kind == observation::Operation::charge;
    }
    CHECK(observes == schedule.rows.size());
    CHECK(sends == 2 * 7);  // CHOCO: one message to each of 2 neighbours per step
    CHECK(receives == 2 * 7);
    CHECK(charges > 0);
  }
  std::uint64_t messages = 0;
  for (const auto& row : schedule.rows) messages = row.messages;
  CHECK(std::to_string(messages) == recorded.trace.rows.back().at("messages"));
}

TEST_CASE("a schedule reads back what was written, and nothing else") {
  observation::Schedule schedule;
  schedule.resolved = R"({"seed": 1})";
  schedule.base_dir = "/x";
  schedule.prices = {{protocols::Work::gradient, protocols::Unit::passes, "{}"},
                     {protocols::Work::encode, protocols::Unit::coordinates, R"({"kind":"qsgd"})"}};
  observation::TraceRow row;
  row.step = 0;
  row.train_loss = 0.5;
  row.test_accuracy = 0.25;
  schedule.rows = {row};
  row.step = 2;
  row.triggers = 3;
  row.train_loss = 0.125;
  schedule.rows.push_back(row);
  schedule.nodes.resize(2);
  for (std::size_t i = 0; i < 2; ++i) {
    observation::OperationLog& log = schedule.nodes[i];
    log.observe({0, 0, 0, 0});
    const protocols::Charge terms[] = {{0, 1.0}};
    log.charge(terms);
    log.send(1 - i, 1234567);
    log.receive(1 - i);
    log.plain(observation::Operation::wait_sends);
    log.plain(observation::Operation::now);
    log.observe({2, 1, 0.5, 7});
  }
  const std::vector<std::uint8_t> file = observation::encode_schedule(schedule);
  const observation::Schedule back = observation::decode_schedule(file, "s.bin");
  CHECK(back.resolved == schedule.resolved);
  CHECK(back.base_dir == schedule.base_dir);
  REQUIRE(back.rows.size() == 2);
  CHECK(back.rows[1].triggers == 3u);
  CHECK(back.rows[0].test_accuracy == 0.25);
  CHECK(back.nodes[1].bytes() == schedule.nodes[1].bytes());
  CHECK(back.operations() == 14);

  const auto refused = [&](std::vector<std::uint8_t> bytes, const std::string& message) {
    INFO(message);
    CHECK_THROWS_WITH(observation::decode_schedule(bytes, "s.bin"),
                      Catch::Contains("s.bin") && Catch::Contains(message));
  };
  std::vector<std::uint8_t> flipped = file;
  flipped[file.size() / 2] ^= 0x04;
  refused(flipped, "checksum mismatch");
  refused({file.begin(), file.end() - 3}, "truncated");
  std::vector<std::uint8_t> version = file;
  version[8] = 9;
  refused(version, "format version 9");
  // Versions 1 and 2 recorded a collective's chunk work as kernels of their own: a live run no longer charges
  // it so on an accelerator, so they are not re-timed (record the run again).
  for (std::uint8_t older : {1, 2}) {
    version[8] = older;
    refused(version, "format version " + std::to_string(older) + ", but this sgdsim reads version 3 only");
  }
  refused(bytes_of("SGDSCHEX and more bytes than a header needs"), "not an sgdsim schedule");
  refused({}, "not an sgdsim schedule");

  // Long runs compress by far more than 1000:1 (a 16-node ring all-reduce of 3000 steps: 59 MB into 14 kB).
  observation::Schedule repetitive = schedule;
  for (int k = 0; k < 3'000'000; ++k) repetitive.nodes[0].plain(observation::Operation::yield);
  const std::vector<std::uint8_t> small = observation::encode_schedule(repetitive);
  CHECK(small.size() < 3'000'000 / 1000);
  CHECK(observation::decode_schedule(small, "s.bin").operations() == 14 + 3'000'000);

  // A body whose operations name a node that is not a peer, or a row nobody observes, is refused too.
  observation::Schedule bad = schedule;
  bad.nodes[0].send(0, 1);  // to itself
  CHECK_THROWS_WITH(observation::decode_schedule(observation::encode_schedule(bad), "s.bin"),
                    Catch::Contains("names peer 0"));
  bad = schedule;
  bad.nodes[1] = observation::OperationLog{};
  CHECK_THROWS_WITH(observation::decode_schedule(observation::encode_schedule(bad), "s.bin"),
                    Catch::Contains("observes 0 of the 2 trace rows"));
}

TEST_CASE("run --record refuses a run whose behaviour depends on time, and writes nothing") {
  for (const auto& [algorithm, network] : std::vector<std::pair<json, json>>{
           {{{"kind", "adpsgd"}, {"steps", 4}, {"lr", 0.05}}, json::object()},
           {{{"kind", "dpsgd"}, {"steps", 4}, {"lr", 0.05}}, {{"receive_timeout", "1s"}}}}) {
    json s = scenario(algorithm);
    s["network"].update(network);
    const Run run = run_scenario(s, "record-refused", "--record");
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("cannot be recorded for re-timing") != std::string::npos);
    CHECK_FALSE(fs::exists(run.directory));
  }
}
