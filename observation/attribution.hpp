#pragma once
// What a node's work belongs to, as the observer sees it: the step a node is computing is one past the last
// it reported complete. The composition root wraps each node's actors with these, so that a divergence found
// where the step is not known (a gradient, a compressor's input) names its step, and a timeline's spans are
// tagged with theirs.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "observation/observer.hpp"

namespace sgdsim::observation {

// The step `node` is computing, at most `last_step`: work charged in the last step may execute after the node
// reported it complete, and is the last step's.
std::int64_t computing_step(const Observer& observer, std::size_t node, std::int64_t last_step);

// Runs `work` for `node`; a Diverged without a step is thrown again with the step the node is computing, and
// a message that could not be encoded (NonFiniteInput) becomes a Diverged of that step.
void attribute_divergence(const Observer& observer, std::size_t node, const std::function<void()>& work);

}  // namespace sgdsim::observation
