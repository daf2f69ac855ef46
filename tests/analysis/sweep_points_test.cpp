// Sweep files, point expansion, stable ids and shards, tested in-process.
#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "analysis/sweep_point.hpp"
#include "analysis/sweep_shard.hpp"
#include "analysis/sweep_spec.hpp"
#include "common/dotted_path.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

using namespace sgdsim;
using namespace sgdsim::analysis;

namespace {

Sweep sweep_from(const std::string& text) {
  return parse_sweep(parse_json_text(text, "s.json"), "s.json");
}

const char* const study = R"({
  "name": "study",
  "base": {"network": {"topology": {"kind": "ring", "nodes": 4}}, "algorithm": {"kind": "dpsgd", "lr": 0.1}},
  "grid": {
    "network.link.bandwidth": ["10Mbps", "100Mbps", "1Gbps"],
    "algorithm": {"labels": ["dpsgd", "choco"], "values": [{"kind": "dpsgd"}, {"kind": "choco", "consensus_step": 0.5}]}
  },
  "seeds": [1, 2]
})";

std::set<std::string> ids_of(const std::vector<SweepPoint>& points) {
  std::set<std::string> ids;
  for (const auto& p : points) ids.insert(p.id);
  return ids;
}

}  // namespace

TEST_CASE("a sweep expands to points x grid x seeds with labels and parameter cells") {
  const Sweep sweep = sweep_from(study);
  const auto points = expand(sweep);
  REQUIRE(points.size() == 3 * 2 * 2);
  CHECK(parameter_columns(sweep) == std::vector<std::string>{"algorithm", "network.link.bandwidth"});
  CHECK(ids_of(points).size() == points.size());
  std::set<std::string> labels;
  for (std::size_t i = 0; i < points.size(); ++i) {
    CHECK(points[i].index == i);
    REQUIRE(points[i].parameters.size() == 2);
    labels.insert(points[i].label);
  }
  CHECK(labels.size() == 6);  // seeds share a label
  CHECK(points[0].parameters[0] == "dpsgd");
  CHECK(points[0].parameters[1] == "10Mbps");
  CHECK(points[0].label == "dpsgd, bandwidth=10Mbps");
  CHECK(points[0].id.rfind("dpsgd-bandwidth-10mbps-s1-", 0) == 0);
}

TEST_CASE("point ids depend on overrides and seed only, not on the order of enumeration") {
  const auto original = expand(sweep_from(study));
  // The same study with grid values, grid keys and seeds listed in another order.
  const auto reordered = expand(sweep_from(R"({
    "name": "study",
    "seeds": [2, 1],
    "grid": {
      "algorithm": {"labels": ["choco", "dpsgd"], "values": [{"consensus_step": 0.5, "kind": "choco"}, {"kind": "dpsgd"}]},
      "network.link.bandwidth": ["1Gbps", "10Mbps", "100Mbps"]
    },
    "base": {"network": {"topology": {"kind": "ring", "nodes": 4}}, "algorithm": {"kind": "dpsgd", "lr": 0.1}}
  })"));
  CHECK(ids_of(original) == ids_of(reordered));
  CHECK(original.front().id != reordered.front().id);  // the enumeration order did change

  // Changing a value changes exactly the ids of the points that use it.
  const auto changed =
      expand(sweep_from(std::string(study).replace(std::string(study).find("1Gbps"), 5, "2Gbps")));
  std::set<std::string> common;
  for (const auto& id : ids_of(changed)) common.insert(id);
  std::size_t shared = 0;
  for (const auto& id : ids_of(original)) shared += common.count(id);
  CHECK(shared == 8);
  // The same point id twice from separate expansions (no hidden state).
  CHECK(expand(sweep_from(study))[5].id == original[5].id);
}

TEST_CASE("points whose slugs read alike still get different ids") {
  // The readable part of an id keeps letters (lowercased), digits and dots and turns anything else into '-':
  // 1e+300 and 1e-300, or A and a, read alike there. The hash of the point's overrides tells them apart.
  const auto points = expand(sweep_from(R"({
    "name": "s", "base": {"algorithm": {"kind": "dpsgd"}},
    "grid": {"algorithm.trigger.c0": [1e+300, 1e-300], "data.name": ["A", "a"]}, "seeds": [1]
  })"));
  REQUIRE(points.size() == 4);
  CHECK(ids_of(points).size() == 4);
  const auto readable = [](const SweepPoint& p) { return p.id.substr(0, p.id.rfind('-')); };
  for (const auto& p : points) CHECK(readable(p) == "c0-1e-300-name-a-s1");
}

TEST_CASE("point scenarios apply overrides by dotted path, whole objects before their refinements") {
  const Sweep sweep = sweep_from(R"({
    "base": {"algorithm": {"kind": "dpsgd", "lr": 0.1, "steps": 10}},
    "grid": {"algorithm": [{"kind": "choco"}], "algorithm.lr": [0.5], "network.link.latency": ["1ms"]},
    "seeds": [7]
  })");
  const auto points = expand(sweep);
  REQUIRE(points.size() == 1);
  const json scenario = point_scenario(sweep, points[0], "out/points");
  // The object replaced the base's algorithm (steps is gone), then lr refined it.
  CHECK(scenario["algorithm"] == json::parse(R"({"kind": "choco", "lr": 0.5})"));
  CHECK(scenario["network"]["link"]["latency"] == "1ms");  // objects created as needed
  CHECK(scenario["seed"] == 7);
  CHECK(scenario["name"] == "s/" + points[0].id);

  json doc = {{"a", 3}};
  CHECK_THROWS_WITH(set_dotted(doc, "a.b", 1, "f.json"),
                    Catch::Contains("f.json") && Catch::Contains("$.a") && Catch::Contains("not an object"));
}

