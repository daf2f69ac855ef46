// AD-PSGD: gradient steps at possibly stale models and pairwise averages with random neighbours (adpsgd.hpp).
#include "algorithms/protocols/adpsgd.hpp"

#include <algorithm>
#include <stdexcept>

#include "algorithms/protocols/requests.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Adpsgd::Adpsgd(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      local_(environment, schedule_.optimizer),
      encoders_(spec, environment.topology->nodes, local_.dimension(), environment.seed, environment.clock,
                *environment.prices, model_layout(*environment.model)),
      n_(environment.topology->nodes),
      // Δ from the two decoded vectors, then x ± Δ: reads three vectors, writes one.
      mixing_{environment.prices->floats(Work::mixing), 4.0 * static_cast<double>(local_.dimension())},
      nodes_(n_),
      theirs_(local_.dimension()),
      mine_(local_.dimension()),
      seen_(local_.dimension()) {
  refuse_momentum_twice(spec, encoders_, schedule_.optimizer.momentum);
  for (Node& node : nodes_) {
    node.x = initial_model(environment);
    node.sent.assign(node.x.size(), 0.0f);
    node.gradient.assign(node.x.size(), 0.0f);
    node.arriving.assign(node.x.size(), 0.0f);
    node.unconfirmed.assign(node.x.size(), 0.0f);
  }
}

void Adpsgd::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  node.port = &port;
  Requester& requests = requester(port);
  const auto& neighbors = environment_.topology->neighbors[i];
  Rng batches = local_.batch_stream(i);
  Rng peers = Rng::stream(environment_.seed, i, Purpose::peer);
  const auto n = static_cast<std::int64_t>(n_);
  observe(environment_, 0, i, node.x, node.stats, port);
  while (started_ < schedule_.steps * n) {
    const std::int64_t t = started_++ / n;  // the global step this update counts towards
    // The gradient at the model as it is now (the paper's read of x̂_i), computed in the background while
    // this node averages with a neighbour (the paper's two concurrent threads): the host's CPU is shared
    // between them, and the gradient is applied to the averaged model, stale by that average.
    const std::span<const float> g = local_.gradient(i, node.x, batches, port, false);
    node.gradient.assign(g.begin(), g.end());
    port.start_background(std::span<const Charge>(&local_.gradient_charge(), 1));
    if (!neighbors.empty()) {
      const std::size_t j = neighbors[peers.below(neighbors.size())];
      node.locked = true;
      node.partner = j;
      Bytes bytes;
      encoders_.encode(i, node.x, bytes, node.sent, node.stats);
      port.charge(encoders_.encode_charge());
      requests.request(j, std::move(bytes));
      Bytes reply;
      if (!environment_.lossy) {
        std::optional<Bytes> received = port.receive(j);
        if (!received) throw std::logic_error("AD-PSGD received silence");
        reply = std::move(*received);
      } else {
        // A request that reached nobody gets no reply; a reply that does not come in time is given up on
        // (j then learns it was not delivered and keeps its model). Either way this average is skipped.
        if (port.wait_sends().empty()) {
          Received received = port.receive_or_miss(j);
          if (received.status == Received::Status::message) reply = std::move(received.bytes);
        }
      }
      if (!reply.empty()) {  // empty: j was busy
        encoders_.decode(reply, theirs_);
        port.charge(encoders_.decode_charge());
        if (!environment_.lossy) {
          // The same Δ the server subtracted (same floats, same operations).
          for (std::size_t c = 0; c < node.x.size(); ++c) node.x[c] += 0.5f * (theirs_[c] - node.sent[c]);
          node.landing = false;
        } else {
          // The Δ the server subtracts once it learns this reply was delivered.
          for (std::size_t c = 0; c < node.x.size(); ++c) {
            const float delta = 0.5f * (theirs_[c] - node.sent[c]);
            node.x[c] += delta;
            node.unconfirmed[c] += delta;
          }
          ++node.unconfirmed_count;
        }
        port.charge(mixing_);
      }
      // While the deferred requests are answered, new ones queue behind them (see adpsgd.hpp).
      node.draining = environment_.lossy;
      node.locked = false;
      port.wait_sends();
      // The requests deferred while this exchange was open, in arrival order; more may arrive meanwhile.
      while (!node.deferred.empty()) {
        auto [k, request] = std::move(node.deferred.front());
        node.deferred.erase(node.deferred.begin());
        answer(i, k, request, port);
      }
      node.draining = false;
    }
    port.await_background(1);
    // The rate of the network's step when the gradient is applied (a node may hold its gradient for long).
    local_.descend(i, node.x, schedule_.at(completed_ / n), node.gradient);
    port.charge(local_.update());
    require_finite(node.x, "model", i, t + 1);
    const double time = port.now();
    // Nothing yields from here to the end of the snapshot: every model is seen at the same instant.
    ++completed_;
    if (environment_.probe) environment_.probe->reached(completed_ / n, i);
    if (completed_ % n == 0) snapshot(completed_ / n, time);
  }
  node.ran = port.counters();
  node.port = nullptr;
}

