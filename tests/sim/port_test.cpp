// The Port's semantics: real bytes, per-sender order, free silences, errors and deadlocks become exceptions.
#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "tests/sim/sim_support.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;

namespace {

const topology::Link test_link{12.5e6, 500e-6};

// The error text of a simulation that must fail, prefixed with its C++ type.
std::string failure_of(const topology::Topology& t, const sim::NodeBody& body) {
  const ChildResult result = in_child([&] {
    try {
      sim::simulate(t, priced({}), body);
    } catch (const InputError& e) {
      return std::string("InputError: ") + e.what();
    } catch (const std::runtime_error& e) {
      return std::string("runtime_error: ") + e.what();
    }
    return std::string("no error");
  });
  INFO(result.error);
  REQUIRE(result.exit_code == 0);
  return result.output;
}

}  // namespace

TEST_CASE("bytes arrive intact and in order and silences cost no time") {
  auto path = path_topology(3, test_link);
  auto out = timed_run(path, {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& v) {
    if (node == 0) {
      port.send_silence(1);
      port.send(1, protocols::Bytes{1, 2, 3});
      port.send_silence(1);
      port.send(1, protocols::Bytes{});
      port.send(1, protocols::Bytes(10000, 9));
    } else if (node == 1) {
      REQUIRE_FALSE(port.receive(0));
      v[2] = port.now();  // the first silence: at time 0
      REQUIRE(*port.receive(0) == protocols::Bytes{1, 2, 3});
      const double first = port.now();
      REQUIRE_FALSE(port.receive(0));
      REQUIRE(port.now() == first);  // a silence after a message costs nothing more
      REQUIRE(port.receive(0)->empty());
      REQUIRE(*port.receive(0) == protocols::Bytes(10000, 9));
      v[1] = port.now();
    }
    if (node == 2) {
      // Silence between nodes that never talk otherwise, and to a non-neighbour.
      port.send_silence(0);
    }
    if (node == 0) {
      REQUIRE_FALSE(port.receive(2));
      v[0] = port.now();
    }
  });
  CHECK(out[2] == 0.0);
  CHECK(out[0] == 0.0);
  CHECK(out[1] > 500e-6);
}

TEST_CASE("a receiver that waits first gets every item in order, however many come before it resumes") {
  // Node 0 starts first, so it waits on an empty channel; node 1 then announces several items in a row (a
  // receiver that waits is woken once), and later, after computing, one more that node 0 waits for again.
  auto path = path_topology(2, test_link);
  auto out = timed_run(path, {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& v) {
    if (node == 0) {
      REQUIRE_FALSE(port.receive(1));
      REQUIRE(*port.receive(1) == protocols::Bytes{4, 5});
      REQUIRE_FALSE(port.receive(1));
      REQUIRE(*port.receive(1) == protocols::Bytes{6});
      REQUIRE(*port.receive(1) == protocols::Bytes{7});
      v[0] = port.now();
    } else {
      port.send_silence(0);
      port.send(0, protocols::Bytes{4, 5});
      port.send_silence(0);
      port.send(0, protocols::Bytes{6});
      port.charge(flops(1e9));  // simulated time passes: node 0 waits on the channel again
      v[1] = port.now();
      port.send(0, protocols::Bytes{7});
      port.wait_sends();
    }
  });
  CHECK(out[0] > out[1]);  // the last message left after the computation and took transfer time
}

