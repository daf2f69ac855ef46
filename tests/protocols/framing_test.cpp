// Framing, in-process (no SimGrid): on a reliable network a copy update travels as its encoded bytes; on a
// lossy one every update a holder missed is owed and repaired, so that a holder's copy plus its owner's debt
// to it is always the owner's copy, and a delivered repair clears the debt.
#include <catch2/catch.hpp>

#include <cstring>
#include <deque>
#include <map>
#include <set>

#include "algorithms/protocols/framing.hpp"
#include "common/rng.hpp"
#include "topologies/graph.hpp"

using namespace sgdsim;
using protocols::Bytes;
using protocols::Framing;
using protocols::Received;
using protocols::Silence;

namespace {

constexpr std::size_t d = 4;

// Nodes that take turns by hand: every send of a round happens before any receive, so a receive that finds
// nothing queued is a message lost on the way (`missing`), as a receive timeout would find it.
class ScriptedNetwork {
 public:
  class LocalPort final : public protocols::Port {
   public:
    LocalPort(ScriptedNetwork& network, std::size_t self) : network_(&network), self_(self) {}
    std::size_t self() const override { return self_; }
    void send(std::size_t to, Bytes bytes) override {
      sizes.push_back(bytes.size());
      if (network_->down.count({self_, to})) {
        lost_.push_back(to);
        return;
      }
      network_->queues[{self_, to}].push_back({Received::Status::message, std::move(bytes)});
    }
    void send_silence(std::size_t to) override {
      network_->queues[{self_, to}].push_back({Received::Status::silence, {}});
    }
    Received receive_or_miss(std::size_t from) override {
      auto& queue = network_->queues[{from, self_}];
      if (queue.empty()) return {};
      Received item = std::move(queue.front());
      queue.pop_front();
      return item;
    }
    std::vector<std::size_t> wait_sends() override { return std::exchange(lost_, {}); }
    void charge(std::span<const protocols::Charge>) override {}
    double now() override { return 0; }
    const protocols::Counters& counters() const override { return counters_; }
    std::vector<std::size_t> sizes;  // of every message sent

   private:
    ScriptedNetwork* network_;
    std::size_t self_;
    std::vector<std::size_t> lost_;
    protocols::Counters counters_;
  };

  explicit ScriptedNetwork(std::size_t nodes) {
    for (std::size_t i = 0; i < nodes; ++i) ports.emplace_back(*this, i);
  }
  std::deque<LocalPort> ports;
  std::set<std::pair<std::size_t, std::size_t>> down;  // directed links that lose what is sent on them
  std::map<std::pair<std::size_t, std::size_t>, std::deque<Received>> queues;
};

// A triangle: every node holds the copies of the two others.
topology::Topology triangle() {
  return topology::build_topology("ring", 3, {{0, 1}, {1, 2}, {2, 0}}, {1, 1});
}

// The test's "encoding" of q: its raw floats (never a single byte).
Bytes encode(const std::vector<float>& q) {
  Bytes bytes(q.size() * sizeof(float));
  std::memcpy(bytes.data(), q.data(), bytes.size());
  return bytes;
}

// Copies as a gossip protocol keeps them: copy[i] is node i's own, held[i][j] node i's copy of node j.
struct Copies {
  explicit Copies(std::size_t n) : copy(n, std::vector<float>(d, 0.0f)), held(n) {}
  std::vector<std::vector<float>> copy;
  std::vector<std::map<std::size_t, std::vector<float>>> held;
};

void add(std::vector<float>& x, std::span<const float> y) {
  for (std::size_t c = 0; c < x.size(); ++c) x[c] += y[c];
}

// One round: the nodes in `updates` send their q, the others stay silent; then every node receives from its
// neighbours, applies what arrived to its copies, and awaits its sends.
void round(Framing& framing, ScriptedNetwork& network, const topology::Topology& t, Copies& copies,
           const std::map<std::size_t, std::vector<float>>& updates) {
  for (std::size_t i = 0; i < t.nodes; ++i) {
    if (auto it = updates.find(i); it != updates.end()) {
      add(copies.copy[i], it->second);
      framing.send_update(i, encode(it->second), it->second, network.ports[i]);
    } else {
      framing.send_silence(i, network.ports[i]);
    }
  }
  for (std::size_t i = 0; i < t.nodes; ++i) {
    for (std::size_t j : t.neighbors[i]) {
      std::vector<float>& held = copies.held[i].try_emplace(j, d, 0.0f).first->second;
      const Framing::Delivery delivery = framing.receive(j, network.ports[i]);
      if (!delivery.update.empty()) {
        REQUIRE(delivery.update.size() == d * sizeof(float));
        std::vector<float> q(d);
        std::memcpy(q.data(), delivery.update.data(), delivery.update.size());
        add(held, q);
      }
      if (!delivery.repair.empty()) add(held, delivery.repair);
    }
  }
  for (std::size_t i = 0; i < t.nodes; ++i) framing.wait_sends(i, network.ports[i]);
}

// Small integers: every sum of them is exact in float, so copies compare exactly.
std::vector<float> q_of(float value) {
  return std::vector<float>(d, value);
}

// held + what the owner owes == the owner's copy, for every holder.
void check_copies(const Framing& framing, const topology::Topology& t, const Copies& copies) {
  for (std::size_t i = 0; i < t.nodes; ++i) {
    for (std::size_t j : t.neighbors[i]) {
      std::vector<float> expected = copies.held[i].at(j);
      const std::vector<float>& owed = framing.owed(j, i);
      if (!owed.empty()) add(expected, owed);
      INFO("node " << i << "'s copy of node " << j);
      CHECK(expected == copies.copy[j]);
    }
  }
}

}  // namespace

