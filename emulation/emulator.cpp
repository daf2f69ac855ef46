#include "emulation/emulator.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "common/error.hpp"
#include "emulation/replay.hpp"

namespace sgdsim::emulation {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("emulate: " + what + ": " + std::strerror(errno));
}

// Closes its descriptors when it goes.
struct Descriptors {
  std::vector<int> fds;
  ~Descriptors() {
    for (int fd : fds) close(fd);
  }
  int keep(int fd) {
    fds.push_back(fd);
    return fd;
  }
  // Wakes every blocked reader and writer: their calls return at once with an error or end of stream.
  void shut() {
    for (int fd : fds) shutdown(fd, SHUT_RDWR);
  }
};

// Makes this thread's new sockets in `netns_fd`'s namespace.
void enter(int netns_fd) {
  if (setns(netns_fd, CLONE_NEWNET) != 0) fail("setns");
}

sockaddr_in socket_address(const std::string& dotted, std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  if (inet_pton(AF_INET, dotted.c_str(), &address.sin_addr) != 1)
    throw std::logic_error("bad address " + dotted);
  return address;
}

void no_delay(int fd) {
  const int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) fail("TCP_NODELAY");
}

}  // namespace

std::vector<std::vector<protocols::NodeStats>> emulate(const observation::Schedule& schedule,
                                                       const Fabric& fabric, ComputeReplay compute,
                                                       Watch& watch) {
  const std::size_t nodes = schedule.nodes.size();
  const FabricPlan& plan = fabric.plan();
  const auto pairs = talking_pairs(schedule);
  std::vector<std::string> listening_at;  // b's address for a, per pair
  for (const auto& [a, b] : pairs) listening_at.push_back(plan.address_for(a, b));

  Descriptors namespaces, sockets;
  std::vector<int> netns(nodes);
  for (std::size_t node = 0; node < nodes; ++node) netns[node] = namespaces.keep(fabric.open_netns(node));
  std::vector<std::map<std::size_t, int>> connections(nodes);
  {
    // This thread visits the namespaces to make the sockets there (a socket stays in the namespace it was
    // made in), then returns to its own.
    const int home = namespaces.keep(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
    if (home < 0) fail("open /proc/self/ns/net");
    try {
      for (std::size_t p = 0; p < pairs.size(); ++p) {
        const auto [a, b] = pairs[p];
        enter(netns[b]);
        const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (listener < 0) fail("socket");
        Descriptors listening;
        listening.keep(listener);
        sockaddr_in address = socket_address(listening_at[p], 0);
        if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
          fail("bind " + listening_at[p]);
        if (listen(listener, 1) != 0) fail("listen");
        socklen_t length = sizeof address;
        if (getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) fail("getsockname");
        enter(netns[a]);
        const int client = sockets.keep(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (client < 0) fail("socket");
        if (connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
          fail("connect to " + listening_at[p]);
        const int server = sockets.keep(accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
        if (server < 0) fail("accept");
        no_delay(client);
        no_delay(server);
        connections[a][b] = client;
        connections[b][a] = server;
        watch.check();
      }
    } catch (...) {
      setns(home, CLONE_NEWNET);
      throw;
    }
    enter(home);
  }

  const auto incoming_all = deliveries(schedule);
  std::vector<std::vector<Deliveries>> incoming(nodes, std::vector<Deliveries>(nodes));
  for (std::size_t from = 0; from < nodes; ++from)
    for (std::size_t to = 0; to < nodes; ++to) incoming[to][from] = incoming_all[from][to];

  std::vector<std::vector<protocols::NodeStats>> markers(nodes);
  std::mutex failure_mutex;
  std::exception_ptr failure;
  std::string failed_node;
  watch.on_signal([&sockets] { sockets.shut(); });
  // Every node starts at the same instant, once every thread exists.
  const Clock::time_point start = Clock::now() + std::chrono::milliseconds(20 + 2 * nodes);
  {
    std::vector<std::thread> threads;
    threads.reserve(nodes);
    for (std::size_t node = 0; node < nodes; ++node) {
      threads.emplace_back([&, node] {
        prctl(PR_SET_TIMERSLACK, 1UL);  // waits of a few microseconds stay that short
        std::unique_ptr<SocketPort> port;
        try {
          port = std::make_unique<SocketPort>(node, connections[node], incoming[node], compute, start);
          std::this_thread::sleep_until(start);
          markers[node] = replay_node(schedule.nodes[node], *port, compute.prices != nullptr);
          port->wait_sends();
        } catch (...) {
          std::lock_guard lock(failure_mutex);
          if (!failure) {
            failure = std::current_exception();
            failed_node = std::to_string(node);
          }
          sockets.shut();  // first: the port's writers may be blocked on a peer that stopped reading
        }
        port.reset();
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  watch.on_signal({});
  watch.check();
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw std::runtime_error("emulate: node " + failed_node + ": " + e.what());
    }
  }
  return markers;
}

}  // namespace sgdsim::emulation
