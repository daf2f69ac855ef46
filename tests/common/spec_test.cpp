#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "common/spec.hpp"

using namespace sgdsim;

namespace {
const keys::Object& declared() {
  static const keys::Object object{
      "test",
      "",
      {keys::integer("levels", "").fallback_to(4).between(1, 1 << 20),
       keys::integer("bucket", "").fallback_to(8192).at_least(1),
       keys::choice("kind", {"qsgd", "nuqsgd"}, ""), keys::bandwidth("rate", ""), keys::string("missing", ""),
       keys::integer("n", "").at_least(1), keys::integers("dims", "").between(1, 10),
       keys::integers("bad", "").between(1, 10), keys::number("fraction", "").above(0).at_most(1),
       keys::string("unread", "").fallback_to("x")}};
  return object;
}
}  // namespace

TEST_CASE("spec fills defaults, echoes them and rejects unknown keys with a suggestion") {
  json doc = parse_json_text(R"({"levels": 16, /* comment */ "bukcet": 512})", "s.json");
  json resolved;
  Spec spec(doc, "s.json", "$.c", resolved, declared());
  CHECK(spec.integer("levels") == 16);
  CHECK(spec.integer("bucket") == 8192);
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
  Spec spec(doc, "f.json", "$.x", resolved, declared());
  CHECK_THROWS_WITH(spec.integer("levels"),
                    Catch::Contains("f.json: $.x.levels") && Catch::Contains("found the number -3"));
  CHECK_THROWS_WITH(spec.string("kind"), Catch::Contains("did you mean \"qsgd\""));
  CHECK_THROWS_WITH(spec.bandwidth("rate"), Catch::Contains("$.x.rate"));
  CHECK_THROWS_WITH(spec.string("missing"), Catch::Contains("the key is required"));
}

TEST_CASE("invalid JSON reports line and column") {
  CHECK_THROWS_WITH(parse_json_text("{\n  \"a\": 1,\n  oops\n}", "bad.json"),
                    Catch::Contains("bad.json: line 3"));
}

TEST_CASE("a number beyond double reports line, column, byte offset and JSON path") {
  CHECK_THROWS_WITH(
      parse_json_text("{\n  \"a\": [1, {\"b\": 2}, {\"c\": -1e400}]\n}", "big.json"),
      Catch::Equals("big.json: line 2, column 28 (byte offset 29): $.a[2].c: invalid JSON: a number "
                    "is out of range (number overflow parsing '-1e400')"));
  CHECK_THROWS_WITH(parse_json_text("// note\n[1e999]", "top.json"),
                    Catch::StartsWith("top.json: line 2, column 2 (byte offset 9): $[0]: invalid JSON"));
}

TEST_CASE("integral floats are integers alone and in arrays") {
  json doc = json::parse(R"({"n": 4.0, "dims": [4.0, 3], "bad": [2.5]})");
  json resolved;
  Spec spec(doc, "f.json", "$", resolved, declared());
  CHECK(spec.integer("n") == 4);
  CHECK(spec.integers("dims") == std::vector<std::int64_t>{4, 3});
  CHECK_THROWS_WITH(spec.integers("bad"), Catch::Contains("$.bad[0]"));
}

TEST_CASE("open bounds, undeclared reads and keys that do not apply") {
  json doc = json::parse(R"({"fraction": 0, "unread": "y"})");
  json resolved;
  Spec spec(doc, "f.json", "$", resolved, declared());
  CHECK_THROWS_WITH(spec.number("fraction"), Catch::Contains("a number in (0, 1]"));
  // Reading a key nobody declared is a bug of the reading code, not bad input.
  CHECK_THROWS_AS(spec.integer("undeclared"), std::logic_error);
  // A declared key that the code did not read does not apply with the other settings.
  CHECK_THROWS_WITH(spec.finish(), Catch::Contains("$.unread") && Catch::Contains("does not apply"));
}

