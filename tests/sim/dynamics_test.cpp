// Dynamics and failures on two nodes, against hand-computed times (ideal model: latency + bytes / bandwidth).
#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "tests/sim/sim_support.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;

namespace {

constexpr double bandwidth = 1e6;  // bytes/s
constexpr double latency = 1e-3;   // s

sim::Profile steps(std::vector<std::pair<double, double>> points, double period = 0) {
  sim::Profile p;
  p.steps = std::move(points);
  p.period = period;
  return p;
}

}  // namespace

TEST_CASE("profile events: steps repeat with their period and several profiles multiply") {
  const auto events = sim::profile_until({steps({{1, 0.5}, {2, 1}}, 4), steps({{3, 0.1}})}, 10);
  auto value_at = [&](double t) {
    double v = 1;
    for (const auto& [time, value] : events)
      if (time <= t) v = value;
    return v;
  };
  CHECK(value_at(0.5) == 1);
  CHECK(value_at(1.5) == 0.5);
  CHECK(value_at(2.5) == 1);
  CHECK(value_at(3.5) == Approx(0.1));
  CHECK(value_at(5.5) == Approx(0.05));  // second period: 0.5 from 5 to 6
  CHECK(value_at(6.5) == Approx(0.1));
}

TEST_CASE("random profiles are reproducible from their seed and differ between streams") {
  sim::Profile p;
  p.random = true;
  p.mean_normal = 2;
  p.mean_episode = 0.5;
  p.episode_value = 0.1;
  p.stream_seed = 7;
  const auto a = sim::profile_until({p}, 100);
  CHECK(a == sim::profile_until({p}, 100));
  CHECK(a.size() > 20);
  p.stream_index = 1;
  CHECK(a != sim::profile_until({p}, 100));
  p.fixed_episode = true;
  const auto fixed = sim::profile_until({p}, 100);
  for (std::size_t k = 1; k + 1 < fixed.size(); ++k)
    if (fixed[k].second == 0.1) CHECK(fixed[k + 1].first - fixed[k].first == Approx(0.5));
}

TEST_CASE("a bandwidth step halves the rate from its time on: one message, hand-computed") {
  // 1 MB sent at 0 over 1 MB/s: until t = 0.5 + latency... Bandwidth drops to half at t = 0.5 s: half the
  // bytes go at full rate (0.5 s), the rest at half rate (1 s), plus the latency: 1.5 s + 1 ms.
  auto path = path_topology(2, {bandwidth, latency});
  sim::NetworkOptions options;
  options.dynamics.link_bandwidth = {{steps({{0.5, 0.5}})}};
  auto out =
      timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
        if (node == 0) port.send(1, protocols::Bytes(1000000, 1));
        if (node == 1) {
          REQUIRE(port.receive(0));
          times[1] = port.now();
        }
      });
  INFO("measured " << out[1]);
  // SimGrid charges the latency first (no bytes move during it): 1 ms, then 0.499 s at full rate moves
  // 499000 bytes, the remaining 501000 at 0.5 MB/s take 1.002 s.
  CHECK(out[1] == Approx(0.001 + 0.499 + 1.002).epsilon(1e-9));
}

TEST_CASE("a latency profile sets the latency of messages that start after it") {
  auto path = path_topology(2, {bandwidth, latency});
  sim::NetworkOptions options;
  options.dynamics.link_latency = {{steps({{1, 100}})}};  // 0.1 s from t = 1
  auto out =
      timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
        if (node == 0) {
          port.send(1, protocols::Bytes(1000, 1));
          port.wait_sends();
          port.charge(seconds(2.0));  // until t = 2 + 1 ms + 1 ms
          port.send(1, protocols::Bytes(1000, 1));
        }
        if (node == 1) {
          REQUIRE(port.receive(0));
          times[0] = port.now();
          REQUIRE(port.receive(0));
          times[1] = port.now();
        }
      });
  CHECK(out[0] == Approx(0.001 + 0.001).epsilon(1e-9));
  CHECK(out[1] == Approx(out[0] + 2.0 + 0.1 + 0.001).epsilon(1e-9));
}

