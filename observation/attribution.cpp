#include "observation/attribution.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace sgdsim::observation {

std::int64_t computing_step(const Observer& observer, std::size_t node, std::int64_t last_step) {
  return std::min(observer.reached(node) + 1, last_step);
}

void attribute_divergence(const Observer& observer, std::size_t node, const std::function<void()>& work) {
  try {
    work();
  } catch (const Diverged& e) {
    if (e.where().step >= 0) throw;
    throw e.at_step(observer.reached(node) + 1);
  } catch (const NonFiniteInput& e) {
    throw Diverged({"message", observer.reached(node) + 1, node, e.what(), -1});
  }
}

}  // namespace sgdsim::observation
