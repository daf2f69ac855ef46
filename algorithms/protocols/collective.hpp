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
#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "common/keys.hpp"
#include "common/wall_clock.hpp"

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
};

// The prices of what the collectives that move raw fp32 chunks do: the fp32 (kind "none") encoding and
// decoding of a chunk's coordinates, and vector arithmetic on its floats.
struct Fp32Prices {
  explicit Fp32Prices(const CollectiveSetup& setup);
  PriceId encode, decode, mixing;
};

class Collective {
 public:
  virtual ~Collective() = default;
  // Node i's part of one round. `message` is its encoded vector and `own` that message decoded; `rng` is its
  // compression stream (for collectives that re-encode). Leaves in `average` the mean of every node's decoded
  // vector — the same floats on every node, so that replicas stay identical.
  virtual void average(std::size_t i, const protocols::Bytes& message, std::span<const float> own, Rng& rng,
                       std::span<float> average, protocols::Port& port) = 0;
};

// For the all-reduce collectives that add partial sums on the way (ring_allreduce, recursive_doubling): they
// exchange raw fp32 partial sums, so the workers' compressor must be `none` (then `own` is the vector itself,
// bit for bit). Otherwise throws an InputError naming `collective` and where the compressor is set.
void require_fp32(const CollectiveSetup& setup, const std::string& collective);

using CollectiveFactory = std::function<std::unique_ptr<Collective>(Spec&, const CollectiveSetup&)>;
keys::Registry<CollectiveFactory>& collectives();

// Builds the collective of a Spec of the "collective" family, finishing it.
std::unique_ptr<Collective> make_collective(Spec& spec, const CollectiveSetup& setup);

}  // namespace sgdsim::protocols
