// The scenario vocabulary of compressors: reads one compressor object, validates it, echoes the defaults.
#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/identity.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "algorithms/compression/sign.hpp"
#include "algorithms/compression/sparsifier.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {

namespace {

constexpr std::int64_t max_bucket = std::int64_t{1} << 31;

EliasCode read_elias_code(Spec& spec) {
  return spec.choice("elias", {"omega", "gamma"}, "omega") == "omega" ? EliasCode::omega : EliasCode::gamma;
}

std::unique_ptr<Compressor> make_quantizer(Spec& spec, const std::string& kind) {
  QuantizerConfig c;
  c.method = kind;
  c.norm = kind == "qsgdinf" ? Norm::max_abs : Norm::l2;
  const bool exponential = kind == "nuqsgd";
  const bool code = spec.choice("table", {"paper", "code"}, "paper") == "code";
  if (exponential) {
    c.ratio = spec.number("ratio", 0.5, 0.0, 1.0);
    if (c.ratio <= 0.0 || c.ratio >= 1.0) spec.expected("ratio", "a number strictly between 0 and 1");
  } else if (spec.has("ratio")) {
    spec.fail("ratio", "only nuqsgd's exponential levels have a ratio");
  }
  if (code) {
    if (spec.has("levels"))
      spec.fail("levels",
                "table \"code\" is sized by \"bits\" (2^bits signed levels, no zero level), not by "
                "\"levels\"; use \"bits\", or table \"paper\"");
    c.table = exponential ? TableKind::code_exponential : TableKind::code_uniform;
    c.levels = static_cast<int>(spec.integer("bits", 4, 1, 16));
    if (exponential && std::pow(c.ratio, std::ldexp(1.0, c.levels - 1) - 1) < 0x1.0p-100)
      spec.fail(
          "bits",
          "the smallest level ratio^(2^(bits-1) - 1) is below 2^-100; use fewer bits or a larger ratio");
  } else {
    if (spec.has("bits"))
      spec.fail("bits", "\"bits\" sizes the \"code\" tables; the paper tables take \"levels\" (s)");
    c.table = exponential ? TableKind::paper_exponential : TableKind::paper_uniform;
    if (exponential) {
      c.levels = static_cast<int>(spec.integer("levels", 7, 1, 32766));
      if (std::pow(c.ratio, c.levels) < 0x1.0p-100)
        spec.fail("levels",
                  "the smallest level ratio^levels is below 2^-100; use fewer levels or a larger ratio");
    } else {
      c.levels = static_cast<int>(spec.integer("levels", 16, 1, 32767));
    }
  }
  const bool elias = spec.choice("coding", {"elias", "fixed"}, code ? "fixed" : "elias") == "elias";
  if (elias && code)
    spec.fail("coding",
              "the \"code\" tables have no zero level, so QSGD's sparse Elias code does not apply; use "
              "\"fixed\"");
  c.coding = elias ? Coding::elias : Coding::fixed;
  if (elias)
    c.elias = read_elias_code(spec);
  else if (spec.has("elias"))
    spec.fail("elias", "\"elias\" chooses the integer code of coding \"elias\" only");
  c.bucket = static_cast<std::size_t>(spec.integer("bucket", 8192, 0, max_bucket));
  c.contractive = spec.choice("scale", {"none", "contractive"}, "none") == "contractive";
  spec.finish();
  return std::make_unique<Quantizer>(std::move(c));
}

KeepCount read_keep(Spec& spec) {
  KeepCount keep;
  keep.where = spec.where("k");
  const bool has_k = spec.has("k"), has_fraction = spec.has("fraction");
  if (has_k == has_fraction)
    spec.fail(has_k ? "fraction" : "k",
              "give exactly one of \"k\" (coordinates kept) and \"fraction\" (of d)");
  if (has_k) {
    keep.k = static_cast<std::size_t>(spec.integer("k", std::nullopt, 1, max_bucket - 1));
  } else {
    keep.where = spec.where("fraction");
    keep.fraction = spec.number("fraction", std::nullopt, 0.0, 1.0);
    if (keep.fraction <= 0.0) spec.expected("fraction", "a number in (0, 1]");
  }
  return keep;
}

std::unique_ptr<Compressor> make_sparsifier(Spec& spec, const std::string& kind,
                                            std::unique_ptr<Compressor> inner) {
  KeepCount keep = read_keep(spec);
  const EliasCode code = read_elias_code(spec);
  spec.finish();
  return std::make_unique<Sparsifier>(kind == "topk" ? Selection::top : Selection::random, std::move(keep),
                                      std::move(inner), code);
}

const std::vector<std::string> kinds = {"none", "qsgd",  "qsgdinf", "nuqsgd",
                                        "topk", "randk", "sign",    "compose"};

std::unique_ptr<Compressor> make(Spec& spec, bool inside_compose);

std::unique_ptr<Compressor> make_compose(Spec& spec) {
  const json* stages = spec.peek("stages");
  if (!stages || !stages->is_array() || stages->size() != 2)
    spec.expected("stages",
                  "an array of two compressor objects: a sparsifier (topk or randk), then a quantizer "
                  "(qsgd, qsgdinf, nuqsgd, sign or none)");
  std::vector<Spec> parts = spec.objects("stages");
  spec.finish();
  const std::string first = parts[0].choice("kind", {"topk", "randk"});
  auto inner = make(parts[1], true);
  return make_sparsifier(parts[0], first, std::move(inner));
}

std::unique_ptr<Compressor> make(Spec& spec, bool inside_compose) {
  const std::string kind = spec.choice(
      "kind", inside_compose ? std::vector<std::string>{"qsgd", "qsgdinf", "nuqsgd", "sign", "none"} : kinds);
  if (kind == "none") {
    spec.finish();
    return std::make_unique<Identity>();
  }
  if (kind == "qsgd" || kind == "qsgdinf" || kind == "nuqsgd") return make_quantizer(spec, kind);
  if (kind == "sign") {
    const auto bucket = static_cast<std::size_t>(spec.integer("bucket", 0, 0, max_bucket));
    spec.finish();
    return std::make_unique<ScaledSign>(bucket);
  }
  if (kind == "topk" || kind == "randk") return make_sparsifier(spec, kind, std::make_unique<Identity>());
  return make_compose(spec);
}

}  // namespace

std::unique_ptr<Compressor> make_compressor(Spec& spec) {
  return make(spec, false);
}

std::unique_ptr<Compressor> make_compressor(const std::string& json_text, const std::string& origin) {
  const json value = parse_json_text(json_text, origin);
  json resolved;
  Spec spec(value, origin, "$", resolved);
  return make_compressor(spec);
}

}  // namespace sgdsim::compression
