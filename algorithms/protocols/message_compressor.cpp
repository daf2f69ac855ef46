#include "algorithms/protocols/message_compressor.hpp"

#include <vector>

#include "common/spec.hpp"

namespace sgdsim::protocols {

std::unique_ptr<compression::Compressor> make_message_compressor(Spec& parent, const std::string& key,
                                                                 std::size_t dimension) {
  Spec given = parent.variant(key);
  std::unique_ptr<compression::Compressor> compressor = compression::make_compressor(given);
  // One trial encoding of a vector of the right length surfaces dimension errors now.
  Rng rng(0);
  compressor->encode(std::vector<float>(dimension, 1.0f), rng);
  return compressor;
}

}  // namespace sgdsim::protocols
