// The request side of a port is its own interface: a port that does not implement it is refused by name.
#include <catch2/catch.hpp>

#include "algorithms/protocols/requests.hpp"

using namespace sgdsim;

namespace {

// A port of a network without servers.
class PlainPort final : public protocols::Port {
 public:
  std::size_t self() const override { return 4; }
  void send(std::size_t, protocols::Bytes) override {}
  void send_silence(std::size_t) override {}
  protocols::Received receive_or_miss(std::size_t) override { return {}; }
  std::vector<std::size_t> wait_sends() override { return {}; }
  void charge(std::span<const protocols::Charge>) override {}
  double now() override { return 0; }
  const protocols::Counters& counters() const override { return counters_; }

 private:
  protocols::Counters counters_;
};

// A requester's port (only the request side matters here).
class RequestingPort final : public protocols::Port, public protocols::Requester {
 public:
  std::size_t self() const override { return 1; }
  void send(std::size_t, protocols::Bytes) override {}
  void send_silence(std::size_t) override {}
  protocols::Received receive_or_miss(std::size_t) override { return {}; }
  std::vector<std::size_t> wait_sends() override { return {}; }
  void charge(std::span<const protocols::Charge>) override {}
  double now() override { return 0; }
  const protocols::Counters& counters() const override { return counters_; }
  void request(std::size_t to, protocols::Bytes bytes) override { sent.emplace_back(to, std::move(bytes)); }
  std::vector<std::pair<std::size_t, protocols::Bytes>> sent;

 private:
  protocols::Counters counters_;
};

}  // namespace

TEST_CASE("a port's request side is found only where the port has one") {
  PlainPort plain;
  CHECK_THROWS_WITH(protocols::requester(plain), Catch::Contains("node 4") && Catch::Contains("no requests"));
  CHECK_THROWS_WITH(protocols::request_inbox(plain), Catch::Contains("not a server's"));
  RequestingPort requesting;
  protocols::requester(requesting).request(3, {7});
  CHECK(requesting.sent == std::vector<std::pair<std::size_t, protocols::Bytes>>{{3, {7}}});
  CHECK_THROWS_AS(protocols::request_inbox(requesting), std::logic_error);
}
