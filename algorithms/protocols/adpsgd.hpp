#pragma once
// AD-PSGD (Lian et al. 2018, "Asynchronous Decentralized Parallel Stochastic Gradient Descent"): no rounds.
// Each node repeatedly takes a gradient at its model as it was when the gradient started, averages with one
// neighbour drawn at random meanwhile (the paper's two concurrent threads: the gradient runs in the
// background on the node's host, Port::start_background), and then applies the gradient to the averaged
// model, stale by that average as in the paper's analysis. The pairwise average needs the neighbour's model
// at once, so every node also runs a server (Protocol::serve) that answers averaging requests while the node
// computes.
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// One averaging exchange between a requester i and a server j: i sends C(x_i), j answers with C(x_j), and
// both apply the same half difference Δ = (x̃_j − x̃_i) / 2 of the decoded vectors with opposite signs, x_i +=
// Δ at i and x_j −= Δ at j. Each exchange thus moves Δ from one node to the other, and the sum of all models
// moves only by gradient steps. Without compression both end at (x_i + x_j) / 2 (up to float rounding), the
// paper's atomic average, because neither model changes while the exchange is open:
// * From its request until the reply is applied, i is locked: its server does not touch x_i. A request that
//   reaches a locked node j (which waits for its own partner m) is deferred until j's exchange is done when
//   m < j, and refused (an empty "busy" reply; the requester then skips this average) when m > j. A node
//   waits only for lower-numbered nodes to answer, so no cycle of waits can form: no deadlock, also when two
//   nodes choose each other at the same moment (the higher one serves the lower one right after).
// * The server serves a request in one go, without a Port call between reading x_j and updating it.
// On a network that loses messages (Environment::lossy) a request or reply can be lost, so the exchange
// becomes "apply on delivery": i skips the average when its request reached nobody or the reply did not come
// within the receive timeout; j subtracts Δ only once the port confirms its reply was delivered (wait_sends()
// lists no undelivered send), so a lost reply changes neither model. Requests to a node are then answered
// strictly in arrival order (also while the node drains its deferred ones), so the reply i receives is the
// one to its current request and both ends compute the same Δ.
//
class Adpsgd : public Protocol {
 public:
  Adpsgd(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;
  bool serves() const override { return true; }
  void serve(std::size_t node, protocols::Port& port) override;

 private:
  struct Node {
    std::vector<float> x;         // the model
    std::vector<float> sent;      // x̃_i of the request in flight: C(x_i) decoded, as the server decodes it
    std::vector<float> gradient;  // the gradient waiting for the average to finish
    NodeStats stats;
    Port* port = nullptr;         // run()'s port while run() lasts, for counters at snapshots
    Counters ran;                 // ...and its counters once run() has returned
    Port* server = nullptr;       // serve()'s port (servers last until every run() has returned)
    std::vector<float> arriving;  // Δ of the reply on its way to this node (for snapshots only)
    bool landing = false;         // ...while there is one: the server applied its half, this node not yet
    // Lossy networks: the Δ this node added for replies whose server has not yet confirmed their delivery
    // (negative when the server confirmed first), and how many replies that sums.
    std::vector<float> unconfirmed;
    int unconfirmed_count = 0;
    bool locked = false;      // an exchange of this node's own is open
    bool draining = false;    // lossy networks: answering its deferred requests (new ones queue behind)
    std::size_t partner = 0;  // ...with this node
    std::vector<std::pair<std::size_t, Bytes>> deferred;  // requests waiting for the exchange to close
  };
  // Node j answers node i's request `bytes` through `port` (its server's, or its own after deferring).
  void answer(std::size_t j, std::size_t i, const Bytes& bytes, protocols::Port& port);
  // Hands every node's model to the probe at the moment global step `step` completed.
  void snapshot(std::int64_t step, double time);

  const Environment& environment_;
  Schedule schedule_;
  LocalStep local_;
  Encoders encoders_;
  std::size_t n_;
  Charge mixing_;
  std::vector<Node> nodes_;
  std::vector<float> theirs_, mine_, seen_;  // shared scratch, used between Port calls only (see LocalStep)
  std::int64_t started_ = 0, completed_ = 0;
};

}  // namespace sgdsim::protocols
