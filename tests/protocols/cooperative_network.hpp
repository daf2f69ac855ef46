#pragma once
// Runs a protocol's nodes without SimGrid: one thread per node, but only one runs at a time and control
// passes only inside receive(), exactly the interleaving guarantee that protocols rely on under SimGrid. No
// simulated time; byte counters only. Lets protocol logic be tested in-process.
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::testing {

class CooperativeNetwork {
 public:
  explicit CooperativeNetwork(std::size_t nodes) : ports_() {
    for (std::size_t i = 0; i < nodes; ++i) ports_.emplace_back(*this, i);
  }

  void run(protocols::Protocol& protocol) {
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(ports_.size());
    for (std::size_t i = 0; i < ports_.size(); ++i) {
      threads.emplace_back([&, i] {
        std::unique_lock<std::mutex> lock(baton_);
        try {
          protocol.run(i, ports_[i]);
        } catch (...) {
          errors[i] = std::current_exception();
          failed_ = true;
        }
        changed_.notify_all();
      });
    }
    for (auto& t : threads) t.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    protocol.finish();
  }

  const protocols::Counters& counters(std::size_t node) const { return ports_[node].counters_; }
  // Every (sender, receiver) pair that carried a message.
  const std::set<std::pair<std::size_t, std::size_t>>& pairs() const { return pairs_; }

 private:
  class LocalPort : public protocols::Port {
   public:
    LocalPort(CooperativeNetwork& network, std::size_t self) : network_(&network), self_(self) {}
    std::size_t self() const override { return self_; }
    void send(std::size_t to, protocols::Bytes bytes) override {
      counters_.payload_bytes += bytes.size();
      counters_.wire_bytes += bytes.size();
      counters_.messages += 1;
      network_->pairs_.insert({self_, to});
      network_->queues_[{self_, to}].push_back({protocols::Received::Status::message, std::move(bytes)});
      network_->changed_.notify_all();
    }
    void send_silence(std::size_t to) override {
      network_->queues_[{self_, to}].push_back({protocols::Received::Status::silence, {}});
      network_->changed_.notify_all();
    }
    protocols::Received receive_or_miss(std::size_t from) override {
      auto& queue = network_->queues_[{from, self_}];
      // The caller holds the baton; waiting hands it to another node.
      std::unique_lock<std::mutex> lock(network_->baton_, std::adopt_lock);
      network_->changed_.wait(lock, [&] { return !queue.empty() || network_->failed_; });
      lock.release();
      if (queue.empty()) throw std::runtime_error("another node failed");
      protocols::Received item = std::move(queue.front());
      queue.pop_front();
      return item;
    }
    std::vector<std::size_t> wait_sends() override { return {}; }
    void charge(std::span<const protocols::Charge>) override {}
    double now() override { return 0; }
    const protocols::Counters& counters() const override { return counters_; }

    CooperativeNetwork* network_;
    std::size_t self_;
    protocols::Counters counters_;
  };

  std::mutex baton_;
  std::condition_variable changed_;
  bool failed_ = false;
  std::map<std::pair<std::size_t, std::size_t>, std::deque<protocols::Received>> queues_;
  std::set<std::pair<std::size_t, std::size_t>> pairs_;
  std::deque<LocalPort> ports_;
};

}  // namespace sgdsim::testing
