#pragma once
// A real network on this host (docs/validation.md): one Linux network namespace per node, a veth pair per
// physical link between the namespaces of its two ends, addresses only on those interfaces, and each end's
// egress shaped to the link's bandwidth by a `tc` qdisc (tbf or htb; this kernel has no netem, so no
// latency is added). Everything is named after a prefix of this process (sgdsim-PID-...), built with `ip` and
// `tc`, and torn down by the destructor: deleting a namespace deletes its veth ends, their peers and their
// qdiscs. Nothing is ever created in the host's own namespace.
#include <cstddef>
#include <string>
#include <vector>

namespace sgdsim::emulation {

// One point-to-point link: its ends (nodes) and its rate in bytes per second, each direction.
struct PlannedLink {
  std::size_t a = 0, b = 0;
  double bandwidth = 0;
};

// How a link end's egress is shaped to the link's rate:
// * "htb-ack" (the default): an htb class at the rate in which small TCP segments (IP packets under 256
//   bytes: ACKs, SYNs) leave before bulk data, as Linux's default fq_codel serves sparse flows first. With
//   one FIFO, the ACKs of a link's reverse flow wait behind up to its whole queue of data, and both
//   directions of a link in use at once (D-PSGD) ran 10–40 % below the rate (docs/validation.md).
// * "tbf": a token bucket (a millisecond of burst) with one FIFO of 200 ms.
// * "htb": one htb class at the rate, one FIFO.
inline const std::vector<std::string> qdisc_kinds = {"htb-ack", "tbf", "htb"};

struct FabricOptions {
  std::string qdisc = qdisc_kinds.front();
};

// Where a link's end lives: its namespace, interface and address.
struct LinkEnd {
  std::string netns;
  std::string interface;
  std::string address;  // dotted quad, no prefix length
};

// The plan, without touching the system (tested without root): names, addresses and the commands.
// Point-to-point: a veth pair per link, each end with an address of the link's /30. Switched: one more
// namespace (the switch, named PREFIX + "sw") holding a Linux bridge; link k is node k's NIC, a veth pair
// from the node's namespace to a port of the bridge, each direction shaped to the NIC's rate (the node's
// egress on its end, the switch's toward the node on the port); every node has one address of 10.128.0.0/9.
class FabricPlan {
 public:
  FabricPlan(std::string prefix, std::size_t nodes, std::vector<PlannedLink> links, FabricOptions options);
  // A switch: link k joins node k (a) to the switch (b = nodes); `nic_bandwidth[k]` its rate.
  static FabricPlan switched(std::string prefix, const std::vector<double>& nic_bandwidth,
                             FabricOptions options);
  bool is_switched() const { return switched_; }
  std::string netns(std::size_t node) const;  // node == nodes(): the switch's (switched plans)
  // End `side` (0: a, 1: b) of link `link` (a switch port has no address).
  LinkEnd end(std::size_t link, int side) const;
  // The address `to` listens on for `from`: its end of the link between them, or its NIC's on a switch.
  // InputError when a point-to-point plan has no link between them (the emulated network does not forward).
  std::string address_for(std::size_t from, std::size_t to) const;
  const std::vector<PlannedLink>& links() const { return links_; }
  std::size_t nodes() const { return nodes_; }
  // Every command that builds the fabric, in order (each an argv).
  std::vector<std::vector<std::string>> setup() const;
  const FabricOptions& options() const { return options_; }

 private:
  std::string prefix_;
  std::size_t nodes_;
  std::vector<PlannedLink> links_;
  FabricOptions options_;
  bool switched_ = false;
};

// `tc`'s spelling of a rate in bits per second, e.g. "100000000bit".
std::string tc_rate(double bytes_per_second);
// The tbf bucket for a rate: a millisecond of traffic, at least 4 KiB (several full-size frames).
std::size_t tbf_burst_bytes(double bytes_per_second);

// Refuses (InputError, exit 2) unless this process is root and `ip` and `tc` are on PATH.
void require_network_tools();

class Fabric {
 public:
  // Builds the plan's fabric; on any failure, tears down what it made and throws std::runtime_error with the
  // failing command and its output.
  explicit Fabric(FabricPlan plan);
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;
  ~Fabric();
  const FabricPlan& plan() const { return plan_; }
  // A file descriptor of node's namespace (for setns), owned by the caller.
  int open_netns(std::size_t node) const;
  // `tc -s qdisc show` of one link end, for the record.
  std::string qdisc_report(std::size_t link, int side) const;
  // Deletes every namespace it made (idempotent).
  void teardown();

 private:
  FabricPlan plan_;
  std::vector<std::string> created_;  // namespaces, in creation order
};

// The running kernel's release (uname -r).
std::string kernel_release();

}  // namespace sgdsim::emulation