TEST_CASE("a straggler computes at its speed times its profile") {
  auto path = path_topology(2, {bandwidth, latency});
  sim::NetworkOptions options;
  options.host_speed = 1e9;
  options.dynamics.node_speed = {0.25, 1};  // node 0 is 4x slower
  options.dynamics.node_speed_profile = {{steps({{1, 0.5}, {2, 1}})}, {}};
  auto out =
      timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
        port.charge(flops(1e9));  // 1 s at nominal speed
        times[node] = port.now();
      });
  // Node 0: 0.25 Gf/s for 1 s (0.25 Gf), 0.125 Gf/s for 1 s (0.125 Gf), then 0.625 Gf at 0.25 Gf/s: 2.5 s.
  CHECK(out[0] == Approx(4.5).epsilon(1e-9));
  CHECK(out[1] == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("a link failure loses the message, the receive gives up, and later messages pass") {
  auto path = path_topology(2, {bandwidth, latency});
  sim::NetworkOptions options;
  options.dynamics.link_state = {{steps({{0.5, 0}, {1.5, 1}})}};
  options.dynamics.receive_timeout = 2;
  auto out =
      timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
        if (node == 0) {
          port.charge(seconds(1.0));  // sends at t = 1, the link is down
          port.send(1, protocols::Bytes(1000, 1));
          times[0] = static_cast<double>(port.wait_sends().size());
          port.charge(seconds(1.0));  // t = 2: up again, within the receiver's deadline (3)
          port.send(1, protocols::Bytes(1000, 2));
          port.wait_sends();
        }
        if (node == 1) {
          const protocols::Received first = port.receive_or_miss(0);
          const double gave_up = first.status == protocols::Received::Status::missing ? port.now() : -1;
          const protocols::Received second = port.receive_or_miss(0);
          // (No REQUIRE inside a node: a Catch failure is not an exception the simulation may see.)
          times[1] =
              second.status == protocols::Received::Status::message && second.bytes[0] == 2 ? gave_up : -2;
        }
      });
  CHECK(out[0] == 1);  // one undelivered send
  // The first receive started at 0; the message announced at 1 failed on the down link, which nothing tells
  // the receiver: it gives up at its deadline, 0 + 2.
  CHECK(out[1] == Approx(2.0).epsilon(1e-9));
}

TEST_CASE("a profile whose value stops changing ends instead of searching for a change for ever") {
  // Periodic steps whose values repeat: one change at 0, then none.
  sim::ProfileEvents repeated({steps({{0, 0.5}, {1, 0.5}}, 2)});
  CHECK(repeated.next() == std::make_pair(0.0, 0.5));
  CHECK(!repeated.next());
  // A trace of one value with a period.
  sim::ProfileEvents constant({steps({{0, 1}}, 10)});
  CHECK(constant.next() == std::make_pair(0.0, 1.0));
  CHECK(!constant.next());
  // Random episodes of factor 1 change nothing.
  sim::Profile random;
  random.random = true;
  random.mean_normal = 1;
  random.mean_episode = 0.1;
  random.episode_value = 1;
  CHECK(!sim::ProfileEvents({random}).next());
  // Two periodic profiles that cancel at every change.
  sim::ProfileEvents cancelling({steps({{0, 2}, {1, 0.5}}, 2), steps({{0, 0.5}, {1, 2}}, 2)});
  CHECK(cancelling.next() == std::make_pair(0.0, 1.0));
  CHECK(!cancelling.next());
  // Repeated values inside a profile that does change are skipped, the changes kept.
  const auto changes = sim::profile_until({steps({{0, 1}, {1, 0.5}, {2, 0.5}, {3, 1}}, 4)}, 9);
  CHECK(changes ==
        std::vector<std::pair<double, double>>{{0, 1}, {1, 0.5}, {3, 1}, {5, 0.5}, {7, 1}, {9, 0.5}});
  CHECK(sim::profile_until({steps({{0, 0.5}, {1, 0.5}}, 2), random}, 1e9) ==
        std::vector<std::pair<double, double>>{{0, 0.5}});
}

