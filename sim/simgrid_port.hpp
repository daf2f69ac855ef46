#pragma once
// The Port implemented on SimGrid mailboxes. Internal to sim/ (it includes SimGrid).
#include <array>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "algorithms/protocols/requests.hpp"
#include "sim/dynamics.hpp"
#include "sim/traffic_meter.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::sim {

// The transport interface belongs to the protocols; the simulator implements it.
using protocols::Bytes;
using protocols::Counters;
using protocols::Port;
using protocols::Received;

// A message and its place in its channel's sequence (sends and silences numbered from 0).
struct Envelope {
  std::uint64_t seq = 0;
  Bytes bytes;
};

// One direction of one node pair. Every send or silence pushes a marker, so the receiver learns, in the
// sender's order and at zero simulated cost, whether the next item is a real message (then it takes it from
// the mailbox, which costs simulated transfer time) or silence. A receiver that finds no marker waits on the
// semaphore. On networks that cannot fail the sender releases it only for a receiver that waits: a receive
// whose marker is already there then makes no simcall. (Networks that can fail release it for every item, as
// the receive's timeout is the semaphore's.)
struct Channel {
  simgrid::s4u::Mailbox* mailbox = nullptr;
  simgrid::s4u::SemaphorePtr announced;
  std::deque<bool> is_message;
  bool receiver_waits = false;  // networks that cannot fail: the receiver waits on `announced`
  // The buffers in flight, owned here rather than by the comm so that nothing leaks when a message is never
  // received (a protocol bug, a kill after an error, a failure); the comm carries a pointer to one.
  std::deque<std::unique_ptr<Envelope>> in_flight;
  // Failures: the sequence number of the sender's next item, and of the receiver's next receive (it has
  // settled everything below: received it or given up on it). An item numbered below `received` is refused.
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::unique_ptr<Envelope> early;  // taken from the mailbox while the receiver still waited for an older one
  // Late messages kept (LateMessages::keep): the receive of the item in flight that the last receive gave up
  // on, still posted, and where it puts the item (every such receive lands here, so the place outlives it).
  simgrid::s4u::CommPtr kept;
  Envelope* arriving = nullptr;
  // The receiver's failure detector (FailureDetector): consecutive missed receives, and receives since the
  // sender became suspected.
  std::size_t misses = 0, suspected_receives = 0;
  std::vector<simgrid::s4u::Link*> route;  // the sender's route to the receiver (oracle), found on first use
  bool route_known = false;
};

// The requests on their way to one node's server (asynchronous protocols): one mailbox for all senders, bound
// to the server actor; the buffers are owned here, as in Channel.
struct Request {
  std::size_t from = 0;
  Bytes bytes;
};
struct RequestBox {
  simgrid::s4u::Mailbox* mailbox = nullptr;
  std::deque<std::unique_ptr<Request>> in_flight;
};

// What a blocked node is waiting for, to name it in a deadlock report.
struct Waiting {
  const char* operation = nullptr;  // nullptr when running
  std::size_t peer = 0;
};

// State shared by all ports of one simulation.
class Network {
 public:
  Network(std::size_t nodes, std::size_t header_bytes, std::size_t mtu, double receive_timeout = 0,
          std::shared_ptr<const protocols::PriceTable> prices = nullptr, TrafficMeter* meter = nullptr)
      : nodes_(nodes),
        header_bytes_(header_bytes),
        mtu_(mtu),
        receive_timeout_(receive_timeout),
        prices_(prices ? std::move(prices) : std::make_shared<const protocols::PriceTable>()),
        meter_(meter) {}
  // What the links carried and the timeline (null: nothing is measured).
  TrafficMeter* meter() const { return meter_; }
  std::size_t nodes() const { return nodes_; }
  // What the nodes' charges cost.
  const protocols::PriceTable& prices() const { return *prices_; }
  // Simulated seconds a receive waits before giving up; 0: forever (nothing can fail).
  double receive_timeout() const { return receive_timeout_; }
  const FailureDetector& failure_detector() const { return failure_detector_; }
  void set_failure_detector(const FailureDetector& detector) { failure_detector_ = detector; }
  // True when a receive that gives up leaves its item for the next receive (LateMessages::keep).
  bool keeps_late_messages() const { return late_messages_ == LateMessages::keep; }
  void set_late_messages(LateMessages late) { late_messages_ = late; }
  // The run's count of profile changes (null: not counted); a node's next operation after it ran out stops
  // the run with an InputError.
  const EventBudget* event_budget() const { return event_budget_; }
  void set_event_budget(const EventBudget* budget) { event_budget_ = budget; }
  // True when every link on the route of `channel` (from -> to) is up now.
  bool route_up(Channel& channel, std::size_t from, std::size_t to);
  // The simulated size of a message of `payload` bytes (wire_size() with this network's framing).
  std::uint64_t wire_size(std::uint64_t payload) const;
  // The actors that receive; set before the run so mailboxes can be bound to them.
  std::vector<simgrid::s4u::ActorPtr>& actors() { return actors_; }
  // Created on first use and bound to the receiving actor, so data starts flowing when it is sent (as TCP or
  // MPI eager sends do) rather than when the receiver asks for it.
  Channel& channel(std::size_t from, std::size_t to);
  // The server actors (empty when the protocol has none), and the request box of node `to`'s server.
  std::vector<simgrid::s4u::ActorPtr>& servers() { return servers_; }
  RequestBox& requests(std::size_t to);
  // Opens the channels of every edge up front (before the run), so that only multi-hop pairs are opened
  // lazily.
  void open_neighbor_channels(const topology::Topology& topology);
  // Unbinds the mailboxes so the actors can be freed.
  void release();

