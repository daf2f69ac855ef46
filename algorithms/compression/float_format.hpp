#pragma once
// Compressors that send every coordinate as a floating-point number of a fixed format: none (fp32), fp16 and
// bf16. Their decoded values are exactly representable in the format, so a collective may add two of them,
// round the sum to the format and send it on: the all-reduce collectives (ring_allreduce,
// recursive_doubling) sum this way, in the format's precision, as NCCL does.
#include <span>
#include <string_view>

#include "algorithms/compression/compressor.hpp"

namespace sgdsim::compression {

class FloatFormat : public Compressor {
 public:
  // The compressor kind: its whole configuration (a format has no keys), which prices its codec.
  virtual std::string_view kind() const = 0;
  // Rounds `values` in place to the format: what decoding their encoding gives (for fp32, nothing to do).
  // A sum beyond the format's range becomes infinite (fp16 and bf16 then refuse to encode it).
  virtual void round(std::span<float> values) const = 0;
};

}  // namespace sgdsim::compression
