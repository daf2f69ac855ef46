#pragma once
// A node's compression memory (GRACE's "memory"): what the node adds to a vector before compressing it and
// keeps of the compression error afterwards. Kinds of the "memory" family: none, error_feedback, dgc, ef21.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>

#include "common/keys.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::protocols {

class Memory {
 public:
  virtual ~Memory() = default;
  // The vector node `node` compresses this round, given its fresh vector. Valid until the next call.
  virtual std::span<const float> compensate(std::size_t node, std::span<const float> fresh) = 0;
  // Tells the memory what the receivers decode from that compressed vector.
  virtual void update(std::size_t node, std::span<const float> decoded) = 0;
  // Float32 values read and written per compressed d-vector (for the simulated cost of the arithmetic).
  virtual double floats_touched(std::size_t /*dimension*/) const { return 0; }
  // The momentum the memory applies itself (DGC's momentum correction); 0 for memories without one.
  virtual double momentum() const { return 0; }
  // Turns the average of the decoded vectors (the same on every node) into what node `node` steps with. Only
  // kinds with the capability `estimates_average` change it (EF21 adds it to its running estimate g); the
  // protocols that take such kinds call this.
  virtual void restore(std::size_t /*node*/, std::span<float> /*average*/) {}
  // Float32 values read and written by restore() per d-vector.
  virtual double restore_floats(std::size_t /*dimension*/) const { return 0; }
};

using MemoryFactory = std::function<std::unique_ptr<Memory>(Spec&, std::size_t nodes, std::size_t dimension)>;
keys::Registry<MemoryFactory>& memories();

// Builds the memory of every node from a Spec of the "memory" family, finishing it.
std::unique_ptr<Memory> make_memory(Spec& spec, std::size_t nodes, std::size_t dimension);

}  // namespace sgdsim::protocols