TEST_CASE("a family object: kind with did-you-mean, shorthand and default kind") {
  keys::Registry<int> family("thing", "kind", "", {keys::integer("common", "").fallback_to(1)},
                             keys::Shorthand{keys::Type::number, "a", "x"}, "a", {{"cap", "A capability."}});
  family.add({"a", "", {keys::number("x", "").fallback_to(0.5)}, {"cap"}}, 1);
  family.add({"bee", "", {keys::integer("y", "").fallback_to(2)}, {}}, 2);
  json resolved;
  const json shorthand = 0.25;
  Spec a = Spec::of_family(shorthand, "f.json", "$.t", resolved, family);
  CHECK(a.kind_name() == "a");
  CHECK(a.kind()->has("cap"));
  CHECK(a.number("x") == 0.25);
  CHECK(a.integer("common") == 1);
  a.finish();
  CHECK(resolved == json::parse(R"({"kind": "a", "x": 0.25, "common": 1})"));
  const json defaulted = json::parse(R"({"x": 2})");
  json r2;
  CHECK(Spec::of_family(defaulted, "f.json", "$.t", r2, family).kind_name() == "a");
  const json typo = json::parse(R"({"kind": "be"})");
  json r3;
  CHECK_THROWS_WITH(Spec::of_family(typo, "f.json", "$.t", r3, family),
                    Catch::Contains("did you mean \"bee\""));
  const json other = json::parse(R"({"kind": "bee", "x": 1})");
  json r4;
  Spec bee = Spec::of_family(other, "f.json", "$.t", r4, family);
  CHECK_THROWS_WITH(bee.finish(), Catch::Contains("unknown key \"x\" for kind \"bee\""));
  CHECK(family.kind_names("cap") == std::vector<std::string>{"a"});
}

TEST_CASE("a plain number for a bandwidth, latency or speed is refused with its readings spelled out") {
  static const keys::Object object{
      "units",
      "",
      {keys::bandwidth("bandwidth", ""), keys::duration("latency", ""), keys::speed("host_speed", ""),
       keys::bandwidth("measured", "").plain_number_allowed(), keys::duration("zero", ""),
       keys::duration("fallback", "").fallback_to(0.5)}};
  json doc = json::parse(
      R"({"bandwidth": 10000000000, "latency": 0.5, "host_speed": 1e10, "measured": 1.25e9, "zero": 0})");
  json resolved;
  Spec spec(doc, "s.json", "$.network", resolved, object);
  CHECK_THROWS_WITH(spec.bandwidth("bandwidth"),
                    Catch::Contains("s.json: $.network.bandwidth: is the plain number 10000000000") &&
                        Catch::Contains("write \"10Gbps\" for bits/s or \"10GBps\" for bytes/s"));
  CHECK_THROWS_WITH(spec.duration("latency"),
                    Catch::Contains("write \"500ms\" for seconds or \"500us\" for milliseconds"));
  CHECK_THROWS_WITH(spec.speed("host_speed"), Catch::Contains("write \"10Gf\" for flop/s"));
  // A file a program wrote (a device profile) may hold base units; 0 says no unit and needs none; a default
  // is the code's own.
  CHECK(spec.bandwidth("measured") == 1.25e9);
  CHECK(spec.duration("zero") == 0);
  CHECK(spec.duration("fallback") == 0.5);
}

TEST_CASE("capability names are checked and a typo is a logic error rather than false") {
  keys::Registry<int> family("thing", "kind", "", {}, std::nullopt, {},
                             {{"convex", "A unique optimum."}, {"cheap", "Cheap to run."}});
  family.add({"a", "", {}, {"convex"}}, 1);
  family.add({"b", "", {}, {}}, 2);
  // Registering a kind with a capability its family does not declare fails at start-up.
  CHECK_THROWS_WITH(family.add({"c", "", {}, {"convx"}}, 3),
                    Catch::Contains("\"convx\"") && Catch::Contains("convex, cheap"));
  CHECK(family.find("c") == nullptr);
  const keys::Kind& a = *family.find("a");
  CHECK(a.has("convex"));
  CHECK_FALSE(family.find("b")->has("convex"));
  CHECK_FALSE(a.has("cheap"));
  // Asking with a misspelt name is a bug of the asking code.
  CHECK_THROWS_AS(a.has("convx"), std::logic_error);
  CHECK_THROWS_AS(family.kinds("convx"), std::logic_error);
  CHECK(family.kind_names("convex") == std::vector<std::string>{"a"});
  CHECK_THROWS_AS(keys::variant("t", family, "").needing({"cheep"}), std::logic_error);
  CHECK(keys::variant("t", family, "").needing({"cheap"}).capability == std::vector<std::string>{"cheap"});
}
