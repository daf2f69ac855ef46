#include <catch2/catch.hpp>

#include <set>

#include "algorithms/learning/partition.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

namespace {

std::vector<Shard> split(const std::string& data_json, const Dataset& train, std::size_t nodes,
                         std::uint64_t seed, json* resolved = nullptr) {
  static const keys::Object data{
      "data", "", {keys::variant("partition", partitions(), "").fallback_to("iid")}};
  SpecHolder holder(data_json, "$.data", data);
  Spec spec = holder.spec.variant("partition");
  auto shards = partition(spec, train, nodes, seed);
  holder.spec.finish();
  if (resolved) *resolved = holder.resolved;
  return shards;
}

// Every sample in exactly one shard, no shard empty, indices ascending.
void check_cover(const std::vector<Shard>& shards, std::size_t samples) {
  std::vector<int> owners(samples, 0);
  for (const Shard& shard : shards) {
    CHECK_FALSE(shard.empty());
    CHECK(std::is_sorted(shard.begin(), shard.end()));
    for (std::size_t i : shard) ++owners.at(i);
  }
  CHECK(std::all_of(owners.begin(), owners.end(), [](int o) { return o == 1; }));
}

// Dataset with `per_class` samples of each class, classes interleaved.
Dataset balanced(int classes, std::size_t per_class) {
  Dataset data = random_dataset(static_cast<std::size_t>(classes) * per_class, 2, classes, 1);
  for (std::size_t i = 0; i < data.labels.size(); ++i)
    data.labels[i] = static_cast<int>(i % static_cast<std::size_t>(classes));
  return data;
}

std::size_t distinct_labels(const Shard& shard, const Dataset& data) {
  std::set<int> labels;
  for (std::size_t i : shard) labels.insert(data.labels[i]);
  return labels.size();
}

}  // namespace

TEST_CASE("iid partition: a balanced, seeded shuffle") {
  const Dataset data = balanced(10, 103);
  json resolved;
  const auto shards = split(R"({})", data, 7, 42, &resolved);
  CHECK(resolved["partition"] == json::parse(R"({"kind": "iid"})"));
  REQUIRE(shards.size() == 7);
  check_cover(shards, data.samples());
  for (const Shard& s : shards) {
    CHECK(s.size() >= 1030 / 7);
    CHECK(s.size() <= 1030 / 7 + 1);
    CHECK(distinct_labels(s, data) == 10);
  }
  CHECK(split(R"({"partition": "iid"})", data, 7, 42) == shards);
  CHECK(split(R"({"partition": {"kind": "iid"}})", data, 7, 42) == shards);
  CHECK(split(R"({})", data, 7, 43) != shards);
  // Not a plain contiguous split.
  CHECK(shards[0].back() - shards[0].front() > shards[0].size());
}

TEST_CASE("label_sorted partition: each node sees consecutive classes") {
  const Dataset data = balanced(10, 50);
  const auto shards = split(R"({"partition": "label_sorted"})", data, 10, 1);
  check_cover(shards, data.samples());
  for (std::size_t j = 0; j < shards.size(); ++j) {
    REQUIRE(distinct_labels(shards[j], data) == 1);
    CHECK(data.labels[shards[j][0]] == static_cast<int>(j));
  }
  const auto fewer = split(R"({"partition": "label_sorted"})", data, 5, 1);
  for (const Shard& s : fewer) CHECK(distinct_labels(s, data) == 2);
  // Regression data: sorted by target.
  Dataset regression = random_dataset(40, 2, 2, 3);
  regression.labels.clear();
  regression.classes = 0;
  const auto by_target = split(R"({"partition": "label_sorted"})", regression, 4, 1);
  check_cover(by_target, 40);
  float top = -1e30f;
  for (const Shard& s : by_target) {
    float low = 1e30f, high = -1e30f;
    for (std::size_t i : s)
      low = std::min(low, regression.targets[i]), high = std::max(high, regression.targets[i]);
    CHECK(low >= top);
    top = high;
  }
}

TEST_CASE("dirichlet partition: small alpha skews, large alpha approaches iid, deterministic") {
  const Dataset data = balanced(10, 200);
  const auto skewed = split(R"({"partition": {"kind": "dirichlet", "alpha": 0.1}})", data, 8, 5);
  check_cover(skewed, data.samples());
  CHECK(split(R"({"partition": {"kind": "dirichlet", "alpha": 0.1}})", data, 8, 5) == skewed);
  CHECK(split(R"({"partition": {"kind": "dirichlet", "alpha": 0.1}})", data, 8, 6) != skewed);
  const auto even = split(R"({"partition": {"kind": "dirichlet", "alpha": 1000}})", data, 8, 5);
  check_cover(even, data.samples());
  // The share of the largest class on each node: near 1 for small alpha, near 1/10 for large alpha.
  const auto mean_top_share = [&](const std::vector<Shard>& shards) {
    double total = 0;
    for (const Shard& s : shards) {
      std::vector<int> counts(10);
      for (std::size_t i : s) ++counts[static_cast<std::size_t>(data.labels[i])];
      total += static_cast<double>(*std::max_element(counts.begin(), counts.end())) /
               static_cast<double>(s.size());
    }
    return total / static_cast<double>(shards.size());
  };
  CHECK(mean_top_share(skewed) > 0.35);
  CHECK(mean_top_share(even) < 0.15);
  for (const Shard& s : even) CHECK(s.size() == Approx(250).margin(25));
}

TEST_CASE("partition errors") {
  const Dataset data = balanced(3, 2);
  CHECK_THROWS_WITH(
      split(R"({"partition": "iid"})", data, 7, 1),
      Catch::Contains("$.data.partition") && Catch::Contains("6 samples, fewer than the 7 nodes"));
  CHECK_THROWS_WITH(split(R"({"partition": "dirichlet"})", data, 2, 1), Catch::Contains("alpha"));
  CHECK_THROWS_WITH(split(R"({"partition": {"kind": "dirichlet"}})", data, 2, 1),
                    Catch::Contains("$.data.partition.alpha"));
  CHECK_THROWS_WITH(split(R"({"partition": {"kind": "dirichlet", "alpha": 0}})", data, 2, 1),
                    Catch::Contains("$.data.partition.alpha"));
  CHECK_THROWS_WITH(split(R"({"partition": {"kind": "dirichlet", "alpha": 1, "beta": 2}})", data, 2, 1),
                    Catch::Contains("unknown key \"beta\""));
  CHECK_THROWS_WITH(split(R"({"partition": "random"})", data, 2, 1), Catch::Contains("$.data.partition"));
  CHECK_THROWS_WITH(split(R"({"partition": 3})", data, 2, 1), Catch::Contains("$.data.partition"));
  // Tiny alpha with as many nodes as samples: nodes end up empty in every draw.
  CHECK_THROWS_WITH(split(R"({"partition": {"kind": "dirichlet", "alpha": 0.001}})", data, 6, 1),
                    Catch::Contains("without samples"));
  Dataset regression = random_dataset(10, 2, 2, 3);
  regression.labels.clear();
  regression.classes = 0;
  CHECK_THROWS_WITH(split(R"({"partition": {"kind": "dirichlet", "alpha": 1}})", regression, 2, 1),
                    Catch::Contains("class labels"));
}
