#pragma once
// The compressor of a protocol's messages, built from its scenario object and checked against the model's
// dimension at once (e.g. top-k with k > d), so such a scenario fails validation instead of failing mid-run.
#include <cstddef>
#include <memory>
#include <string>

#include "algorithms/compression/compressor.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::protocols {

// Reads `parent[key]`, a key declared as a compressor variant (its declared default applies when absent).
std::unique_ptr<compression::Compressor> make_message_compressor(Spec& parent, const std::string& key,
                                                                 std::size_t dimension);

}  // namespace sgdsim::protocols
