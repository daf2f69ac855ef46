#include "algorithms/protocols/message_compressor.hpp"

#include <vector>

#include "common/spec.hpp"

namespace sgdsim::protocols {

std::unique_ptr<compression::Compressor> make_message_compressor(Spec& parent, const std::string& key,
                                                                 std::size_t dimension, bool required) {
  std::unique_ptr<compression::Compressor> compressor;
  if (!required && !parent.has(key)) {
    static const json none = {{"kind", "none"}};
    json resolved;
    Spec fallback(none, parent.file(), parent.path() + "." + key, resolved);
    compressor = compression::make_compressor(fallback);
    parent.echo(key, resolved);
  } else {
    Spec given = parent.object(key, required);
    compressor = compression::make_compressor(given);
  }
  // One trial encoding of a vector of the right length surfaces dimension errors now.
  Rng rng(0);
  compressor->encode(std::vector<float>(dimension, 1.0f), rng);
  return compressor;
}

}  // namespace sgdsim::protocols