namespace {
// A 1 MB message each way sent at 0 (both directions of the link busy), then a 1000-byte message 0 -> 1 sent
// at t = 3. Returns when node 0 got its 1 MB (-2 if never) and how long the later message took (-2 if lost).
std::vector<double> messages_in_flight(const sim::NetworkOptions& options) {
  auto path = path_topology(2, {bandwidth, latency});
  return timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
    const std::size_t other = 1 - node;
    port.send(other, protocols::Bytes(1000000, 1));
    const bool big = static_cast<bool>(port.receive(other));
    port.wait_sends();
    if (node == 0) {
      times[0] = big ? port.now() : -2;
      port.charge(seconds(3.0 - port.now()));
      port.send(1, protocols::Bytes(1000, 2));
      port.wait_sends();
    } else {
      times[1] = big && port.receive(0) ? port.now() - 3.0 : -2;
    }
  });
}
}  // namespace

TEST_CASE(
    "latency and bandwidth changes with messages in flight: they arrive, and later messages see the "
    "new values (ideal and tcp)") {
  // Under tcp SimGrid 3.32 applied each change twice to a flow when the reverse cross-traffic put it on both
  // directions of the link (sim/simulation.cpp): a deadlock for latency, an abort for bandwidth.
  for (const char* model : {"ideal", "tcp"}) {
    for (const bool of_latency : {true, false}) {
      INFO(model << (of_latency ? " latency" : " bandwidth"));
      sim::NetworkOptions changed;
      changed.model = model;
      sim::NetworkOptions constant = changed;
      // A change during the latency of the 1 MB messages, then one while their bytes move; the reference has
      // the last value from (nearly) the start, before any byte moves.
      std::vector<std::vector<sim::Profile>> changing(1), fixed(1);
      changing[0].push_back(steps({{0.0005, 4}, {0.3, 0.5}, {0.6, 3}}));
      fixed[0].push_back(steps({{1e-4, 3}}));
      (of_latency ? changed.dynamics.link_latency : changed.dynamics.link_bandwidth) = changing;
      (of_latency ? constant.dynamics.link_latency : constant.dynamics.link_bandwidth) = fixed;
      const std::vector<double> out = messages_in_flight(changed);
      const std::vector<double> reference = messages_in_flight(constant);
      CHECK(out[0] > 0);
      CHECK(out[1] > 0);
      // The later message is timed with the last values, as if they had held from the start.
      CHECK(out[1] == Approx(reference[1]).epsilon(1e-9));
    }
  }
}

TEST_CASE("profiles that change faster than a run can simulate stop it with an InputError past the budget") {
  auto path = path_topology(2, {bandwidth, latency});
  sim::NetworkOptions options;
  options.dynamics.max_profile_events = 10000;
  const auto outcome = [&](double period) {
    options.dynamics.link_latency = {{steps({{0, 1}, {period / 2, 2}}, period)}};
    const ChildResult result = in_child([&] {
      try {
        sim::simulate(path, priced(options), [](std::size_t node, protocols::Port& port) {
          port.charge(seconds(1.0));  // 2 / period changes of each direction's latency meanwhile
          if (node == 0) port.send(1, protocols::Bytes(1000, 1));
          if (node == 1) port.receive(0);
        });
      } catch (const InputError& e) {
        return std::string("InputError: ") + e.what();
      }
      return std::string("completed");
    });
    INFO(result.error);
    return result.output;
  };
  // Two changes per microsecond: four million in the run, past the budget of 10000.
  const std::string fast = outcome(1e-6);
  CHECK_THAT(fast, Catch::StartsWith("InputError") && Catch::Contains("changed more than 10000 times") &&
                       Catch::Contains("link0-1") && Catch::Contains("$.network.dynamics"));
  // Two changes per millisecond: 4000 in the run, within it.
  CHECK(outcome(1e-3) == "completed");
}