TEST_CASE("while nothing fails, receives that could time out get the same items at the same times") {
  // One receive path, two ways of waiting for an item: the same exchange with and without a receive timeout.
  // Node 1 finds some items there and waits for others; node 2 (two hops away) waits before anything is sent.
  auto path = path_topology(3, test_link);
  const auto exchange = [](std::size_t node, protocols::Port& port, std::vector<double>& v) {
    using Status = protocols::Received::Status;
    if (node == 0) {
      port.send_silence(1);
      port.send(1, protocols::Bytes{1, 2, 3});
      port.send_silence(1);
      port.charge(flops(1e6));
      port.send(1, protocols::Bytes(10000, 9));
      port.send(2, protocols::Bytes(500, 1));
      v[0] = static_cast<double>(port.wait_sends().size());
    } else {
      const protocols::Received first = port.receive_or_miss(0);
      const double at = port.now();
      if (node == 1) {
        const protocols::Received message = port.receive_or_miss(0);
        const protocols::Received silence = port.receive_or_miss(0);
        const protocols::Received late = port.receive_or_miss(0);
        const bool items = first.status == Status::silence && message.bytes == protocols::Bytes{1, 2, 3} &&
                           silence.status == Status::silence && late.bytes == protocols::Bytes(10000, 9);
        v[1] = items && at == 0 ? port.now() : -2;
      } else {
        v[2] = first.status == Status::message && first.bytes.size() == 500 ? at : -2;
      }
    }
  };
  const std::vector<double> reliable = timed_run(path, {}, exchange);
  sim::NetworkOptions options;
  options.dynamics.receive_timeout = 10;
  const std::vector<double> lossy = timed_run(path, options, exchange);
  CHECK(reliable[0] == 0);
  CHECK(reliable[1] > 1e-4);
  CHECK(reliable[2] > 1e-4);
  CHECK(lossy == reliable);
}

TEST_CASE("an item sent at the very time its receive gives up keeps the channel in step") {
  // Receiver r's first receive from s gives up at 0.5 s; s's own receive from r gives up at the same time,
  // and s then sends a silence (item 0) and two messages (items 1 and 2). Whichever of the two resumes first,
  // r's later receives must get items 1 and 2: item 0 was settled by the first receive (taken, as announced
  // by its deadline, or refused). Pair 0 < 1 and pair 3 > 2 cover both orders of waking.
  auto path = path_topology(4, test_link);
  sim::NetworkOptions options;
  options.dynamics.receive_timeout = 0.5;
  using Status = protocols::Received::Status;
  const auto out =
      timed_run(path, options, [](std::size_t node, protocols::Port& port, std::vector<double>& v) {
        const bool receiver = node == 0 || node == 3;
        const std::size_t peer = node == 0 ? 1 : node == 1 ? 0 : node == 2 ? 3 : 2;
        if (!receiver) {
          port.receive_or_miss(peer);  // nothing comes: gives up at 0.5 s
          port.send_silence(peer);
          port.send(peer, protocols::Bytes{7});
          port.send(peer, protocols::Bytes{8});
          port.wait_sends();
          return;
        }
        const protocols::Received first = port.receive_or_miss(peer);
        const protocols::Received second = port.receive_or_miss(peer);
        const protocols::Received third = port.receive_or_miss(peer);
        const bool settled = first.status != Status::message;
        v[node] =
            settled && second.bytes == protocols::Bytes{7} && third.bytes == protocols::Bytes{8} ? 1 : 0;
      });
  CHECK(out[0] == 1);
  CHECK(out[3] == 1);
}

TEST_CASE("counters count payload and wire bytes and messages but not silences") {
  auto path = path_topology(2, test_link);
  sim::NetworkOptions options;
  options.header_bytes = 40;
  auto out = timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& v) {
    if (node == 0) {
      port.send(1, protocols::Bytes(100));
      port.send_silence(1);
      port.send(1, protocols::Bytes(7));
      port.wait_sends();
      const auto& c = port.counters();
      v[0] = static_cast<double>(c.payload_bytes * 1000000 + c.wire_bytes * 1000 + c.messages);
    } else {
      port.receive(0), port.receive(0), port.receive(0);
    }
  });
  CHECK(out[0] == 107.0 * 1000000 + 187.0 * 1000 + 2);
}

