#pragma once
// The observer's part of a run's memory estimate (common/memory_limit.hpp).
#include <cstddef>

#include "common/memory_limit.hpp"

namespace sgdsim::observation {

// The observer's running means (double) of up to a few steps in progress, and the averaged model.
inline MemoryParts memory_parts(std::size_t dimension) {
  return {{"evaluation", 3 * static_cast<double>(dimension) * sizeof(double)}};
}

}  // namespace sgdsim::observation
