#pragma once
// The learning layer's part of a run's memory estimate (common/memory_limit.hpp): the data sets, the
// minibatch buffers and the optimum solver.
#include <cstddef>

#include "algorithms/learning/model.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/memory_limit.hpp"

namespace sgdsim::learning {

// `optimum`: f* will be solved before simulating.
MemoryParts memory_parts(const Problem& problem, const Model& model, std::size_t batch_size, bool optimum);

}  // namespace sgdsim::learning
