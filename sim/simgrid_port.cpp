#include "sim/simgrid_port.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/error.hpp"
#include "sim/framing.hpp"
#include "sim/simulation.hpp"

namespace sgdsim::sim {

namespace s4u = simgrid::s4u;

std::uint64_t Network::wire_size(std::uint64_t payload) const {
  return sim::wire_size(payload, header_bytes_, mtu_);
}

// What SimGrid is told a message of `wire` bytes weighs. A comm to a mailbox with a permanent receiver counts
// as delivered as soon as no bytes remain, and a 0-byte comm has none from the start: it would arrive before
// its latency. One byte makes it pay the route's latency (plus 1 / bandwidth: 80 ns at 100 Mbps); the
// counters keep the true 0.
static std::uint64_t simulated_size(std::uint64_t wire) {
  return std::max<std::uint64_t>(wire, 1);
}

Channel& Network::channel(std::size_t from, std::size_t to) {
  const std::uint64_t key = static_cast<std::uint64_t>(from) * nodes_ + to;
  if (auto it = channels_.find(key); it != channels_.end()) return it->second;
  // Built completely before it is published: the SimGrid calls below may switch to other actors, which must
  // never see a half-made channel. If one of them made the same channel meanwhile, theirs is kept.
  Channel fresh;
  fresh.mailbox = s4u::Mailbox::by_name(std::to_string(from) + ">" + std::to_string(to));
  fresh.announced = s4u::Semaphore::create(0);
  fresh.mailbox->set_receiver(actors_.at(to));
  return channels_.try_emplace(key, std::move(fresh)).first->second;
}

RequestBox& Network::requests(std::size_t to) {
  if (servers_.empty()) throw std::logic_error("request() needs a protocol with servers");
  if (auto it = requests_.find(to); it != requests_.end()) return it->second;
  RequestBox fresh;  // complete before it is published, as in channel()
  fresh.mailbox = s4u::Mailbox::by_name("requests>" + std::to_string(to));
  fresh.mailbox->set_receiver(servers_.at(to));
  return requests_.try_emplace(to, std::move(fresh)).first->second;
}

void Network::open_neighbor_channels(const topology::Topology& topology) {
  for (const auto& edge : topology.edges) {
    if (edge.b >= topology.nodes) continue;  // a link to a switch: no node to talk to at its end
    channel(edge.a, edge.b);
    channel(edge.b, edge.a);
  }
}

bool Network::route_up(Channel& channel, std::size_t from, std::size_t to) {
  if (!channel.route_known) {
    actors_.at(from)->get_host()->route_to(actors_.at(to)->get_host(), channel.route, nullptr);
    channel.route_known = true;
  }
  return std::all_of(channel.route.begin(), channel.route.end(),
                     [](const s4u::Link* link) { return link->is_on(); });
}

void Network::release() {
  for (auto& [key, channel] : channels_) channel.mailbox->set_receiver(nullptr);
  for (auto& [to, box] : requests_) box.mailbox->set_receiver(nullptr);
}

void SimPort::check_peer(std::size_t peer, const char* operation) const {
  if (peer >= network_->nodes() || peer == self_)
    throw std::invalid_argument("node " + std::to_string(self_) + " called " + operation + " with peer " +
                                std::to_string(peer) + " (valid: another node below " +
                                std::to_string(network_->nodes()) + ")");
}

void SimPort::send(std::size_t to, Bytes bytes) {
  const std::uint64_t payload = bytes.size();
  put(to, std::move(bytes), payload);
}

// A replayed message: its size is all SimGrid needs, so no buffer is made (an empty one travels).
void SimPort::send_size(std::size_t to, std::size_t payload) {
  put(to, {}, payload);
}

void SimPort::put(std::size_t to, Bytes bytes, std::uint64_t payload) {
  check_peer(to, "send");
  settle();
  Channel& channel = network_->channel(self_, to);
  const std::uint64_t size = network_->wire_size(payload);
  counters_.payload_bytes += payload;
  counters_.wire_bytes += size;
  counters_.messages += 1;
  const std::uint64_t seq = channel.sent++;
  if (seq < channel.received) {
    // The receiver already gave up on this item (this sender was late): nobody will receive it.
    refused_.push_back(to);
    return;
  }
  channel.in_flight.push_back(std::make_unique<Envelope>(Envelope{seq, std::move(bytes)}));
  channel.is_message.push_back(true);
  pending_.push_back(channel.mailbox->put_async(channel.in_flight.back().get(), simulated_size(size)));
  track_send(to, size);
  announce(channel);
}

void SimPort::track_send(std::size_t to, std::uint64_t wire_bytes) {
  pending_to_.push_back(to);
  pending_bytes_.push_back(wire_bytes);
  const double now = s4u::Engine::get_clock();
  pending_put_.push_back(now);
  if (TrafficMeter* meter = network_->meter()) meter->started(now);
}

void SimPort::record(Span::Kind kind, double start, std::size_t peer, std::uint8_t work, double end) {
  TrafficMeter* meter = network_->meter();
  if (!meter || !meter->timeline()) return;
  Span span;
  span.kind = kind;
  span.start = start;
  span.end = end >= 0 ? end : s4u::Engine::get_clock();
  span.node = static_cast<std::uint32_t>(self_);
  span.peer = static_cast<std::uint32_t>(peer);
  span.work = work;
  span.server = serves();
  if (kind != Span::Kind::work && !(span.end > span.start)) return;  // no wait: nothing to show
  meter->span(span);
}

void SimPort::send_silence(std::size_t to) {
  check_peer(to, "send_silence");
  settle();
  Channel& channel = network_->channel(self_, to);
  if (channel.sent++ < channel.received) return;  // nobody waits for it any more
  channel.is_message.push_back(false);
  announce(channel);
}

void SimPort::announce(Channel& channel) {
  if (lossy()) {
    channel.announced->release();
  } else if (channel.receiver_waits) {
    channel.receiver_waits = false;  // one release per wait, however many items come before it resumes
    channel.announced->release();
  }
}

bool SimPort::await_announcement(Channel& channel, double timeout, bool settles) {
  if (lossy()) {
    if (!channel.announced->acquire_timeout(timeout)) return true;  // one release per item
    // Timed out. A sender that resumed at the very time of the deadline, before this receiver did, may have
    // announced the item meanwhile: it was not refused (the item was not settled yet), so its release waits
    // in the semaphore, its marker in the channel and its comm in the mailbox. A receive that settles the
    // item takes that release: the item counts as announced in time, and the receive takes it as any other (a
    // message still in transit is then missing and its sender learns it was lost). Left there, they would be
    // the next receive's, one item off: a silence for a message, or an "unknown message".
    if (!settles || channel.sent <= channel.received) return false;
    channel.announced->acquire();  // returns at once
    return true;
  }
  // One release per wait: a receive whose item is already announced makes no simcall.
  while (channel.is_message.empty()) {
    channel.receiver_waits = true;
    channel.announced->acquire();
  }
  return true;
}

bool SimPort::gives_up_at_once(Channel& channel, std::size_t from) {
  if (!lossy()) return false;
  const FailureDetector& detector = network_->failure_detector();
  switch (detector.kind) {
    case FailureDetector::Kind::none:
      return false;
    case FailureDetector::Kind::oracle:
      return !network_->route_up(channel, from, self_);
    case FailureDetector::Kind::misses:
      if (channel.misses < detector.misses) return false;
      // Suspected: one receive in `probe` waits in full, to notice that the sender is back.
      return ++channel.suspected_receives % detector.probe != 0;
  }
  return false;
}

// Settles item `seq` of the channel: with what the sender announced for it, or, on a network that can fail,
// with `missing` at the receive's deadline. A comm still running at the deadline is cancelled by SimGrid for
// both sides, so its sender learns it was not delivered. Without failures the deadline is infinite, nothing
// is missing, and the same SimGrid calls wait for the item (Mailbox::get() is get_async() then wait()).
Received SimPort::receive_or_miss(std::size_t from) {
  check_peer(from, "receive");
  settle();
  Channel& channel = network_->channel(from, self_);
  const std::uint64_t seq = channel.received;
  // Late messages kept: a receive that gives up before its item arrived leaves it unsettled, for the next.
  const bool keep = lossy() && network_->keeps_late_messages();
  // Item seq counts as settled only when this receive returns: a send made while it waits is announced.
  struct Settle {
    Channel& channel;
    std::uint64_t seq;
    bool settles = true;
    ~Settle() {
      if (settles) channel.received = seq + 1;
    }
  } settle_on_return{channel, seq};
  const double start = s4u::Engine::get_clock();
  // The timeline's span of this receive, from here to the return.
  struct Record {
    SimPort& port;
    double start;
    std::size_t from;
    ~Record() { port.record(Span::Kind::receive, start, from); }
  } record_on_return{*this, start, from};
  // A receive the failure detector gives up on still takes an item that is already there.
  const bool at_once = gives_up_at_once(channel, from);
  const double deadline = start + (at_once ? 0.0 : network_->receive_timeout());
  // Simulated seconds left until the deadline; -1: no deadline (SimGrid's "forever").
  const auto remaining = [this, deadline] {
    return lossy() ? std::max(0.0, deadline - s4u::Engine::get_clock()) : -1.0;
  };
  // Buffers of older items are dead (their comms failed or were cancelled): free them.
  while (!channel.in_flight.empty() && channel.in_flight.front()->seq < seq) channel.in_flight.pop_front();
  const auto missing = [this, &channel] {
    counters_.timed_out += 1;
    channel.misses += 1;
    waiting_ = {};
    return Received{Received::Status::missing, {}};
  };
  // The receive gave up on an item that may still come: with late messages kept, the next receive waits on.
  const auto late = [&] {
    if (keep) settle_on_return.settles = false;
    return missing();
  };
  const auto delivered = [&channel] { channel.misses = channel.suspected_receives = 0; };
  waiting_ = {"receive from", from};
  if (!channel.kept) {
    if (!await_announcement(channel, remaining(), !keep)) return late();
    const bool is_message = channel.is_message.front();
    channel.is_message.pop_front();
    if (!is_message) {
      delivered();
      waiting_ = {};
      return {Received::Status::silence, {}};
    }
    if (channel.early && channel.early->seq == seq) {
      delivered();
      Received received{Received::Status::message, std::move(channel.early->bytes)};
      channel.early.reset();
      waiting_ = {};
      return received;
    }
  }
  for (;;) {
    Envelope* arrived = nullptr;
    s4u::CommPtr comm;
    if (channel.kept) {
      comm = std::move(channel.kept);  // the item's receive a previous receive gave up on, still posted
      channel.kept = nullptr;
    } else {
      channel.arriving = nullptr;
      comm = channel.mailbox->get_async<Envelope>(keep ? &channel.arriving : &arrived);
    }
    try {
      if (keep) {
        // Waiting on it as one of any leaves it running at the deadline (wait_for would cancel it).
        if (s4u::Comm::wait_any_for({comm}, remaining()) < 0) {
          channel.kept = comm;
          return late();
        }
        arrived = channel.arriving;
      } else {
        comm->wait_for(remaining());
      }
    } catch (const simgrid::TimeoutException&) {
      if (!lossy()) throw;
      return missing();  // the comm is cancelled
    } catch (const simgrid::Exception&) {
      if (!lossy()) throw;
      // The link failed under the message. SimGrid tells both ends at once, but nothing tells a real
      // receiver: it finds out when its timeout expires (unless an oracle detector tells it).
      if (network_->failure_detector().kind != FailureDetector::Kind::oracle)
        s4u::this_actor::sleep_until(deadline);
      return missing();
    }
    auto it = channel.in_flight.begin();
    while (it != channel.in_flight.end() && it->get() != arrived) ++it;
    if (it == channel.in_flight.end())
      throw std::logic_error("unknown message on channel " + std::to_string(from) + ">" +
                             std::to_string(self_));
    // Without failures, mailboxes are FIFO per sender: the comm delivers the oldest buffer in flight.
    if (!lossy() && it != channel.in_flight.begin())
      throw std::logic_error("message order broken on channel " + std::to_string(from) + ">" +
                             std::to_string(self_));
    std::unique_ptr<Envelope> envelope = std::move(*it);
    channel.in_flight.erase(it);
    if (envelope->seq < seq) continue;  // an older item, already given up on
    if (envelope->seq > seq) {
      // Item seq failed on the way and its comm left the mailbox; this one is the next item's.
      channel.early = std::move(envelope);
      return missing();
    }
    delivered();
    waiting_ = {};
    return {Received::Status::message, std::move(envelope->bytes)};
  }
}

void SimPort::request(std::size_t to, Bytes bytes) {
  check_peer(to, "request");
  settle();
  RequestBox& box = network_->requests(to);
  const std::uint64_t size = network_->wire_size(bytes.size());
  counters_.payload_bytes += bytes.size();
  counters_.wire_bytes += size;
  counters_.messages += 1;
  box.in_flight.push_back(std::make_unique<Request>(Request{self_, std::move(bytes)}));
  pending_.push_back(box.mailbox->put_async(box.in_flight.back().get(), simulated_size(size)));
  track_send(to, size);
}

std::pair<std::size_t, Bytes> ServerPort::receive_request() {
  settle();
  RequestBox& box = network_->requests(self_);
  waiting_ = {"receive_request", 0};
  const double start = s4u::Engine::get_clock();
  const Request* arrived = nullptr;
  while (!arrived) {
    try {
      arrived = box.mailbox->get<Request>();
    } catch (const simgrid::Exception&) {
      // A request that failed on the way reached nobody (its sender learns it from wait_sends()); its buffer
      // stays in the box until the run ends. Only networks that can fail get here.
      if (!lossy()) throw;
    }
  }
  waiting_ = {};
  record(Span::Kind::wait_request, start);
  // Requests from different senders may arrive out of their sending order: find this one.
  for (auto it = box.in_flight.begin(); it != box.in_flight.end(); ++it) {
    if (it->get() != arrived) continue;
    std::pair<std::size_t, Bytes> request{(*it)->from, std::move((*it)->bytes)};
    box.in_flight.erase(it);
    return request;
  }
  throw std::logic_error("node " + std::to_string(self_) + "'s server received an unknown request");
}

std::vector<std::size_t> SimPort::wait_sends() {
  settle();
  waiting_ = {"wait_sends", 0};
  const double start = s4u::Engine::get_clock();
  std::vector<std::size_t> undelivered = std::move(refused_);
  refused_.clear();
  if (!lossy()) {
    s4u::Comm::wait_all(pending_);
  } else {
    // A send that fails (a link down, cancelled by its receiver's deadline) reached nobody.
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      try {
        pending_[k]->wait();
      } catch (const simgrid::Exception&) {
        undelivered.push_back(pending_to_[k]);
      }
    }
  }
  counters_.lost += undelivered.size();
  if (TrafficMeter* meter = network_->meter()) {
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      const s4u::Comm& comm = *pending_[k];
      // A comm that failed or was cancelled has no finish time; it ended by now.
      const double finish = comm.get_finish_time() >= 0 ? comm.get_finish_time() : s4u::Engine::get_clock();
      const double begin = comm.get_start_time() >= 0 ? comm.get_start_time() : pending_put_[k];
      meter->carried(self_, pending_to_[k], pending_bytes_[k], pending_put_[k], begin, finish);
    }
  }
  pending_.clear();
  pending_to_.clear();
  pending_bytes_.clear();
  pending_put_.clear();
  waiting_ = {};
  if (s4u::Engine::get_clock() > start) record(Span::Kind::wait_sends, start);
  return undelivered;
}

