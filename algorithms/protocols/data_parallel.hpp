#pragma once
#include <memory>
#include <vector>

#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// Quantized data-parallel SGD (the QSGD / NUQSGD setting). Every worker compresses its minibatch gradient
// (through its memory, e.g. error feedback), the collective averages the decoded gradients identically on
// every node, and every replica takes the same step. With `aggregate: majority_vote` (signSGD with majority
// vote, Bernstein et al. 2018) the step is the sign of that average of sign messages.
class DataParallel : public Protocol {
 public:
  DataParallel(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  struct Node {
    std::vector<float> x, average, own;
    Bytes bytes;
    NodeStats stats;
  };

  const Environment& environment_;
  Schedule schedule_;
  LocalStep local_;
  Encoders encoders_;
  std::unique_ptr<Collective> collective_;
  Charge vote_;  // the majority vote's sign of the mean
  bool majority_vote_ = false;
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
