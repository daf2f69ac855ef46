#include "algorithms/protocols/costs.hpp"

#include "common/error.hpp"

namespace sgdsim::protocols {
namespace {
const CodecSpeed& speed_of(const Costs& costs, const std::string& kind, const std::string& where) {
  const auto found = costs.codecs.find(kind);
  if (found == costs.codecs.end()) {
    throw InputError(where + ": the compute profile has no encode/decode throughput for compressor kind \"" +
                     kind + "\"; add it under compute.codecs." + kind +
                     " or calibrate a profile with `sgdsim calibrate`");
  }
  return found->second;
}
}  // namespace

double Costs::encode_s(const std::string& kind, std::size_t dimension, const std::string& where) const {
  if (!charges(Work::encode)) return 0;
  return static_cast<double>(dimension) / speed_of(*this, kind, where).encode;
}

double Costs::decode_s(const std::string& kind, std::size_t dimension, const std::string& where) const {
  if (!charges(Work::decode)) return 0;
  return static_cast<double>(dimension) / speed_of(*this, kind, where).decode;
}

double Costs::vector_s(Work work, double floats) const {
  if (!charges(work) || memory_bandwidth <= 0) return 0;
  return floats * sizeof(float) / memory_bandwidth;
}

}  // namespace sgdsim::protocols
