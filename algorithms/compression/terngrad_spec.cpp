// The scenario kind terngrad. TernGrad's ternarisation is exactly QSGDinf with one level (s = 1): per bucket
// the scale s_t = max |x_i|, and x_i becomes s_t·sign(x_i) with probability |x_i| / s_t, else 0. So the kind
// is the Quantizer on that table, and its wire is the quantizer's fixed-width format: the scale as float32,
// then 2 bits per coordinate (0 = −s_t, 1 = 0, 2 = +s_t; 3 is rejected).
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_terngrad_spec = compressors().add(
    {"terngrad",
     "TernGrad (Wen et al. 2017): unbiased stochastic ternarisation to {−s, 0, +s}, s = max |x_i| per "
     "bucket; an fp32 scale and 2 bits per coordinate.",
     {keys::integer("bucket", "Coordinates per bucket, each with its own scale (0: one bucket).")
          .fallback_to(0)
          .between(0, 2147483648.0)},
     {"codes_values", "shares_scales"},
     {json::parse(R"({"kind": "terngrad"})"), json::parse(R"({"kind": "terngrad", "bucket": 20})")}},
    [](Spec& spec) {
      QuantizerConfig c;
      c.method = "terngrad";
      c.norm = Norm::max_abs;
      c.table = TableKind::paper_uniform;
      c.levels = 1;
      c.coding = Coding::fixed;
      c.bucket = static_cast<std::size_t>(spec.integer("bucket"));
      return std::make_unique<Quantizer>(std::move(c));
    });

}  // namespace
}  // namespace sgdsim::compression
