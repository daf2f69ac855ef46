#pragma once
// The observer's part of a run's memory estimate (common/memory_limit.hpp).
#include <cstddef>

#include "common/memory_limit.hpp"

namespace sgdsim::observation {

// The observer's running means (double) of up to a few steps in progress, the averaged model, and the models
// of nodes that reach an evaluation step before the nodes below them (folded in node order; at most all but
// one).
inline MemoryParts memory_parts(std::size_t dimension, std::size_t nodes) {
  const double d = static_cast<double>(dimension);
  return {{"evaluation",
           3 * d * sizeof(double) + static_cast<double>(nodes > 0 ? nodes - 1 : 0) * d * sizeof(float)}};
}

}  // namespace sgdsim::observation
