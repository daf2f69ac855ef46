#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "common/spec.hpp"

using namespace sgdsim;

TEST_CASE("spec fills defaults, echoes them and rejects unknown keys with a suggestion") {
  json doc = parse_json_text(R"({"levels": 16, /* comment */ "bukcet": 512})", "s.json");
  json resolved;
  Spec spec(doc, "s.json", "$.c", resolved);
  CHECK(spec.integer("levels", 4, 1, 1 << 20) == 16);
  CHECK(spec.integer("bucket", 8192, 1) == 8192);
  CHECK(resolved["bucket"] == 8192);
  try {
    spec.finish();
    FAIL("finish accepted an unknown key");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("s.json: $.c.bukcet") != std::string::npos);
    CHECK(what.find("did you mean \"bucket\"") != std::string::npos);
  }
}

TEST_CASE("spec errors name the path, the expectation and the value found") {
  json doc = json::parse(R"({"levels": -3, "kind": "qsdg", "rate": "fast"})");
  json resolved;
  Spec spec(doc, "f.json", "$.x", resolved);
  CHECK_THROWS_WITH(spec.integer("levels", 4, 1, 64),
                    Catch::Contains("f.json: $.x.levels") && Catch::Contains("found the number -3"));
  CHECK_THROWS_WITH(spec.choice("kind", {"qsgd", "nuqsgd"}), Catch::Contains("did you mean \"qsgd\""));
  CHECK_THROWS_WITH(spec.bandwidth("rate"), Catch::Contains("$.x.rate"));
  CHECK_THROWS_WITH(spec.string("missing"), Catch::Contains("the key is required"));
}

TEST_CASE("invalid JSON reports line and column") {
  CHECK_THROWS_WITH(parse_json_text("{\n  \"a\": 1,\n  oops\n}", "bad.json"),
                    Catch::Contains("bad.json: line 3"));
}

TEST_CASE("integral floats are integers alone and in arrays") {
  json doc = json::parse(R"({"n": 4.0, "dims": [4.0, 3], "bad": [2.5]})");
  json resolved;
  Spec spec(doc, "f.json", "$", resolved);
  CHECK(spec.integer("n", std::nullopt, 1) == 4);
  CHECK(spec.integers("dims", 1, 10) == std::vector<std::int64_t>{4, 3});
  CHECK_THROWS_WITH(spec.integers("bad", 1, 10), Catch::Contains("$.bad[0]"));
}
