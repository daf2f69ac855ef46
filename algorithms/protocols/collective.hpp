#pragma once
// How data-parallel workers average their encoded vectors (GRACE's "communicator"): a strategy the
// data-parallel protocol is given. Kinds of the "collective" family: allgather, parameter_server,
// ring_allreduce, recursive_doubling.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/float_format.hpp"
#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "common/keys.hpp"
#include "common/wall_clock.hpp"
#include "topologies/topology.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::protocols {

struct CollectiveSetup {
  std::size_t nodes = 0;
  std::size_t dimension = 0;
  const compression::Compressor* compressor = nullptr;  // the workers' messages
  Charge decode;                                        // decoding one of them
  PriceTable* prices = nullptr;                         // for the collective's own arithmetic and codecs
  WallClock* clock = nullptr;                           // may be null
  std::string compressor_where;  // where the workers' compressor is set ("file: $.algorithm.compressor")
  compression::Layout layout;    // the tensors of the averaged vectors (for a re-encoding compressor)
  const topology::Topology* network = nullptr;  // the physical network, along which rings are laid
};

// The prices of what the all-reduce collectives do with their chunks of floats: encoding and decoding a
// chunk's coordinates in the workers' float format, and vector arithmetic on its floats, all inside the
// collective's one kernel (NCCL fuses the reduction into its copy loop: no launch per chunk); and `call`, the
// vector arithmetic a node does once per call on the whole vector (the copy of its own vector, the final
// scaling), which carries that kernel's one launch on an accelerator.
struct ChunkPrices {
  ChunkPrices(const CollectiveSetup& setup, const compression::FloatFormat& format);
  PriceId encode, decode, mixing, call;
};

class Collective {
 public:
  virtual ~Collective() = default;
  // Node i's part of one round. `message` is its encoded vector and `own` that message decoded; `rng` is its
  // compression stream (for collectives that re-encode). Leaves in `average` the mean of every node's decoded
  // vector — the same floats on every node, so that replicas stay identical.
  virtual void average(std::size_t i, const protocols::Bytes& message, std::span<const float> own, Rng& rng,
                       std::span<float> average, protocols::Port& port) = 0;
  // Node i's part of an element-wise maximum of every node's `values` (TernGrad's shared scales), left in
  // `values`, the same floats on every node. The values travel as float32; `compare` is the charge of taking
  // the maximum with one other node's values. By default every node sends its values to every other; on a
  // lossy network the maximum is over those that arrived.
  virtual void maximum(std::size_t i, std::span<float> values, const Charge& compare, protocols::Port& port);
  // False for collectives that never send `message` (they encode their own chunks): the worker's encode of
  // the whole vector is then not work a deployment does, and is not charged.
  virtual bool sends_message() const { return true; }
};

// For the all-reduce collectives that add partial sums on the way (ring_allreduce, recursive_doubling): they
// exchange partial sums in the workers' float format (none: fp32, fp16, bf16), rounding every sum to it, so
// that what a node keeps is what it sends. Any other compressor is an InputError naming `collective` and
// where the compressor is set.
const compression::FloatFormat& require_float_format(const CollectiveSetup& setup,
                                                     const std::string& collective);

using CollectiveFactory = std::function<std::unique_ptr<Collective>(Spec&, const CollectiveSetup&)>;
keys::Registry<CollectiveFactory>& collectives();

// Builds the collective of a Spec of the "collective" family, finishing it.
std::unique_ptr<Collective> make_collective(Spec& spec, const CollectiveSetup& setup);

}  // namespace sgdsim::protocols