TEST_CASE("on a reliable network an update is its encoded bytes and silence is a byte or nothing") {
  const topology::Topology t = triangle();
  for (Silence silence : {Silence::signal, Silence::free}) {
    ScriptedNetwork network(3);
    Framing framing(t, d, silence, /*lossy=*/false);
    Copies copies(3);
    round(framing, network, t, copies, {{0, q_of(1)}});
    // Node 0's update reached both holders as 4 d bytes; nodes 1 and 2 were silent.
    CHECK(network.ports[0].sizes == std::vector<std::size_t>{d * 4, d * 4});
    const std::vector<std::size_t> silent =
        silence == Silence::signal ? std::vector<std::size_t>{1, 1} : std::vector<std::size_t>{};
    CHECK(network.ports[1].sizes == silent);
    CHECK(copies.held[1].at(0) == copies.copy[0]);
    CHECK(copies.held[2].at(0) == copies.copy[0]);
    CHECK(copies.held[0].at(1) == copies.copy[1]);
    CHECK(framing.owed(0, 1).empty());
  }
}

TEST_CASE("on a lossy network a missed update is owed and repaired with the next message") {
  const topology::Topology t = triangle();
  ScriptedNetwork network(3);
  Framing framing(t, d, Silence::signal, /*lossy=*/true);
  Copies copies(3);
  const std::size_t update = 1 + 4 + d * 4, repair = d * 4;

  // Round 1: link 0 -> 1 is down; node 1 misses q = 1, node 2 gets it framed.
  network.down.insert({0, 1});
  round(framing, network, t, copies, {{0, q_of(1)}});
  CHECK(network.ports[0].sizes == std::vector<std::size_t>{update, update});
  CHECK(framing.owed(0, 1) == q_of(1));
  CHECK(framing.owed(0, 2).empty());
  CHECK(copies.held[1].at(0) == q_of(0));
  check_copies(framing, t, copies);

  // Round 2: still down; the repair is lost too, and the debt adds the new update.
  network.ports[0].sizes.clear();
  round(framing, network, t, copies, {{0, q_of(2)}});
  CHECK(network.ports[0].sizes == std::vector<std::size_t>{update + repair, update});
  CHECK(framing.owed(0, 1) == q_of(3));
  check_copies(framing, t, copies);

  // Round 3: still down, node 0 silent: it sends only the repair, which is lost; a silent round owes nothing
  // more.
  network.ports[0].sizes.clear();
  round(framing, network, t, copies, {});
  CHECK(network.ports[0].sizes == std::vector<std::size_t>{1 + repair, 1});
  CHECK(framing.owed(0, 1) == q_of(3));
  check_copies(framing, t, copies);

  // Round 4: up again, node 0 still silent: the repair alone arrives and settles the debt.
  network.down.clear();
  network.ports[0].sizes.clear();
  round(framing, network, t, copies, {});
  CHECK(network.ports[0].sizes == std::vector<std::size_t>{1 + repair, 1});
  CHECK(framing.owed(0, 1).empty());
  CHECK(copies.held[1].at(0) == copies.copy[0]);
  check_copies(framing, t, copies);

  // Round 5: nothing owed: a silent node sends the silence byte again.
  network.ports[0].sizes.clear();
  round(framing, network, t, copies, {});
  CHECK(network.ports[0].sizes == std::vector<std::size_t>{1, 1});
}

TEST_CASE("a free silence stays free on a lossy network while nothing is owed") {
  const topology::Topology t = triangle();
  ScriptedNetwork network(3);
  Framing framing(t, d, Silence::free, /*lossy=*/true);
  Copies copies(3);
  round(framing, network, t, copies, {});
  CHECK(network.ports[0].sizes.empty());
  network.down.insert({0, 2});
  round(framing, network, t, copies, {{0, q_of(4)}});
  network.down.clear();
  network.ports[0].sizes.clear();
  round(framing, network, t, copies, {});
  // Only node 2 was owed something: it gets the repair, node 1 a free silence.
  CHECK(network.ports[0].sizes == std::vector<std::size_t>{1 + d * 4});
  CHECK(copies.held[2].at(0) == copies.copy[0]);
  check_copies(framing, t, copies);
}

TEST_CASE(
    "under random losses every holder's copy plus its debt is the owner's copy, and one good round "
    "repairs everything") {
  const topology::Topology t = triangle();
  for (Silence silence : {Silence::signal, Silence::free}) {
    ScriptedNetwork network(3);
    Framing framing(t, d, silence, /*lossy=*/true);
    Copies copies(3);
    Rng rng(11);
    for (int r = 0; r < 200; ++r) {
      network.down.clear();
      for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j : t.neighbors[i])
          if (rng.below(3) == 0) network.down.insert({i, j});
      std::map<std::size_t, std::vector<float>> updates;
      for (std::size_t i = 0; i < 3; ++i)
        if (rng.below(2) == 0) updates[i] = q_of(static_cast<float>(rng.below(9)) - 4.0f);
      round(framing, network, t, copies, updates);
      check_copies(framing, t, copies);
    }
    network.down.clear();
    round(framing, network, t, copies, {});
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j : t.neighbors[i]) {
        CHECK(framing.owed(j, i).empty());
        CHECK(copies.held[i].at(j) == copies.copy[j]);
      }
    }
  }
}
