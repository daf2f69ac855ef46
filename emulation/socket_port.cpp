#include "emulation/socket_port.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace sgdsim::emulation {

namespace {
constexpr std::size_t chunk = std::size_t{1} << 20;

// A message of zero payload bytes still travels, as one byte, so that it synchronises its ends as SimGrid's
// does (docs/network.md); the counters say 0.
std::uint64_t on_the_wire(std::uint64_t payload) {
  return std::max<std::uint64_t>(payload, 1);
}
}  // namespace

Writer::Writer(int fd) : fd_(fd), thread_([this] { loop(); }) {}

Writer::~Writer() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Writer::push(std::uint64_t bytes) {
  {
    std::lock_guard lock(mutex_);
    if (!error_.empty()) throw std::runtime_error(error_);
    queue_.push_back(bytes);
    ++pushed_;
  }
  changed_.notify_all();
}

void Writer::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return written_ == pushed_ || !error_.empty(); });
  if (!error_.empty()) throw std::runtime_error(error_);
}

void Writer::loop() {
  static const std::vector<std::uint8_t> filler(chunk, 0);
  for (;;) {
    std::uint64_t bytes = 0;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      bytes = queue_.front();
    }
    std::uint64_t left = on_the_wire(bytes);
    while (left > 0) {
      const ssize_t n = ::send(fd_, filler.data(), std::min<std::uint64_t>(left, chunk), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::lock_guard lock(mutex_);
        error_ =
            std::string("a connection failed while sending: ") + (n < 0 ? std::strerror(errno) : "closed");
        queue_.clear();
        changed_.notify_all();
        return;
      }
      left -= static_cast<std::uint64_t>(n);
    }
    {
      std::lock_guard lock(mutex_);
      queue_.pop_front();
      ++written_;
    }
    changed_.notify_all();
  }
}

Reader::Reader(int fd) : fd_(fd), thread_([this] { loop(); }) {}

// The socket is shut down (the run ended or failed) before a reader goes: its recv then returns.
Reader::~Reader() {
  thread_.join();
}

void Reader::loop() {
  std::vector<std::uint8_t> scratch(chunk);
  for (;;) {
    const ssize_t n = ::recv(fd_, scratch.data(), scratch.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard lock(mutex_);
    if (n <= 0) {
      error_ = n < 0 ? std::strerror(errno) : "closed";
      changed_.notify_all();
      return;
    }
    received_ += static_cast<std::uint64_t>(n);
    changed_.notify_all();
  }
}

void Reader::wait_for(std::uint64_t total) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return received_ >= total || !error_.empty(); });
  if (received_ < total) throw std::runtime_error("the connection " + error_);
}

SocketPort::SocketPort(std::size_t self, std::map<std::size_t, int> sockets,
                       const std::vector<Deliveries>& incoming, ComputeReplay compute,
                       Clock::time_point start)
    : self_(self),
      sockets_(std::move(sockets)),
      expected_(incoming.size(), 0),
      incoming_(incoming),
      next_(incoming.size(), 0),
      compute_(compute),
      start_(start) {
  for (const auto& [peer, fd] : sockets_) readers_[peer] = std::make_unique<Reader>(fd);
}

SocketPort::~SocketPort() {
  writers_.clear();
  for (const auto& [peer, fd] : sockets_) shutdown(fd, SHUT_RD);
  readers_.clear();
}

int SocketPort::socket(std::size_t peer) const {
  const auto it = sockets_.find(peer);
  if (it == sockets_.end())
    throw std::logic_error("node " + std::to_string(self_) + " has no connection to node " +
                           std::to_string(peer));
  return it->second;
}

void SocketPort::send(std::size_t to, protocols::Bytes bytes) {
  execute();
  auto& writer = writers_[to];
  if (!writer) writer = std::make_unique<Writer>(socket(to));
  writer->push(bytes.size());
  counters_.payload_bytes += bytes.size();
  counters_.wire_bytes += bytes.size();
  ++counters_.messages;
}

protocols::Received SocketPort::receive_or_miss(std::size_t from) {
  execute();
  const Deliveries& expected = incoming_.at(from);
  std::size_t& next = next_.at(from);
  if (next >= expected.size())
    throw std::logic_error("node " + std::to_string(self_) + " receives more from node " +
                           std::to_string(from) + " than it sends");
  const auto item = expected[next++];
  if (!item) return {protocols::Received::Status::silence, {}};
  socket(from);  // (a connection must exist)
  expected_[from] += on_the_wire(*item);
  try {
    readers_.at(from)->wait_for(expected_[from]);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("node " + std::to_string(self_) + ": the connection from node " +
                             std::to_string(from) + ": " + e.what());
  }
  return {protocols::Received::Status::message, {}};
}

std::vector<std::size_t> SocketPort::wait_sends() {
  execute();
  for (auto& [peer, writer] : writers_) writer->wait();
  return {};
}

void SocketPort::charge(std::span<const protocols::Charge> terms) {
  if (!compute_.prices) return;
  for (const protocols::Charge& term : terms) {
    const auto kind = static_cast<std::size_t>(compute_.prices->work(term.price));
    pending_[kind] += compute_.prices->seconds(term, compute_.host_speed);
  }
}

void SocketPort::execute() {
  double total = 0;
  for (double s : pending_) total += s;
  if (total <= 0) return;
  const Clock::time_point begin = Clock::now();
  std::this_thread::sleep_until(begin + std::chrono::duration<double>(total));
  // The wait as it happened (a sleep overshoots), shared out by kind as charged.
  const double measured = std::chrono::duration<double>(Clock::now() - begin).count();
  for (std::size_t w = 0; w < protocols::work_kinds; ++w) {
    counters_.work_s[w] += measured * pending_[w] / total;
    pending_[w] = 0;
  }
}

double SocketPort::now() {
  execute();
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

}  // namespace sgdsim::emulation
