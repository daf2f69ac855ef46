// The collective kind hierarchical_allreduce: the two-level all-reduce of Horovod's hierarchical mode and of
// NCCL on multi-GPU hosts. Inside each host a ring reduce-scatter leaves device g with shard g of the host's
// sum; device g of every host then all-reduces its shard around a ring of hosts; a ring all-gather inside
// each host gives every device the whole sum. The intra-host fabric carries the whole vector twice, the NICs
// only the shards.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/float_messages.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {

class HierarchicalAllreduce final : public Collective {
 public:
  bool sends_message() const override { return false; }
  HierarchicalAllreduce(const CollectiveSetup& setup, const compression::FloatFormat& format,
                        std::size_t devices)
      : nodes_(setup.nodes), messages_(setup, format), devices_(devices) {
    if (devices_ == 0 || setup.nodes % devices_ != 0)
      throw std::logic_error("hierarchical_allreduce: nodes not a multiple of the devices per host");
  }

  // Node h·G + g is device g of host h. Each pass is a ring pass of FloatMessages (chunks cut as
  // ring_allreduce cuts them, partial sums rounded to the workers' float format), so every node ends with
  // the same floats.
  void average(std::size_t node, const protocols::Bytes&, std::span<const float> own, Rng& rng,
               std::span<float> average, protocols::Port& port) override {
    const std::size_t n = nodes_, hosts = n / devices_;
    const std::size_t host = node / devices_, device = node % devices_;
    std::copy(own.begin(), own.end(), average.begin());
    std::vector<std::size_t> in_host(devices_), across(hosts);
    for (std::size_t g = 0; g < devices_; ++g) in_host[g] = host * devices_ + g;
    for (std::size_t h = 0; h < hosts; ++h) across[h] = h * devices_ + device;
    // After the reduce-scatter, device g holds chunk g + 1 (mod G) of its host's sum: its shard.
    messages_.reduce_scatter(average, in_host, device, rng, port);
    const std::span<float> shard = FloatMessages::chunk(average, device + 1, devices_);
    messages_.reduce_scatter(shard, across, host, rng, port);
    messages_.all_gather(shard, across, host, rng, port);
    messages_.all_gather(average, in_host, device, rng, port);
    port.wait_sends();
    const float scale = 1.0f / static_cast<float>(n);
    for (float& v : average) v *= scale;
    port.charge({messages_.prices().call, 4.0 * static_cast<double>(average.size())});
  }

 private:
  std::size_t nodes_;
  FloatMessages messages_;
  std::size_t devices_;  // per host
};

const bool registered_hierarchical_allreduce = collectives().add(
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
