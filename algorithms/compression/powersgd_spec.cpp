// The scenario kind powersgd: rank-r power iteration per weight matrix.
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/powersgd.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
namespace {

const bool registered_powersgd_spec = compressors().add(
    {"powersgd",
     "PowerSGD (Vogels et al. 2019): each weight matrix of the model as a rank-r product P Qᵀ from one "
     "warm-started power iteration (float32 factors); vectors raw. Pair with memory error_feedback.",
     {keys::integer("rank", "r, the rank of each matrix's approximation.").fallback_to(1).between(1, 65536),
      keys::integer("rows",
                    "Rows of the one matrix a vector without a model's tensor layout is viewed as "
                    "(`sgdsim compress`, benchmarks); 0: such a vector is sent raw.")
          .fallback_to(0)
          .between(0, 2147483648.0)},
     {"wants_error_feedback"},
     {json::parse(R"({"kind": "powersgd", "rank": 1, "rows": 16})"),
      json::parse(R"({"kind": "powersgd", "rank": 4, "rows": 1024})")}},
    [](Spec& spec) {
      return std::make_unique<PowerSgd>(static_cast<std::size_t>(spec.integer("rank")),
                                        static_cast<std::size_t>(spec.integer("rows")));
    });

}  // namespace
}  // namespace sgdsim::compression
