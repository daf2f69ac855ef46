// The scenario kind dgc: Deep Gradient Compression's sampled-threshold sparsifier.
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/dgc.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_dgc_spec = compressors().add(
    {"dgc",
     "Deep Gradient Compression (Lin et al. 2018): send the coordinates at or above a threshold estimated "
     "by top-k on a random sample. Momentum correction, clipping and masking: memory kind dgc.",
     {keys::number("fraction", "Target share of coordinates sent (the paper's 99.9 % sparsity is 0.001).")
          .fallback_to(0.001)
          .above(0)
          .at_most(1),
      keys::number("sample", "Share of the coordinates sampled (with replacement) to estimate the threshold.")
          .fallback_to(0.01)
          .above(0)
          .at_most(1)},
     {},
     {json::parse(R"({"kind": "dgc", "fraction": 0.01})"),
      json::parse(R"({"kind": "dgc", "fraction": 0.1, "sample": 0.5})")}},
    [](Spec& spec) { return std::make_unique<Dgc>(spec.number("fraction"), spec.number("sample")); });

}  // namespace
}  // namespace sgdsim::compression
