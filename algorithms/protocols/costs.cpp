#include "algorithms/protocols/costs.hpp"

#include "common/error.hpp"

namespace sgdsim::protocols {
namespace {
// Coordinates per second of `kind` in one direction (`encode` or `decode`).
double speed_of(const Costs& costs, const std::string& kind, bool encode, const std::string& where) {
  const auto found = costs.codecs.find(kind);
  const double speed =
      found == costs.codecs.end() ? 0 : (encode ? found->second.encode : found->second.decode);
  if (speed <= 0) {
    const std::string direction = encode ? "encode" : "decode";
    throw InputError(where + ": the compute profile has no " + direction +
                     " throughput for compressor kind \"" + kind + "\"; add it as compute.codecs." + kind +
                     "." + direction + " or calibrate a profile with `sgdsim calibrate`");
  }
  return speed;
}
}  // namespace

double Costs::encode_s(const std::string& kind, std::size_t dimension, const std::string& where) const {
  if (!charges(Work::encode)) return 0;
  return static_cast<double>(dimension) / speed_of(*this, kind, true, where);
}

double Costs::decode_s(const std::string& kind, std::size_t dimension, const std::string& where) const {
  if (!charges(Work::decode)) return 0;
  return static_cast<double>(dimension) / speed_of(*this, kind, false, where);
}

double Costs::vector_s(Work work, double floats) const {
  if (!charges(work) || memory_bandwidth <= 0) return 0;
  return floats * sizeof(float) / memory_bandwidth;
}

}  // namespace sgdsim::protocols
