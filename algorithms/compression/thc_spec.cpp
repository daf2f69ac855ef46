// The compressor kind thc, and THC's keys, declared once for it and the collective "thc".
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/thc_compressor.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {

std::vector<keys::Key> thc_keys() {
  return {
      keys::integer("bits", "b: each worker's rotated coordinate is one of 2^b levels.")
          .fallback_to(4)
          .between(1, 16),
      keys::number("overflow",
                   "p: the clipping range [−t, t] is set so that a normal coordinate of the rotated vector "
                   "of the largest norm exceeds it with probability p (t = N/√D · Φ⁻¹(1 − p)).")
          .fallback_to(1e-4)
          .above(0)
          .below(0.5),
      keys::integer("rotation_seed", "The seed of the rotation's signs, shared by every worker.")
          .fallback_to(1)
          .at_least(0),
      keys::boolean("error_feedback",
                    "Each worker quantizes g + e and keeps e ← (g + e) − its own decoded vector (the "
                    "authors' code's default); false: the unbiased estimator (clipping aside).")
          .fallback_to(false)};
}

namespace {

const bool registered_thc_spec = compressors().add(
    {"thc",
     "THC (Li et al., NSDI 2024), the spelling issue 32 gives: in data_parallel (with no collective or "
     "ring_allreduce) it runs the collective \"thc\", THC's homomorphic all-reduce, with these keys; no "
     "protocol takes it as the compressor of its own messages. Alone (sgdsim compress) it is one worker's "
     "message: the rotated vector in the frame of its own norm (fp32) and b-bit indices.",
     thc_keys(),
     {"homomorphic"},
     {json::parse(R"({"kind": "thc", "bits": 4})"),
      json::parse(
          R"({"kind": "thc", "bits": 1, "overflow": 0.01, "rotation_seed": 7, "error_feedback": false})")}},
    [](Spec& spec) -> std::unique_ptr<Compressor> {
      const auto bits = static_cast<unsigned>(spec.integer("bits"));
      const double overflow = spec.number("overflow");
      const auto seed = static_cast<std::uint64_t>(spec.integer("rotation_seed"));
      if (spec.boolean("error_feedback"))
        spec.fail(
            "error_feedback",
            "is THC's all-reduce's (data_parallel's compressor \"thc\" runs the collective \"thc\"); one "
            "worker's message alone has no error to keep");
      return std::make_unique<ThcCompressor>(bits, overflow, seed);
    });

}  // namespace
}  // namespace sgdsim::compression
