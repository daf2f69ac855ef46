// The collective kind hierarchical_allreduce: the two-level all-reduce of Horovod's hierarchical mode and of
// NCCL on multi-GPU hosts. Inside each host a ring reduce-scatter leaves device g with shard g of the host's
// sum; device g of every host then all-reduces its shard around a ring of hosts; a ring all-gather inside
// each host gives every device the whole sum. The intra-host fabric carries the whole vector twice, the NICs
// only the shards.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "algorithms/protocols/collective.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {

class HierarchicalAllreduce final : public Collective {
 public:
  bool sends_message() const override { return false; }
  HierarchicalAllreduce(const CollectiveSetup& setup, const compression::FloatFormat& format,
                        std::size_t devices)
      : setup_(setup),
        format_(format),
        prices_(setup, format),
        received_(setup.dimension),
        devices_(devices) {
    if (devices_ == 0 || setup.nodes % devices_ != 0)
      throw std::logic_error("hierarchical_allreduce: nodes not a multiple of the devices per host");
  }

  // Node h·G + g is device g of host h. A ring over `members` (node ids in ring order) of which this node is
  // at `position` works on `v` cut into members.size() near-equal chunks, as ring_allreduce cuts it; every
  // partial sum is rounded to the workers' float format. Each chunk is summed once, by one node, and copied
  // byte for byte to the others, so every node ends with the same floats.
  void average(std::size_t node, const protocols::Bytes&, std::span<const float> own, Rng& rng,
               std::span<float> average, protocols::Port& port) override {
    const std::size_t n = setup_.nodes, hosts = n / devices_;
    const std::size_t host = node / devices_, device = node % devices_;
    std::copy(own.begin(), own.end(), average.begin());
    std::vector<std::size_t> in_host(devices_), across(hosts);
    for (std::size_t g = 0; g < devices_; ++g) in_host[g] = host * devices_ + g;
    for (std::size_t h = 0; h < hosts; ++h) across[h] = h * devices_ + device;
    // After the reduce-scatter, device g holds chunk g + 1 (mod G) of its host's sum: its shard.
    reduce_scatter(average, in_host, device, rng, port);
    const std::span<float> shard = chunk(average, device + 1, devices_);
    reduce_scatter(shard, across, host, rng, port);
    all_gather(shard, across, host, rng, port);
    all_gather(average, in_host, device, rng, port);
    port.wait_sends();
    const float scale = 1.0f / static_cast<float>(n);
    for (float& v : average) v *= scale;
    port.charge({prices_.mixing, 4.0 * static_cast<double>(average.size())});
  }

 private:
  // Chunk c mod m of `v` cut into m: chunk c starts at c·⌊L/m⌋ + min(c, L mod m).
  static std::span<float> chunk(std::span<float> v, std::size_t c, std::size_t m) {
    const std::size_t length = v.size();
    c %= m;
    const std::size_t begin = c * (length / m) + std::min(c, length % m);
    return v.subspan(begin, length / m + (c < length % m ? 1 : 0));
  }

  // Step s = 0 … m − 2: position p sends its partial sum of chunk p − s and adds its own values to the
  // partial sum of chunk p − s − 1 it receives; at the end position p holds chunk p + 1 summed over the ring.
  void reduce_scatter(std::span<float> v, const std::vector<std::size_t>& members, std::size_t p, Rng& rng,
                      protocols::Port& port) {
    const std::size_t m = members.size();
    if (m < 2) return;
    const std::size_t next = members[(p + 1) % m], previous = members[(p + m - 1) % m];
    for (std::size_t s = 0; s + 1 < m; ++s) {
      send(next, chunk(v, p + m - s, m), rng, port);
      const std::span<float> mine = chunk(v, p + 2 * m - s - 1, m);
      const std::span<const float> partial = receive(previous, mine.size(), port);
      for (std::size_t c = 0; c < mine.size(); ++c) mine[c] += partial[c];
      format_.round(mine);
      port.charge({prices_.mixing, 3.0 * static_cast<double>(mine.size())});
    }
  }

  // Step s = 0 … m − 2: position p sends the finished chunk p + 1 − s and stores the finished chunk p − s.
  void all_gather(std::span<float> v, const std::vector<std::size_t>& members, std::size_t p, Rng& rng,
                  protocols::Port& port) {
    const std::size_t m = members.size();
    if (m < 2) return;
    const std::size_t next = members[(p + 1) % m], previous = members[(p + m - 1) % m];
    for (std::size_t s = 0; s + 1 < m; ++s) {
      send(next, chunk(v, p + 1 + m - s, m), rng, port);
      const std::span<float> target = chunk(v, p + m - s, m);
      const std::span<const float> finished = receive(previous, target.size(), port);
      std::copy(finished.begin(), finished.end(), target.begin());
      port.charge({prices_.mixing, 2.0 * static_cast<double>(target.size())});
    }
  }

  void send(std::size_t to, std::span<const float> values, Rng& rng, protocols::Port& port) {
    protocols::Bytes bytes;
    {
      WallClock::Scope timer(setup_.clock, WallClock::Part::compression);
      setup_.compressor->encode_into(values, rng, bytes);
    }
    port.charge({prices_.encode, static_cast<double>(values.size())});
    port.send(to, std::move(bytes));
  }

  // The next chunk from `from`, in the shared scratch (valid until this node's next Port call).
  std::span<const float> receive(std::size_t from, std::size_t size, protocols::Port& port) {
    const std::optional<protocols::Bytes> message = port.receive(from);
    if (!message) throw std::logic_error("hierarchical all-reduce received silence");
    const std::span<float> out = std::span<float>(received_).first(size);
    WallClock::Scope timer(setup_.clock, WallClock::Part::compression);
    setup_.compressor->decode_into(*message, out);
    port.charge({prices_.decode, static_cast<double>(size)});
    return out;
  }

  CollectiveSetup setup_;
  const compression::FloatFormat& format_;
  ChunkPrices prices_;
  std::vector<float> received_;  // shared by all nodes: consumed before the node's next Port call
  std::size_t devices_;          // per host
};

const bool registered = collectives().add(
    {"hierarchical_allreduce",
     "Two-level all-reduce for clusters (Horovod's hierarchical all-reduce, NCCL across multi-GPU hosts): a "
     "ring reduce-scatter among the devices of each host, a ring all-reduce of each device's shard among the "
     "same devices of all hosts, then a ring all-gather within each host. Hosts are those of a \"cluster\" "
     "network.topology (gpus_per_host devices each); on any other network every node is its own host and it "
     "is ring_allreduce in id order. Needs the workers' compressor to send floats (\"none\", \"fp16\", "
     "\"bf16\"), summed in that format.",
     {},
     {}},
    [](Spec&, const CollectiveSetup& setup) -> std::unique_ptr<Collective> {
      const compression::FloatFormat& format = require_float_format(setup, "hierarchical_allreduce");
      const std::size_t devices = setup.network ? setup.network->gpus_per_host : 1;
      return std::make_unique<HierarchicalAllreduce>(setup, format, devices);
    });

}  // namespace

}  // namespace sgdsim::protocols