void Adpsgd::serve(std::size_t j, protocols::Port& port) {
  Node& node = nodes_[j];
  node.server = &port;
  RequestInbox& requests = request_inbox(port);
  for (;;) {
    auto [i, bytes] = requests.receive_request();
    if (!node.locked && !node.draining) {
      answer(j, i, bytes, port);
    } else if (!node.locked || node.partner < j) {
      node.deferred.emplace_back(i, std::move(bytes));
    } else {
      port.send(i, Bytes{});  // busy
      port.wait_sends();
    }
  }
}

void Adpsgd::answer(std::size_t j, std::size_t i, const Bytes& bytes, protocols::Port& port) {
  Node& node = nodes_[j];
  // Decode, encode, update: no Port call in between, so the exchange is atomic at this end (on a lossy
  // network the update waits for the reply's delivery instead, see adpsgd.hpp).
  encoders_.decode(bytes, theirs_);
  port.charge(encoders_.decode_charge());
  Bytes reply;
  encoders_.encode(j, node.x, reply, mine_, node.stats);
  port.charge(encoders_.encode_charge());
  Node& requester = nodes_[i];
  if (environment_.lossy) {
    // Δ survives the wait below, so it cannot live in the shared scratch.
    std::vector<float> delta(node.x.size());
    for (std::size_t c = 0; c < delta.size(); ++c) delta[c] = 0.5f * (mine_[c] - theirs_[c]);
    port.charge(mixing_);
    port.send(i, std::move(reply));
    if (!port.wait_sends().empty()) return;  // lost or given up on: i did not average, neither does j
    // x_j may have moved meanwhile (its own gradient or exchanges); Δ is added to it all the same.
    for (std::size_t c = 0; c < delta.size(); ++c) {
      node.x[c] -= delta[c];
      requester.unconfirmed[c] -= delta[c];
    }
    if (--requester.unconfirmed_count == 0)
      std::fill(requester.unconfirmed.begin(), requester.unconfirmed.end(), 0.0f);
    require_finite(node.x, "model", j, -1);
    return;
  }
  for (std::size_t c = 0; c < node.x.size(); ++c) {
    const float delta = 0.5f * (mine_[c] - theirs_[c]);
    node.x[c] -= delta;
    requester.arriving[c] = delta;
  }
  requester.landing = true;
  port.charge(mixing_);
  require_finite(node.x, "model", j, -1);
  port.send(i, std::move(reply));
  port.wait_sends();
}

void Adpsgd::snapshot(std::int64_t step, double time) {
  Probe* probe = environment_.probe;
  if (!probe || !probe->wants(step)) return;
  for (std::size_t k = 0; k < n_; ++k) {
    Node& node = nodes_[k];
    require_finite(node.x, "model", k, step);
    NodeStats& stats = node.stats;
    // A node's traffic and work are its requests and its server's replies together. Work still owed by
    // another actor (charged, not yet executed) shows in a later row.
    take_counters(stats, time, node.port ? node.port->counters() : node.ran);
    if (node.server) add_counters(stats, node.server->counters());
    if (node.landing) {
      // The requester is locked until it adds Δ, so this is the model it will have.
      for (std::size_t c = 0; c < seen_.size(); ++c) seen_[c] = node.x[c] + node.arriving[c];
      probe->observe(step, k, seen_, stats);
    } else if (node.unconfirmed_count != 0) {
      // Lossy networks: a delivered reply counts as landed at both ends, or at neither, never at one.
      for (std::size_t c = 0; c < seen_.size(); ++c) seen_[c] = node.x[c] - node.unconfirmed[c];
      probe->observe(step, k, seen_, stats);
    } else {
      probe->observe(step, k, node.x, stats);
    }
  }
}

namespace {
const bool registered_adpsgd = protocols().add(
    {"adpsgd",
     "AD-PSGD (Lian et al. 2018, \"Asynchronous Decentralized Parallel Stochastic Gradient Descent\"): no "
     "rounds; each node repeatedly takes a gradient at its possibly stale model, averages it with one "
     "neighbour drawn at random and applies the gradient. `steps` counts steps · nodes gradient updates in "
     "the whole network; fast nodes take more of them.",
     [] {
       auto keys = Encoders::keys(
           "The compressor of the models exchanged by the pairwise averages (fp32 by "
           "default).",
           nlohmann::json{{"kind", "none"}});
       keys.push_back(topology::graph_key());
       return keys;
     }(),
     {"survives_failures", "time_dependent"}},
    {.build = [](Spec& spec,
                 const Environment& environment) { return std::make_unique<Adpsgd>(spec, environment); },
     // x_i, x̃_i of the request in flight, the waiting gradient, the Δ of a reply on its way, and one message.
     .vectors_per_node = [](const nlohmann::json&, double) { return 5.0; }});
}  // namespace

}  // namespace sgdsim::protocols
