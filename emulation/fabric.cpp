#include "emulation/fabric.hpp"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "common/child_process.hpp"
#include "common/error.hpp"

namespace sgdsim::emulation {

namespace {

// Link k's ends get the two usable addresses of the k-th /30 of 10.0.0.0/8 (2^22 links at most).
std::string address(std::size_t link, int side) {
  const std::uint32_t host =
      (10u << 24) + 4u * static_cast<std::uint32_t>(link) + 1u + static_cast<std::uint32_t>(side);
  return std::to_string(host >> 24) + "." + std::to_string((host >> 16) & 255) + "." +
         std::to_string((host >> 8) & 255) + "." + std::to_string(host & 255);
}

// Node `node`'s address on a switch: 10.128.0.0/9, from .1 (2^23 - 2 nodes at most).
std::string switched_address(std::size_t node) {
  const std::uint32_t host = (10u << 24) + (128u << 16) + static_cast<std::uint32_t>(node) + 1u;
  return std::to_string(host >> 24) + "." + std::to_string((host >> 16) & 255) + "." +
         std::to_string((host >> 8) & 255) + "." + std::to_string(host & 255);
}

constexpr const char* bridge = "br0";

process::Exit run(const std::vector<std::string>& command) {
  process::Options options;
  options.output = process::Output::capture;
  options.null_stdin = true;
  process::Child child = process::spawn(command, options);
  return process::wait(child);
}

std::string joined(const std::vector<std::string>& command) {
  std::string text;
  for (const std::string& word : command) text += (text.empty() ? "" : " ") + word;
  return text;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string rest = path ? path : "";
  std::size_t start = 0;
  while (start <= rest.size()) {
    const std::size_t end = std::min(rest.find(':', start), rest.size());
    const std::filesystem::path candidate = std::filesystem::path(rest.substr(start, end - start)) / program;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

FabricPlan::FabricPlan(std::string prefix, std::size_t nodes, std::vector<PlannedLink> links,
                       FabricOptions options)
    : prefix_(std::move(prefix)), nodes_(nodes), links_(std::move(links)), options_(std::move(options)) {
  if (std::find(qdisc_kinds.begin(), qdisc_kinds.end(), options_.qdisc) == qdisc_kinds.end())
    throw InputError("--qdisc " + options_.qdisc + ": expected htb-ack, tbf or htb");
  if (links_.size() >= (std::size_t{1} << 22)) throw InputError("too many links to emulate");
}

FabricPlan FabricPlan::switched(std::string prefix, const std::vector<double>& nic_bandwidth,
                                FabricOptions options) {
  const std::size_t nodes = nic_bandwidth.size();
  if (nodes >= (std::size_t{1} << 23) - 1) throw InputError("too many nodes to emulate on a switch");
  std::vector<PlannedLink> links;
  for (std::size_t k = 0; k < nodes; ++k) links.push_back({k, nodes, nic_bandwidth[k]});
  FabricPlan plan(std::move(prefix), nodes, std::move(links), std::move(options));
  plan.switched_ = true;
  return plan;
}

std::string FabricPlan::netns(std::size_t node) const {
  if (switched_ && node == nodes_) return prefix_ + "sw";
  return prefix_ + std::to_string(node);
}

std::string FabricPlan::address_for(std::size_t from, std::size_t to) const {
  if (switched_) return switched_address(to);
  for (std::size_t k = 0; k < links_.size(); ++k) {
    const PlannedLink& l = links_[k];
    if ((l.a == from && l.b == to) || (l.a == to && l.b == from)) return end(k, l.b == to ? 1 : 0).address;
  }
  throw InputError(
      "emulate: nodes " + std::to_string(from) + " and " + std::to_string(to) +
      " exchange messages but no physical link joins them; the emulated network carries messages "
      "between neighbours only (it does not forward)");
}

LinkEnd FabricPlan::end(std::size_t link, int side) const {
  const PlannedLink& l = links_.at(link);
  if (switched_) {
    // The node's NIC ("sw" toward the switch), or the bridge's port toward node a.
    if (side == 0) return {netns(l.a), "sw", switched_address(l.a)};
    std::string port = "p";
    port += std::to_string(l.a);
    return {netns(nodes_), port, ""};
  }
  const std::size_t self = side == 0 ? l.a : l.b, peer = side == 0 ? l.b : l.a;
  std::string interface = "p";  // (appended, not added to a literal: GCC 12 warns about the latter wrongly)
  interface += std::to_string(peer);
  return {netns(self), interface, address(link, side)};
}

std::string tc_rate(double bytes_per_second) {
  return std::to_string(static_cast<std::uint64_t>(std::llround(bytes_per_second * 8))) + "bit";
}

std::size_t tbf_burst_bytes(double bytes_per_second) {
  return std::max<std::size_t>(4096, static_cast<std::size_t>(bytes_per_second / 1000));
}

std::vector<std::vector<std::string>> FabricPlan::setup() const {
  std::vector<std::vector<std::string>> commands;
  for (std::size_t node = 0; node < nodes_ + (switched_ ? 1 : 0); ++node) {
    commands.push_back({"ip", "netns", "add", netns(node)});
    commands.push_back({"ip", "-n", netns(node), "link", "set", "lo", "up"});
  }
  if (switched_) {
    commands.push_back({"ip", "-n", netns(nodes_), "link", "add", bridge, "type", "bridge"});
    commands.push_back({"ip", "-n", netns(nodes_), "link", "set", bridge, "up"});
  }
  for (std::size_t k = 0; k < links_.size(); ++k) {
    const LinkEnd a = end(k, 0), b = end(k, 1);
    // Made inside a's namespace with its peer in b's: never in the host's.
    commands.push_back({"ip", "-n", a.netns, "link", "add", a.interface, "type", "veth", "peer", "name",
                        b.interface, "netns", b.netns});
    if (switched_) commands.push_back({"ip", "-n", b.netns, "link", "set", b.interface, "master", bridge});
    for (const LinkEnd& e : {a, b}) {
      if (!e.address.empty())
        commands.push_back(
            {"ip", "-n", e.netns, "addr", "add", e.address + (switched_ ? "/9" : "/30"), "dev", e.interface});
      const std::string rate = tc_rate(links_[k].bandwidth);
      if (options_.qdisc == "tbf") {
        commands.push_back({"tc", "-n", e.netns, "qdisc", "add", "dev", e.interface, "root", "tbf", "rate",
                            rate, "burst", std::to_string(tbf_burst_bytes(links_[k].bandwidth)), "latency",
                            "200ms"});
      } else if (options_.qdisc == "htb") {
        commands.push_back({"tc", "-n", e.netns, "qdisc", "add", "dev", e.interface, "root", "handle",
                            "1:", "htb", "default", "1"});
        commands.push_back({"tc", "-n", e.netns, "class", "add", "dev", e.interface, "parent",
                            "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate});
      } else {
        // htb-ack: the link's rate in 1:1, shared by small TCP segments (1:10, served first) and the rest
        // (1:20, the default); the filter matches TCP over IPv4 without options and under 256 bytes.
        commands.push_back({"tc", "-n", e.netns, "qdisc", "add", "dev", e.interface, "root", "handle",
                            "1:", "htb", "default", "20"});
        commands.push_back({"tc", "-n", e.netns, "class", "add", "dev", e.interface, "parent",
                            "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate});
        commands.push_back({"tc", "-n", e.netns, "class", "add", "dev", e.interface, "parent", "1:1",
                            "classid", "1:10", "htb", "rate", tc_rate(links_[k].bandwidth / 50), "ceil", rate,
                            "prio", "0"});
        commands.push_back({"tc", "-n", e.netns, "class", "add", "dev", e.interface, "parent", "1:1",
                            "classid", "1:20", "htb", "rate", rate, "ceil", rate, "prio", "1"});
        commands.push_back({"tc",     "-n",   e.netns,    "filter", "add",   "dev",   e.interface,
                            "parent", "1:",   "protocol", "ip",     "prio",  "1",     "u32",
                            "match",  "ip",   "protocol", "6",      "0xff",  "match", "u8",
                            "0x05",   "0x0f", "at",       "0",      "match", "u16",   "0x0000",
                            "0xff00", "at",   "2",        "flowid", "1:10"});
      }
      commands.push_back({"ip", "-n", e.netns, "link", "set", e.interface, "up"});
    }
  }
  return commands;
}

void require_network_tools() {
  if (geteuid() != 0)
    throw InputError("emulate: needs root (it creates network namespaces, veth pairs and tc qdiscs)");
  for (const char* program : {"ip", "tc"})
    if (!on_path(program))
      throw InputError(std::string("emulate: `") + program +
                       "` is not on PATH (Debian: apt-get install iproute2)");
}

Fabric::Fabric(FabricPlan plan) : plan_(std::move(plan)) {
  try {
    for (const auto& command : plan_.setup()) {
      const process::Exit exit = run(command);
      if (!exit.ok()) throw std::runtime_error("emulate: `" + joined(command) + "` failed: " + exit.output);
      if (command.size() == 4 && command[1] == "netns" && command[2] == "add") created_.push_back(command[3]);
    }
  } catch (...) {
    teardown();
    throw;
  }
}

Fabric::~Fabric() {
  teardown();
}

void Fabric::teardown() {
  // Newest first; a namespace that will not go is reported, not hidden, but the rest still go.
  while (!created_.empty()) {
    const std::string name = created_.back();
    created_.pop_back();
    const process::Exit exit = run({"ip", "netns", "del", name});
    if (!exit.ok())
      std::fprintf(stderr, "sgdsim: emulate: cannot delete namespace %s: %s", name.c_str(),
                   exit.output.c_str());
  }
}

int Fabric::open_netns(std::size_t node) const {
  const std::string path = "/run/netns/" + plan_.netns(node);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("emulate: cannot open " + path);
  return fd;
}

std::string Fabric::qdisc_report(std::size_t link, int side) const {
  const LinkEnd e = plan_.end(link, side);
  const process::Exit exit = run({"tc", "-n", e.netns, "-s", "qdisc", "show", "dev", e.interface});
  return exit.output;
}

std::string kernel_release() {
  utsname name{};
  if (uname(&name) != 0) return "unknown";
  return std::string(name.sysname) + " " + name.release;
}

}  // namespace sgdsim::emulation