double SimPort::nominal_speed() const {
  const s4u::Host* host = s4u::this_actor::get_host();
  return host->get_pstate_speed(host->get_pstate());
}

void SimPort::charge(std::span<const protocols::Charge> terms) {
  if (terms.empty()) return;
  const protocols::PriceTable& prices = network_->prices();
  const protocols::Work work = prices.work(terms.front().price);
  double seconds = 0;
  for (const protocols::Charge& term : terms) {
    if (prices.work(term.price) != work)
      throw std::logic_error("node " + std::to_string(self_) + " charged several kinds of work as one");
    seconds += prices.seconds(term, nominal_speed());
  }
  if (seconds <= 0) return;
  owed_[static_cast<std::size_t>(work)] += seconds;
  owed_total_ += seconds;
}

// One execution for all the work owed since the last interaction: the same simulated times as one execution
// per piece (work is conserved), with a fraction of the context switches. The elapsed time is split among the
// kinds of work in proportion to what each owed (exact at constant host speed).
void SimPort::settle() {
  if (const EventBudget* budget = network_->event_budget(); budget && !budget->exceeded.empty())
    throw InputError("$.network.dynamics, $.compute.stragglers: the time profiles changed more than " +
                     std::to_string(budget->limit) + " times by simulated time " +
                     std::to_string(budget->at) + " s (first over: " + budget->exceeded +
                     "): profiles this fast would take hours to simulate; make their periods, means, mttf "
                     "and mttr longer");
  if (owed_total_ <= 0) return;
  const double start = s4u::Engine::get_clock();
  s4u::this_actor::execute(owed_total_ * nominal_speed());
  const double elapsed = s4u::Engine::get_clock() - start;
  double begin = start;  // the timeline shows the kinds one after the other, in Work order
  for (std::size_t w = 0; w < protocols::work_kinds; ++w) {
    if (owed_[w] > 0) {
      const double seconds = owed_[w] == owed_total_ ? elapsed : elapsed * (owed_[w] / owed_total_);
      counters_.work_s[w] += seconds;
      record(Span::Kind::work, begin, 0, static_cast<std::uint8_t>(w), begin + seconds);
      begin += seconds;
    }
  }
  if (background_running()) own_work_.emplace_back(start, start + elapsed);
  owed_ = {};
  owed_total_ = 0;
}

