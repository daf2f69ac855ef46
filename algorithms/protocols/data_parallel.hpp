#pragma once
#include <memory>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// Quantized data-parallel SGD (the QSGD / NUQSGD setting). Every worker compresses its minibatch gradient.
// "allgather": each sends its encoded gradient to every other worker over the routed network (multi-hop,
// contended); each decodes all n and averages them in node order, so models stay bit-identical.
// "parameter_server": workers send to the server node, which averages, encodes the average with its own
// compressor and sends it back; everyone (server included) applies the decoded average.
// Optional error feedback: e ← (g + e) − C(g + e) on the workers' messages.
class DataParallel : public Protocol {
 public:
  DataParallel(Spec& spec, const Environment& environment);
  void run(std::size_t node, sim::Port& port) override;

 private:
  struct Node {
    std::vector<float> x, sum, own, error;
    Rng compression;
    NodeStats stats;
  };
  // Compresses this step's gradient (with error feedback if on) into bytes; `own` receives the decoded
  // vector.
  sim::Bytes compress(Node& node, std::span<const float> gradient);
  // Receives every other node's encoded gradient and leaves the mean of all n decoded gradients in node.sum.
  void average_in_node_order(std::size_t i, Node& node, sim::Port& port);
  void allgather(std::size_t i, Node& node, const sim::Bytes& bytes, sim::Port& port);
  void parameter_server(std::size_t i, Node& node, const sim::Bytes& bytes, sim::Port& port);
  void decode_into(const compression::Compressor& compressor, const sim::Bytes& bytes,
                   std::vector<float>& out);

  const Environment& environment_;
  Schedule schedule_;
  bool parameter_server_;
  std::size_t server_;
  bool error_feedback_;
  LocalStep local_;
  std::unique_ptr<compression::Compressor> compressor_;
  std::unique_ptr<compression::Compressor> server_compressor_;
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
