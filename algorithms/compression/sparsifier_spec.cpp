// The scenario kinds topk, randk, threshold and compose (a sparsifier whose kept values a second compressor
// codes).
#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/identity.hpp"
#include "algorithms/compression/sparsifier.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {

namespace {

constexpr double max_k = 2147483647.0;  // 2^31 - 1

keys::Key elias_key() {
  return keys::choice("elias", {"omega", "gamma"}, "The Elias code of the gaps between kept indices.")
      .fallback_to("omega");
}

std::vector<keys::Key> sparsifier_keys() {
  return {
      keys::integer("k", "Coordinates kept (give k or fraction).").may_be_absent().between(1, max_k - 1),
      keys::number("fraction", "Fraction of d kept: k = max(1, round(fraction · d)) (give k or fraction).")
          .may_be_absent()
          .above(0)
          .at_most(1),
      elias_key(),
  };
}

std::vector<keys::Key> threshold_keys() {
  return {keys::number("threshold", "Coordinates with |x_i| above this are kept.").at_least(0), elias_key()};
}

std::unique_ptr<Compressor> make_sparsifier(Spec& spec, std::unique_ptr<Compressor> inner) {
  const EliasCode code = spec.string("elias") == "omega" ? EliasCode::omega : EliasCode::gamma;
  if (spec.kind_name() == "threshold")
    return std::make_unique<Sparsifier>(spec.number("threshold"), std::move(inner), code);
  KeepCount keep;
  const bool has_k = spec.has("k"), has_fraction = spec.has("fraction");
  if (has_k == has_fraction)
    spec.fail(has_k ? "fraction" : "k",
              "give exactly one of \"k\" (coordinates kept) and \"fraction\" (of d)");
  if (has_k) {
    keep.where = spec.where("k");
    keep.k = static_cast<std::size_t>(spec.integer("k"));
  } else {
    keep.where = spec.where("fraction");
    keep.fraction = spec.number("fraction");
  }
  const Selection selection = spec.kind_name() == "topk" ? Selection::top : Selection::random;
  return std::make_unique<Sparsifier>(selection, std::move(keep), std::move(inner), code);
}

std::unique_ptr<Compressor> make_alone(Spec& spec) {
  return make_sparsifier(spec, std::make_unique<Identity>());
}

std::unique_ptr<Compressor> make_compose(Spec& spec) {
  std::vector<Spec> stages = spec.variants("stages");
  auto inner = make_compressor(stages[1]);
  auto outer = make_sparsifier(stages[0], std::move(inner));
  stages[0].finish();
  return outer;
}

const bool registered_sparsifier_spec =
    compressors().add(
        {"topk",
         "Top-k: the k coordinates of largest magnitude, as (index gaps, fp32 values).",
         sparsifier_keys(),
         {"sparsifier"},
         // The first example is also the configuration `sgdsim calibrate` prices.
         {json::parse(R"({"kind": "topk", "fraction": 0.05})"), json::parse(R"({"kind": "topk", "k": 10})")}},
        make_alone) &&
    compressors().add({"randk",
                       "Rand-k: k coordinates drawn uniformly without replacement, unscaled (biased, "
                       "contractive), as (index gaps, fp32 values).",
                       sparsifier_keys(),
                       {"sparsifier"},
                       {json::parse(R"({"kind": "randk", "fraction": 0.2, "elias": "gamma"})")}},
                      make_alone) &&
    compressors().add({"threshold",
                       "Threshold (Strom 2015; GRACE's threshold-v): every coordinate with |x_i| above the "
                       "threshold, unscaled, as (index gaps ending on position d, fp32 values).",
                       threshold_keys(),
                       {"sparsifier"},
                       {json::parse(R"({"kind": "threshold", "threshold": 0.5})"),
                        json::parse(R"({"kind": "threshold", "threshold": 0.01, "elias": "gamma"})")}},
                      make_alone) &&
    compressors().add(
        {"compose",
         "A sparsifier, then a compressor of the kept values (e.g. top-k then QSGD).",
         {keys::variants("stages", compressors(),
                         "Two compressor objects: a sparsifier (topk, randk or threshold), then a "
                         "coder of the kept values.")
              .items(2, 2)
              .needing({"sparsifier", "codes_values"})},
         {},
         // The first example (SignTopK, as in CHOCO-SGD's experiments) is what `sgdsim calibrate` prices.
         {json::parse(
              R"({"kind": "compose", "stages": [{"kind": "topk", "fraction": 0.05}, {"kind": "sign"}]})"),
          json::parse(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 12},
                                                                      {"kind": "qsgd", "levels": 2}]})"),
          json::parse(R"({"kind": "compose", "stages": [{"kind": "randk", "k": 12},
                                                                      {"kind": "nuqsgd", "coding": "fixed"}]})"),
          json::parse(
              R"({"kind": "compose", "stages": [{"kind": "topk", "fraction": 0.3}, {"kind": "sign"}]})"),
          json::parse(R"({"kind": "compose", "stages": [{"kind": "threshold", "threshold": 0.8},
                                                                      {"kind": "terngrad"}]})")}},
        make_compose);

}  // namespace
}  // namespace sgdsim::compression
