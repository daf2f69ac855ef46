// What the emulator takes from a schedule (emulation/replay.hpp): each node's operations replayed on a port
// in order, its figures at the observe markers, and what every receiver must read from every sender (sizes
// and silences, in order) — from a schedule written and read back through its file format. No namespaces.
#include <catch2/catch.hpp>

#include <map>

#include "emulation/replay.hpp"

using namespace sgdsim;
using namespace sgdsim::emulation;

namespace {

// Remembers what was done on it; its clock advances one second per operation.
class LogPort final : public protocols::Port {
 public:
  std::size_t self() const override { return 0; }
  void send(std::size_t to, protocols::Bytes bytes) override {
    log.push_back("send " + std::to_string(to) + " " + std::to_string(bytes.size()));
    counters_.payload_bytes += bytes.size();
    tick();
  }
  void send_silence(std::size_t to) override { log.push_back("silence " + std::to_string(to)); }
  protocols::Received receive_or_miss(std::size_t from) override {
    log.push_back("receive " + std::to_string(from));
    tick();
    return {};
  }
  std::vector<std::size_t> wait_sends() override {
    log.push_back("wait");
    return {};
  }
  void charge(std::span<const protocols::Charge> terms) override {
    log.push_back("charge " + std::to_string(terms.size()));
    counters_.work_s[0] += 0.5;
  }
  double now() override { return clock; }
  const protocols::Counters& counters() const override { return counters_; }
  std::vector<std::string> log;
  double clock = 0;

 private:
  void tick() { clock += 1; }
  protocols::Counters counters_;
};

observation::Schedule three_nodes() {
  observation::Schedule schedule;
  schedule.resolved = "{}";
  schedule.prices.push_back({protocols::Work::gradient, protocols::Unit::passes, "{}"});
  schedule.rows.resize(2);
  schedule.rows[0].step = 0;
  schedule.rows[1].step = 1;
  schedule.nodes.resize(3);
  const protocols::Charge gradient{0, 1.0};
  for (std::size_t node = 0; node < 3; ++node) {
    auto& log = schedule.nodes[node];
    log.observe({.step = 0});
    log.charge(std::span(&gradient, 1));
    log.send((node + 1) % 3, 1000 * (node + 1));
    if (node == 2)
      log.silence(1);
    else
      log.send((node + 2) % 3, 7);
    log.receive((node + 2) % 3);
    log.receive((node + 1) % 3);
    log.plain(observation::Operation::wait_sends);
    log.observe({.step = 1});
  }
  return schedule;
}

}  // namespace

TEST_CASE("a node's operations are replayed in order and its figures read at each marker") {
  const observation::Schedule schedule = three_nodes();
  LogPort port;
  const auto markers = replay_node(schedule.nodes[0], port);
  CHECK(port.log ==
        std::vector<std::string>{"charge 1", "send 1 1000", "send 2 7", "receive 2", "receive 1", "wait"});
  REQUIRE(markers.size() == 2);
  CHECK(markers[0].time == 0);
  CHECK(markers[1].time == 4);
  CHECK(markers[1].payload_bytes == 1007);
  CHECK(markers[1].work_s[0] == 0.5);

  LogPort without;
  replay_node(schedule.nodes[0], without, false);
  CHECK(without.log.front() == "send 1 1000");  // the charge is left out
}

TEST_CASE("every receiver knows the sizes it reads from each sender, through the file format") {
  const observation::Schedule schedule =
      observation::decode_schedule(observation::encode_schedule(three_nodes()), "test");
  const auto d = deliveries(schedule);
  CHECK(d[0][1] == Deliveries{1000});
  CHECK(d[0][2] == Deliveries{7});
  CHECK(d[1][2] == Deliveries{2000});
  CHECK(d[1][0] == Deliveries{7});
  CHECK(d[2][0] == Deliveries{3000});
  CHECK(d[2][1] == Deliveries{std::nullopt});  // a silence: nothing travels
  CHECK(d[0][0].empty());
  CHECK(talking_pairs(schedule) == std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {0, 2}, {1, 2}});
}