TEST_CASE("explicit points combine with the grid and appear as a labelled column") {
  const Sweep sweep = sweep_from(R"({
    "base": {"seed": 4, "algorithm": {"kind": "dpsgd"}},
    "points": [{"label": "plain", "set": {"algorithm.kind": "dpsgd"}},
               {"set": {"algorithm.kind": "sparq", "algorithm.local_steps": 5}}],
    "grid": {"algorithm.lr": [0.1, 0.2]}
  })");
  const auto points = expand(sweep);
  REQUIRE(points.size() == 4);
  CHECK(sweep.seeds == std::vector<std::int64_t>{4});  // from the base when "seeds" is absent
  CHECK(parameter_columns(sweep) == std::vector<std::string>{"point", "algorithm.lr"});
  CHECK(points[0].parameters == std::vector<std::string>{"plain", "0.1"});
  CHECK(points[2].parameters[0] == "kind=sparq, local_steps=5");
  CHECK(points[3].label == "kind=sparq, local_steps=5, lr=0.2");
}

TEST_CASE("bad sweep files are rejected with the file and JSON path") {
  struct Case {
    const char* text;
    const char* where;
  };
  const Case cases[] = {
      {R"({"grid": {}})", "s.json: $.base"},
      {R"({"base": 3})", "s.json: $.base"},
      {R"({"base": {}, "grid": {"a.b": 5}})", "s.json: $.grid[\"a.b\"]"},
      {R"({"base": {}, "grid": {"a.b": []}})", "s.json: $.grid[\"a.b\"]"},
      {R"({"base": {}, "grid": {"a..b": [1]}})", "s.json: $.grid[\"a..b\"]"},
      {R"({"base": {}, "grid": {"seed": [1, 2]}})", "seeds"},
      {R"({"base": {}, "grid": {"a": [1, 1]}})", "appears twice"},
      {R"({"base": {}, "grid": {"a": {"values": [1, 2], "labels": ["x"]}}})", "$.grid[\"a\"].labels"},
      {R"({"base": {}, "grid": {"a": {"values": [1], "lables": ["x"]}}})", "lables"},
      {R"({"base": {}, "seeds": [1, -2]})", "s.json: $.seeds[1]"},
      {R"({"base": {}, "seeds": [3, 3]})", "s.json: $.seeds[1]"},
      {R"({"base": {}, "seeds": []})", "s.json: $.seeds"},
      {R"({"base": {}, "grid": {"a": [1]}, "gird": {}})", "did you mean \"grid\""},
      {R"({"base": {}, "points": [{"label": "x"}]})", "s.json: $.points[0].set"},
      {R"({"base": {}, "points": [{"label": "x", "set": {}}]})", "s.json: $.points[0].set: is empty"},
      {R"({"base": {}, "points": [{"set": {"a": 1}, "colour": 2}]})", "s.json: $.points[0].colour"},
      {R"({"base": {}, "points": [{"set": {"a": 1}}], "grid": {"a": [2]}})", "also a grid axis"},
      {R"({"base": {}, "points": [{"set": {"a": 1}}, {"set": {"a": 1}}]})", "same run"},
      {R"({"base": "does-not-exist.json"})", "s.json: $.base"},
      {R"({"base": {}, "name": 5})", "s.json: $.name"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    try {
      expand(sweep_from(c.text));
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(c.where));
    }
  }
}

TEST_CASE("shards are disjoint, cover the sweep and are numbered from 1") {
  const auto points = expand(sweep_from(study));
  for (std::size_t count : {1u, 2u, 3u, 5u, 12u, 13u}) {
    std::multiset<std::string> seen;
    for (std::size_t i = 1; i <= count; ++i) {
      const auto mine = select(points, parse_shard(std::to_string(i) + "/" + std::to_string(count)));
      // Balanced: sizes differ by at most one.
      CHECK(mine.size() >= points.size() / count);
      CHECK(mine.size() <= points.size() / count + 1);
      for (const auto& p : mine) seen.insert(p.id);
    }
    CHECK(seen.size() == points.size());
    CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == points.size());
  }
  for (const char* bad : {"0/3", "4/3", "1/0", "3", "a/b", "1/2/3", "-1/2", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_shard(bad), InputError);
  }
}

TEST_CASE("relative file paths in point scenarios still point at the same files from the points folder") {
  const Sweep sweep = parse_sweep(parse_json_text(R"({
    "base": {"data": {"dataset": "libsvm", "path": "data/train.svm", "test_path": "/abs/test.svm"}},
    "grid": {"network.topology": [{"kind": "edges", "path": "graphs/g.txt"}]}
  })",
                                                  "study/s.json"),
                                  "study/s.json");
  const json scenario = point_scenario(sweep, expand(sweep)[0], "out/points");
  CHECK(scenario["data"]["path"] == "../../study/data/train.svm");
  CHECK(scenario["data"]["test_path"] == "/abs/test.svm");
  CHECK(scenario["network"]["topology"]["path"] == "../../study/graphs/g.txt");
}