 private:
  std::size_t nodes_;
  std::size_t header_bytes_;
  std::size_t mtu_;
  double receive_timeout_;
  FailureDetector failure_detector_;
  LateMessages late_messages_ = LateMessages::drop;
  const EventBudget* event_budget_ = nullptr;
  std::shared_ptr<const protocols::PriceTable> prices_;
  TrafficMeter* meter_;
  std::vector<simgrid::s4u::ActorPtr> actors_;
  std::unordered_map<std::uint64_t, Channel> channels_;
  std::vector<simgrid::s4u::ActorPtr> servers_;
  std::unordered_map<std::size_t, RequestBox> requests_;
};

// A node's port. It also sends requests to the servers of asynchronous protocols (Network::servers()).
class SimPort : public Port, public protocols::Requester {
 public:
  SimPort(Network& network, std::size_t self) : network_(&network), self_(self) {}
  std::size_t self() const final { return self_; }
  void send(std::size_t to, Bytes bytes) final;
  void send_size(std::size_t to, std::size_t payload) final;
  void send_silence(std::size_t to) final;
  Received receive_or_miss(std::size_t from) final;
  std::vector<std::size_t> wait_sends() final;
  void request(std::size_t to, Bytes bytes) final;
  using Port::charge;
  void charge(std::span<const protocols::Charge> terms) final;
  double now() final;
  void start_background(std::span<const protocols::Charge> pieces) final;
  void await_background(std::size_t count) final;
  void let_others_run() final;
  const Counters& counters() const final { return counters_; }
  const Waiting& waiting() const { return waiting_; }

 protected:
  // True when the network can lose messages (receives time out).
  bool lossy() const { return network_->receive_timeout() > 0; }
  void settle();
  // A span of this node's time from `start` to `end` (-1: now), for the timeline.
  void record(Span::Kind kind, double start, std::size_t peer = 0, std::uint8_t work = 0, double end = -1);
  // True for a server's port: its spans go on the node's second timeline thread.
  virtual bool serves() const { return false; }
  Network* network_;
  std::size_t self_;
  Waiting waiting_;

 private:
  void check_peer(std::size_t peer, const char* operation) const;
  // send(): `bytes` (empty for send_size) count as `payload` bytes.
  void put(std::size_t to, Bytes bytes, std::uint64_t payload);
  double nominal_speed() const;
  // Tells the channel's receiver that an item (message or silence) is there (see Channel).
  void announce(Channel& channel);
  // True when the failure detector tells this receive not to wait for `from` (see FailureDetector).
  bool gives_up_at_once(Channel& channel, std::size_t from);
  // Waits until the channel's next item is announced; false when the receive's time ran out first. With
  // `settles` (the receive settles the item whatever happens), an item announced at the deadline counts.
  bool await_announcement(Channel& channel, double timeout, bool settles);
  Counters counters_;
  std::vector<simgrid::s4u::CommPtr> pending_;
  std::vector<std::size_t> pending_to_;  // the destination of each pending send (failures)
  std::vector<std::size_t> refused_;     // sends since the last wait_sends() that nobody waited for any more
  // Each pending send's wire bytes and the simulated time it was put (for the traffic meter).
  std::vector<std::uint64_t> pending_bytes_;
  std::vector<double> pending_put_;
  // Starts tracking a send just put (its comm is pending_.back()).
  void track_send(std::size_t to, std::uint64_t wire_bytes);
  // The pieces of the last start_background(): a helper actor on this node's host executes them one after
  // the other and releases `done` after each; it touches only this record, which it co-owns.
  struct Background {
    simgrid::s4u::SemaphorePtr done;
    std::vector<double> flops;
    std::vector<std::uint8_t> work;  // each piece's kind of work
    std::vector<double> start;       // each piece's start, written by the helper
    std::vector<double> elapsed;     // each piece's seconds, written by the helper
    std::size_t awaited = 0;
  };
  std::shared_ptr<Background> background_;
  // While background work is not all awaited: when this node's own thread computed, and when it awaited the
  // background; the rest of its time it spent on the network (Counters::hidden_s, concurrent_work_s).
  using Interval = std::pair<double, double>;
  std::vector<Interval> own_work_, own_awaits_;
  bool background_running() const { return background_ && background_->awaited < background_->flops.size(); }
  std::array<double, protocols::work_kinds> owed_{};  // work charged but not yet executed, by kind
  double owed_total_ = 0;
};

// A server's port (Protocol::serve): it also takes the requests sent to its node.
class ServerPort final : public SimPort, public protocols::RequestInbox {
 public:
  using SimPort::SimPort;
  std::pair<std::size_t, Bytes> receive_request() override;

 protected:
  bool serves() const override { return true; }
};

}  // namespace sgdsim::sim