void SimPort::start_background(std::span<const protocols::Charge> pieces) {
  settle();
  if (background_running())
    throw std::logic_error("node " + std::to_string(self_) +
                           " started background work before awaiting the previous one");
  auto background = std::make_shared<Background>();
  background->done = s4u::Semaphore::create(0);
  const protocols::PriceTable& prices = network_->prices();
  const double speed = nominal_speed();
  for (const protocols::Charge& piece : pieces) {
    background->flops.push_back(prices.seconds(piece, speed) * speed);
    background->work.push_back(static_cast<std::uint8_t>(prices.work(piece.price)));
  }
  background->start.assign(pieces.size(), 0.0);
  background->elapsed.assign(pieces.size(), 0.0);
  background_ = background;
  own_work_.clear();
  own_awaits_.clear();
  if (pieces.empty()) return;
  TrafficMeter* meter = network_->meter();
  const auto self = static_cast<std::uint32_t>(self_);
  // Its spans go on the node's second timeline thread, as a server's do.
  s4u::Actor::create("background-" + std::to_string(self_), s4u::this_actor::get_host(),
                     [background, meter, self] {
                       for (std::size_t k = 0; k < background->flops.size(); ++k) {
                         const double start = s4u::Engine::get_clock();
                         if (background->flops[k] > 0) s4u::this_actor::execute(background->flops[k]);
                         const double end = s4u::Engine::get_clock();
                         background->start[k] = start;
                         background->elapsed[k] = end - start;
                         if (meter && meter->timeline()) {
                           Span span;
                           span.kind = Span::Kind::work;
                           span.start = start;
                           span.end = end;
                           span.node = self;
                           span.work = background->work[k];
                           span.server = true;
                           meter->span(span);
                         }
                         background->done->release();
                       }
                     });
}

