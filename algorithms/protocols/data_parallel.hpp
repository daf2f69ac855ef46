#pragma once
#include <memory>
#include <vector>

#include "algorithms/protocols/buckets.hpp"
#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

// Quantized data-parallel SGD (the QSGD / NUQSGD setting). Every worker compresses its minibatch gradient
// (through its memory, e.g. error feedback), the collective averages the decoded gradients identically on
// every node, and every replica takes the same step. With `aggregate: majority_vote` (signSGD with majority
// vote, Bernstein et al. 2018) the step is the sign of that average of sign messages.
//
// With `overlap` (PyTorch DDP, Li et al. 2020), the gradient's backward pass runs in the background, bucket
// by bucket in backward order, and each bucket is averaged by its own round of the collective as soon as its
// gradients are ready, while the backward pass goes on; the step waits for every bucket. A model that knows
// its layers charges each bucket the backward pass of its layers (buckets.hpp); otherwise each bucket's
// share of the backward pass is its share of the parameters. Buckets of
// float-format messages (none, fp16, bf16) are the same coordinates as the whole vector's, so what every node
// computes does not change (up to the order of the ring collectives' sums).
//
// With `share_scales` (TernGrad, Wen et al. 2017) the workers first take the element-wise maximum of their
// per-bucket scales through the collective (one float32 per bucket from each worker), and all ternarise with
// it, so that their levels agree.
class DataParallel : public Protocol {
 public:
  DataParallel(Spec& spec, const Environment& environment);
  void run(std::size_t node, protocols::Port& port) override;

 private:
  // One step with the backward pass overlapped with the buckets' collectives.
  void overlapped_step(std::size_t i, std::int64_t t, Rng& batches, protocols::Port& port);
  struct Bucket {
    GradientBucket range;
    std::unique_ptr<Collective> collective;
    std::vector<Charge> encode;  // its share of the encode (or memory) charge
    Charge backward;             // the backward pass that makes its gradients ready
  };
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
  bool share_scales_ = false;    // TernGrad's scaler sharing: the maximum of the workers' scales
  PriceId compare_ = 0;          // the maximum's comparisons, per float
  std::vector<Bucket> buckets_;  // with overlap, in backward order; empty otherwise
  Charge forward_;               // with overlap, the forward pass
  const compression::FloatFormat* format_ = nullptr;  // the workers' float format, with overlap
  std::vector<Node> nodes_;
};

}  // namespace sgdsim::protocols
