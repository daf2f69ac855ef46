// The scenario kind signum: signs of a per-sender momentum.
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/signum.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_signum_spec = compressors().add(
    {"signum",
     "Signum (Bernstein et al. 2018): each sender keeps m ← β·m + (1 − β)·x and sends sign(m) as signsgd "
     "does (one bit per coordinate, decoded as ±1). data_parallel can aggregate it by majority vote.",
     {keys::number("momentum", "β, the weight of the previous momentum (0: signSGD).")
          .fallback_to(0.9)
          .at_least(0)
          .below(1)},
     {"sign_votes"},
     {json::parse(R"({"kind": "signum", "momentum": 0.9})")}},
    [](Spec& spec) { return std::make_unique<Signum>(static_cast<float>(spec.number("momentum"))); });

}  // namespace
}  // namespace sgdsim::compression
