// The scenario vocabulary: defaults are echoed, mistakes are InputErrors naming the JSON path.
#include <catch2/catch.hpp>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

using namespace sgdsim;
using namespace sgdsim::compression;

namespace {
json resolve(const std::string& text) {
  const json value = parse_json_text(text, "s.json");
  json resolved;
  Spec spec = Spec::of_family(value, "s.json", "$.algorithm.compressor", resolved, compressors());
  make_compressor(spec);
  return resolved;
}
std::string error_of(const std::string& text) {
  try {
    resolve(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("quantizer defaults are filled in and echoed") {
  const json q = resolve(R"({"kind": "qsgd"})");
  CHECK(q ==
        json::parse(R"({"kind": "qsgd", "table": "paper", "levels": 16, "coding": "elias", "elias": "omega",
                             "bucket": 8192, "bucketing": "flat", "scale": "none"})"));
  const json n = resolve(R"({"kind": "nuqsgd", "table": "code"})");
  CHECK(n == json::parse(R"({"kind": "nuqsgd", "table": "code", "ratio": 0.5, "bits": 4, "coding": "fixed",
                             "bucket": 8192, "bucketing": "flat", "scale": "none"})"));
  CHECK(resolve(R"({"kind": "nuqsgd"})")["levels"] == 7);
  CHECK(resolve(R"({"kind": "sign"})")["bucket"] == 0);
  const json c =
      resolve(R"({"kind": "compose", "stages": [{"kind": "topk", "fraction": 0.05}, {"kind": "qsgd"}]})");
  CHECK(c["stages"][0]["elias"] == "omega");
  CHECK(c["stages"][1]["levels"] == 16);
}

TEST_CASE("compressor mistakes name the path and say what to do") {
  CHECK_THAT(error_of(R"({"kind": "qsdg"})"),
             Catch::Contains("$.algorithm.compressor.kind") && Catch::Contains("did you mean \"qsgd\""));
  CHECK_THAT(error_of(R"({"kind": "qsgd", "levls": 4})"),
             Catch::Contains("$.algorithm.compressor.levls") && Catch::Contains("did you mean \"levels\""));
  CHECK_THAT(error_of(R"({"kind": "qsgd", "table": "code", "levels": 4})"),
             Catch::Contains("compressor.levels") && Catch::Contains("\"bits\""));
  CHECK_THAT(error_of(R"({"kind": "qsgd", "bits": 4})"), Catch::Contains("compressor.bits"));
  CHECK_THAT(error_of(R"({"kind": "nuqsgd", "table": "code", "coding": "elias"})"),
             Catch::Contains("compressor.coding") && Catch::Contains("no zero level"));
  CHECK_THAT(error_of(R"({"kind": "qsgd", "ratio": 0.5})"), Catch::Contains("compressor.ratio"));
  CHECK_THAT(error_of(R"({"kind": "nuqsgd", "ratio": 1})"), Catch::Contains("compressor.ratio"));
  CHECK_THAT(error_of(R"({"kind": "nuqsgd", "levels": 200})"), Catch::Contains("2^-100"));
  CHECK_THAT(error_of(R"({"kind": "qsgd", "levels": 0})"), Catch::Contains("compressor.levels"));
  CHECK_THAT(error_of(R"({"kind": "qsgd", "coding": "fixed", "elias": "gamma"})"),
             Catch::Contains("compressor.elias"));
  CHECK_THAT(error_of(R"({"kind": "topk"})"), Catch::Contains("exactly one of"));
  CHECK_THAT(error_of(R"({"kind": "topk", "k": 3, "fraction": 0.1})"), Catch::Contains("exactly one of"));
  CHECK_THAT(error_of(R"({"kind": "randk", "fraction": 0})"), Catch::Contains("compressor.fraction"));
  CHECK_THAT(error_of(R"({"kind": "randk", "fraction": 1.5})"), Catch::Contains("compressor.fraction"));
  CHECK_THAT(error_of(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 3}]})"),
             Catch::Contains("compressor.stages") && Catch::Contains("2 objects"));
  CHECK_THAT(error_of(R"({"kind": "compose", "stages": [{"kind": "qsgd"}, {"kind": "topk", "k": 3}]})"),
             Catch::Contains("stages[0].kind"));
  CHECK_THAT(error_of(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 3}, {"kind": "compose"}]})"),
             Catch::Contains("stages[1].kind"));
  CHECK_THAT(
      error_of(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 3}, {"kind": "qsgd", "lvl": 2}]})"),
      Catch::Contains("stages[1].lvl"));
  CHECK_THAT(
      error_of(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 3, "x": 1}, {"kind": "sign"}]})"),
      Catch::Contains("stages[0].x"));
  CHECK_THAT(error_of(R"({"kind": "none", "levels": 3})"), Catch::Contains("compressor.levels"));
}

TEST_CASE("the contractive scale is 1/(1 + beta) of the bucket actually used") {
  auto c = make_compressor(R"({"kind": "qsgd", "levels": 4, "scale": "contractive", "bucket": 100})");
  const auto& q = dynamic_cast<const Quantizer&>(*c);
  CHECK(q.output_scale(1000) == Approx(1 / (1 + std::min(100 / 16.0, 10 / 4.0))));
  CHECK(q.output_scale(64) == Approx(1 / (1 + std::min(64 / 16.0, 8 / 4.0))));
  auto plain = make_compressor(R"({"kind": "qsgd"})");
  CHECK(dynamic_cast<const Quantizer&>(*plain).output_scale(1000) == 1.0f);
}
