#pragma once
// protocols::Port over real TCP connections: a node's recorded sends become writes of that many filler bytes
// on its persistent connection to the destination (one per pair of nodes, both directions, TCP_NODELAY, as
// Gloo and NCCL's socket transport keep them), done by one writer thread per connection so that sends
// complete in the background as the port promises; receives read exactly the bytes the sender's schedule
// says come next (the stream needs no framing); charged work is replayed as a wait of its priced duration
// (or skipped); a reader thread per connection takes in what arrives meanwhile. The clock is the wall clock
// since a start shared by every node.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "emulation/replay.hpp"

namespace sgdsim::emulation {

using Clock = std::chrono::steady_clock;

// Writes queued message sizes of filler to one socket, in order, on its own thread.
class Writer {
 public:
  explicit Writer(int fd);
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer();
  void push(std::uint64_t bytes);
  // Waits until everything pushed is written; throws std::runtime_error when the connection failed.
  void wait();

 private:
  void loop();
  int fd_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::uint64_t> queue_;
  std::uint64_t pushed_ = 0, written_ = 0;
  bool closing_ = false;
  std::string error_;
  std::thread thread_;
};

// Reads everything that arrives on one socket as it arrives, on its own thread, as a receive posted for
// every message at once would (Gloo's and MPI's posted receives; SimGrid matches a message to its receive
// whatever the order the receiver asks in). Without it, a node reading its neighbours one after the other
// would let the others' messages fill their receive buffers and stall their senders.
class Reader {
 public:
  explicit Reader(int fd);
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader();
  // Waits until `total` bytes have arrived since the start; throws std::runtime_error when the connection
  // ended first.
  void wait_for(std::uint64_t total);

 private:
  void loop();
  int fd_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t received_ = 0;
  std::string error_;
  std::thread thread_;
};

// How charged work is replayed: as waits priced by `prices` at `host_speed`, or (null prices) not at all.
struct ComputeReplay {
  const protocols::PriceTable* prices = nullptr;
  double host_speed = 0;
};

class SocketPort final : public protocols::Port {
 public:
  // `sockets`: peer -> connected socket (borrowed); `incoming[from]`: what each peer sends this node.
  SocketPort(std::size_t self, std::map<std::size_t, int> sockets, const std::vector<Deliveries>& incoming,
             ComputeReplay compute, Clock::time_point start);
  // Waits for its writers, then stops its readers (closing the reading side of its sockets).
  ~SocketPort() override;
  std::size_t self() const override { return self_; }
  void send(std::size_t to, protocols::Bytes bytes) override;
  void send_silence(std::size_t) override {}
  protocols::Received receive_or_miss(std::size_t from) override;
  std::vector<std::size_t> wait_sends() override;
  void charge(std::span<const protocols::Charge> terms) override;
  double now() override;
  const protocols::Counters& counters() const override { return counters_; }

 private:
  void execute();  // waits out the work charged so far
  int socket(std::size_t peer) const;
  std::size_t self_;
  std::map<std::size_t, int> sockets_;
  std::map<std::size_t, std::unique_ptr<Writer>> writers_;
  std::map<std::size_t, std::unique_ptr<Reader>> readers_;
  std::vector<std::uint64_t> expected_;  // per source, the bytes of the messages received so far
  const std::vector<Deliveries>& incoming_;
  std::vector<std::size_t> next_;  // per source, the next delivery
  ComputeReplay compute_;
  Clock::time_point start_;
  std::array<double, protocols::work_kinds> pending_{};  // charged seconds not yet waited, by kind
  protocols::Counters counters_;
};

}  // namespace sgdsim::emulation
