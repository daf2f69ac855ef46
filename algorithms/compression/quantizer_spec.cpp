// The scenario kinds qsgd, qsgdinf and nuqsgd: their keys and how a Quantizer is built from them.
#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {

namespace {

constexpr double max_bucket = 2147483648.0;  // 2^31

std::vector<keys::Key> quantizer_keys(bool exponential) {
  std::vector<keys::Key> keys = {
      keys::choice(
          "table", {"paper", "code"},
          "Level table: \"paper\" (s levels and zero, as in the papers) or \"code\" (2^bits signed levels "
          "without zero, as in the authors' code).")
          .fallback_to("paper"),
      exponential ? keys::integer("levels", "s: positive levels ratio^(s-1) .. 1 and zero (table \"paper\").")
                        .fallback_to(7)
                        .between(1, 32766)
                  : keys::integer("levels", "s: positive levels 1/s .. 1 and zero (table \"paper\").")
                        .fallback_to(16)
                        .between(1, 32767),
      keys::integer("bits", "Bits per coordinate of table \"code\" (2^bits signed levels).")
          .fallback_to(4)
          .between(1, 16),
      keys::choice("coding", {"elias", "fixed", "zstd"},
                   "\"elias\": QSGD's sparse Elias code; \"fixed\": sign and level index in fixed width; "
                   "\"zstd\": the fixed-width stream compressed as one zstd frame.")
          .computed_default("\"elias\" with table \"paper\", \"fixed\" with table \"code\""),
      keys::integer("zstd_level",
                    "zstd's compression level under coding \"zstd\" (3: zstd's default; 19 comes within 0.06 "
                    "bits per coordinate of the symbols' entropy, at a fraction of the speed).")
          .fallback_to(3)
          .between(1, 22),
      keys::choice("elias", {"omega", "gamma"},
                   "The Elias code of run lengths and level indices under coding \"elias\".")
          .fallback_to("omega"),
      keys::integer("bucket", "Coordinates per bucket, each scaled by its own norm (0: one bucket).")
          .fallback_to(8192)
          .between(0, max_bucket),
      keys::choice(
          "bucketing", {"flat", "per_tensor"},
          "\"flat\": buckets run across the whole vector; \"per_tensor\": a bucket never spans two of "
          "the model's parameter tensors (each tensor is bucketed on its own, its last bucket shorter).")
          .fallback_to("flat"),
      keys::choice("scale", {"none", "contractive"},
                   "\"contractive\" divides by 1 + min(d/s², √d/s), the scaling CHOCO's analysis needs.")
          .fallback_to("none"),
  };
  if (exponential)
    keys.push_back(keys::number("ratio", "Ratio of consecutive levels of the exponential table.")
                       .fallback_to(0.5)
                       .above(0)
                       .below(1));
  return keys;
}

std::unique_ptr<Compressor> make_quantizer(Spec& spec) {
  const std::string& kind = spec.kind_name();
  QuantizerConfig c;
  c.method = kind;
  c.norm = kind == "qsgdinf" ? Norm::max_abs : Norm::l2;
  const bool exponential = kind == "nuqsgd";
  const bool code = spec.string("table") == "code";
  if (exponential) c.ratio = spec.number("ratio");
  if (code) {
    if (spec.has("levels"))
      spec.fail("levels",
                "table \"code\" is sized by \"bits\" (2^bits signed levels, no zero level), not by "
                "\"levels\"; use \"bits\", or table \"paper\"");
    c.table = exponential ? TableKind::code_exponential : TableKind::code_uniform;
    c.levels = static_cast<int>(spec.integer("bits"));
    if (exponential && std::pow(c.ratio, std::ldexp(1.0, c.levels - 1) - 1) < 0x1.0p-100)
      spec.fail(
          "bits",
          "the smallest level ratio^(2^(bits-1) - 1) is below 2^-100; use fewer bits or a larger ratio");
  } else {
    if (spec.has("bits"))
      spec.fail("bits", "\"bits\" sizes the \"code\" tables; the paper tables take \"levels\" (s)");
    c.table = exponential ? TableKind::paper_exponential : TableKind::paper_uniform;
    c.levels = static_cast<int>(spec.integer("levels"));
    if (exponential && std::pow(c.ratio, c.levels) < 0x1.0p-100)
      spec.fail("levels",
                "the smallest level ratio^levels is below 2^-100; use fewer levels or a larger ratio");
  }
  const std::string coding = spec.string("coding", std::string(code ? "fixed" : "elias"));
  const bool elias = coding == "elias";
  if (elias && code)
    spec.fail("coding",
              "the \"code\" tables have no zero level, so QSGD's sparse Elias code does not apply; use "
              "\"fixed\"");
  c.coding = elias ? Coding::elias : coding == "zstd" ? Coding::zstd : Coding::fixed;
  if (elias)
    c.elias = spec.string("elias") == "omega" ? EliasCode::omega : EliasCode::gamma;
  else if (spec.has("elias"))
    spec.fail("elias", "\"elias\" chooses the integer code of coding \"elias\" only");
  if (c.coding == Coding::zstd)
    c.zstd_level = static_cast<int>(spec.integer("zstd_level"));
  else if (spec.has("zstd_level"))
    spec.fail("zstd_level", "\"zstd_level\" applies to coding \"zstd\" only");
  c.bucket = static_cast<std::size_t>(spec.integer("bucket"));
  c.per_tensor = spec.string("bucketing") == "per_tensor";
  c.contractive = spec.string("scale") == "contractive";
  return std::make_unique<Quantizer>(std::move(c));
}

const bool registered_quantizer_spec =
    compressors().add(
        {"qsgd",
         "QSGD (Alistarh et al. 2017): unbiased stochastic rounding of |x_i| / ||x||_2 to s uniform "
         "levels per bucket.",
         quantizer_keys(false),
         {"codes_values"},
         {json::parse(R"({"kind": "qsgd", "levels": 4, "bucket": 64})"),
          json::parse(R"({"kind": "qsgd", "levels": 16, "elias": "gamma", "bucket": 0})"),
          json::parse(R"({"kind": "qsgd", "levels": 5, "coding": "fixed", "bucket": 50})"),
          json::parse(R"({"kind": "qsgd", "table": "code", "bits": 3, "scale": "contractive"})"),
          json::parse(R"({"kind": "qsgd", "levels": 16, "coding": "zstd", "bucket": 512})")}},
        make_quantizer) &&
    compressors().add(
        {"qsgdinf",
         "QSGDinf: QSGD's uniform levels with the max-norm ||x||_inf as the bucket scale.",
         quantizer_keys(false),
         {"codes_values"},
         {json::parse(R"({"kind": "qsgdinf", "levels": 16, "bucket": 100})"),
          json::parse(R"({"kind": "qsgdinf", "levels": 16, "coding": "zstd", "zstd_level": 1})")}},
        make_quantizer) &&
    compressors().add({"nuqsgd",
                       "NUQSGD (Ramezani-Kebrya et al. 2021): unbiased stochastic rounding to exponentially "
                       "spaced levels ratio^j of |x_i| / ||x||_2 per bucket.",
                       quantizer_keys(true),
                       {"codes_values"},
                       {json::parse(R"({"kind": "nuqsgd", "levels": 7, "bucket": 100})"),
                        json::parse(R"({"kind": "nuqsgd", "table": "code", "bits": 4, "bucket": 64})"),
                        json::parse(R"({"kind": "nuqsgd", "levels": 7, "coding": "zstd", "bucket": 100})")}},
                      make_quantizer);

}  // namespace

}  // namespace sgdsim::compression
