// The scenario kinds sign (scaled sign) and signsgd (plain sign).
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/sign.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_sign_spec =
    compressors().add(
        {"sign",
         "Scaled sign (Karimireddy et al. 2019): one sign bit per coordinate and the bucket's mean |x_i| as "
         "fp32. With \"memory\": \"error_feedback\" this is EF-SignSGD.",
         {keys::integer("bucket", "Coordinates per bucket, each with its own scale (0: one bucket).")
              .fallback_to(0)
              .between(0, 2147483648.0)},
         {"codes_values"},
         {json::parse(R"({"kind": "sign", "bucket": 40})")}},
        [](Spec& spec) {
          return std::make_unique<ScaledSign>(static_cast<std::size_t>(spec.integer("bucket")));
        }) &&
    compressors().add({"signsgd",
                       "signSGD (Bernstein et al. 2018): one sign bit per coordinate, decoded as ±1 (0 as "
                       "+1); no scale. data_parallel can aggregate it by majority vote.",
                       {},
                       {"codes_values", "sign_votes"},
                       {json::parse(R"({"kind": "signsgd"})")}},
                      [](Spec&) { return std::make_unique<ScaledSign>(0, false); });

}  // namespace
}  // namespace sgdsim::compression
