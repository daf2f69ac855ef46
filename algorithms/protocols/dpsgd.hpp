#pragma once
#include <memory>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

class Dpsgd : public Protocol {
 public:
  Dpsgd(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  struct Node {
    std::vector<float> x, mixed;
    NodeStats stats;
  };
  const Environment& environment_;
  Schedule schedule_;
  topology::Mixing mixing_;
  LocalStep local_;
  std::unique_ptr<compression::Compressor> encoding_;
  double encode_s_ = 0, decode_s_ = 0, self_mixing_s_ = 0, neighbor_mixing_s_ = 0;
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
