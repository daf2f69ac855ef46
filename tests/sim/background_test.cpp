// Background traffic against max-min sharing with caps (ideal model: a link's bandwidth is shared fairly
// among its flows, a capped flow takes at most its cap and leaves the rest to the others).
#include <catch2/catch.hpp>

#include "tests/sim/sim_support.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;

namespace {

constexpr double bandwidth = 1e6;  // bytes/s
constexpr double latency = 1e-3;   // s
constexpr double message = 1e6;    // bytes

// The simulated time at which node 1 has received a 1 MB message node 0 sent at t = 0, beside `flows`.
double arrival(std::vector<sim::BackgroundFlow> flows) {
  auto path = path_topology(2, {bandwidth, latency});
  sim::NetworkOptions options;
  options.dynamics.background = std::move(flows);
  auto out =
      timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
        if (node == 0) port.send(1, protocols::Bytes(static_cast<std::size_t>(message), 1));
        if (node == 1 && port.receive(0)) times[1] = port.now();
      });
  return out[1];
}

sim::BackgroundFlow capped(double rate) {
  sim::BackgroundFlow flow;
  flow.from = 0;
  flow.to = 1;
  flow.rate = rate;
  return flow;
}

}  // namespace

TEST_CASE("a capped background flow takes its cap and leaves the rest of the link: max-min with caps") {
  CHECK(arrival({}) == Approx(latency + message / bandwidth).epsilon(1e-9));
  // Below half the link, the cap binds: the message gets the rest.
  for (double fraction : {0.1, 0.25, 0.4}) {
    INFO("fraction " << fraction);
    CHECK(arrival({capped(fraction * bandwidth)}) ==
          Approx(latency + message / ((1 - fraction) * bandwidth)).epsilon(1e-9));
  }
  // Above half, fair sharing binds first: each flow gets half.
  for (double fraction : {0.6, 0.9}) {
    INFO("fraction " << fraction);
    CHECK(arrival({capped(fraction * bandwidth)}) ==
          Approx(latency + message / (0.5 * bandwidth)).epsilon(1e-9));
  }
  // Two capped flows of 0.1 and 0.2: the message gets 0.7.
  CHECK(arrival({capped(0.1 * bandwidth), capped(0.2 * bandwidth)}) ==
        Approx(latency + message / (0.7 * bandwidth)).epsilon(1e-9));
}

TEST_CASE("bulk background transfers run inside a run and slow the messages they share a link with") {
  sim::BackgroundFlow bulk;
  bulk.from = 0;
  bulk.to = 1;
  bulk.size = 1e5;
  bulk.arrivals = 5;  // half the link's bandwidth offered, in transfers overlapping the message
  bulk.stream_seed = 3;
  const double alone = latency + message / bandwidth;
  const double shared = arrival({bulk});
  CHECK(shared > 1.05 * alone);
  CHECK(arrival({bulk}) == shared);  // seeded: the same arrivals
}