void SimPort::await_background(std::size_t count) {
  settle();
  if (!background_ || count > background_->flops.size())
    throw std::logic_error("node " + std::to_string(self_) + " awaited background work it did not start");
  Background& background = *background_;
  waiting_ = {"await_background", 0};
  const double start = s4u::Engine::get_clock();
  const std::size_t first = background.awaited;
  for (; background.awaited < count; ++background.awaited) {
    background.done->acquire();
    counters_.work_s[background.work[background.awaited]] += background.elapsed[background.awaited];
  }
  waiting_ = {};
  own_awaits_.emplace_back(start, s4u::Engine::get_clock());
  // The pieces just awaited are over, and so is everything this thread did while they ran: split each
  // piece's time into what overlapped this thread's work, its awaiting, and the rest (the network).
  const auto overlap = [](const Interval& piece, const std::vector<Interval>& spans) {
    double sum = 0;
    for (const Interval& span : spans)
      sum += std::max(0.0, std::min(piece.second, span.second) - std::max(piece.first, span.first));
    return sum;
  };
  for (std::size_t k = first; k < count; ++k) {
    const Interval piece{background.start[k], background.start[k] + background.elapsed[k]};
    const double concurrent = overlap(piece, own_work_);
    counters_.concurrent_work_s += concurrent;
    counters_.hidden_s += std::max(0.0, background.elapsed[k] - concurrent - overlap(piece, own_awaits_));
  }
}

double SimPort::now() {
  settle();
  return s4u::Engine::get_clock();
}

// A simcall answered at once: every other actor ready now runs up to its next simcall, then this one resumes
// at the same simulated time. The owed work stays owed, so the timing is that of a port without the call.
void SimPort::let_others_run() {
  s4u::this_actor::yield();
}

}  // namespace sgdsim::sim