TEST_CASE("a charge of several terms is one piece of work: its seconds are the sum of their prices") {
  auto path = path_topology(2, test_link);
  sim::NetworkOptions options;
  options.host_speed = 1e9;
  auto out = timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& v) {
    if (node != 0) return;
    const protocols::Charge terms[] = {seconds(1.5), flops(5e8)};
    port.charge(terms);
    port.charge(mixing_floats(1e9));  // mixing is not charged by the test prices
    v[0] = port.now();
    v[1] = port.counters().work_s[static_cast<std::size_t>(protocols::Work::gradient)];
  });
  CHECK(out[0] == 2.0);
  CHECK(out[1] == 2.0);
}

TEST_CASE("unreceived messages do not block the end of the run") {
  auto path = path_topology(2, test_link);
  auto out = timed_run(path, {}, [&](std::size_t node, protocols::Port& port, std::vector<double>&) {
    if (node == 0) port.send(1, protocols::Bytes(1000));
  });
  // The body returned without wait_sends: the send still completes before the run ends.
  CHECK(relative_error(out.back(), 500e-6 + 1000 / 12.5e6) < 1e-9);
}

TEST_CASE("an exception in a body becomes an error naming the node") {
  auto ring = topology::build_topology("ring", 4, topology::ring_edges(4), test_link);
  const std::string runtime = failure_of(ring, [](std::size_t node, protocols::Port& port) {
    if (node == 2) {
      port.charge(flops(1e6));
      throw std::runtime_error("boom");
    }
    port.receive((node + 1) % 4);  // others wait forever: killed, not reported as a deadlock
  });
  CHECK(runtime == "runtime_error: node 2: boom");
  const std::string input = failure_of(ring, [](std::size_t node, protocols::Port&) {
    if (node == 1) throw InputError("bad.json: $.x: nope");
  });
  CHECK(input == "InputError: node 1: bad.json: $.x: nope");
  const std::string mixed = failure_of(ring, [](std::size_t node, protocols::Port& port) {
    const protocols::Charge terms[] = {seconds(1), mixing_floats(1)};
    if (node == 0) port.charge(terms);
  });
  CHECK(mixed == "runtime_error: node 0: node 0 charged several kinds of work as one");
  const std::string misuse = failure_of(ring, [](std::size_t node, protocols::Port& port) {
    if (node == 3) port.send(3, {});
  });
  CHECK_THAT(misuse, Catch::StartsWith("runtime_error: node 3: node 3 called send with peer 3"));
}

TEST_CASE("a deadlock becomes an error naming the blocked nodes") {
  auto ring = topology::build_topology("ring", 3, topology::ring_edges(3), test_link);
  const std::string text = failure_of(ring, [](std::size_t node, protocols::Port& port) {
    if (node == 2) return;
    port.send(2, protocols::Bytes(10));
    port.receive(1 - node);  // 0 and 1 wait for each other
  });
  CHECK_THAT(text, Catch::StartsWith("runtime_error: deadlock"));
  CHECK_THAT(text, Catch::Contains("node 0 waits in receive(from 1)") &&
                       Catch::Contains("node 1 waits in receive(from 0)"));
  CHECK_THAT(text, !Catch::Contains("node 2"));
}

TEST_CASE("a second simulation in one process is refused") {
  auto path = path_topology(2, test_link);
  const ChildResult result = in_child([&] {
    sim::simulate(path, {}, [](std::size_t, protocols::Port&) {});
    try {
      sim::simulate(path, {}, [](std::size_t, protocols::Port&) {});
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  });
  CHECK_THAT(result.output, Catch::Contains("once per process") || Catch::Contains("one engine per process"));
  CHECK_THROWS_AS(
      [&] {
        sim::NetworkOptions options;
        options.model = "magic";
        const ChildResult r = in_child([&] {
          sim::simulate(path, options, [](std::size_t, protocols::Port&) {});
          return std::string();
        });
        if (!r.error.empty()) throw InputError(r.error);
      }(),
      InputError);
}
