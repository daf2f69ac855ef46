// make_model: reading the "model" object and checking it against the data.
#include <catch2/catch.hpp>

#include "algorithms/learning/generalized_linear_model.hpp"
#include "algorithms/learning/mlp_model.hpp"
#include "algorithms/learning/torch_plugin.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

namespace {

std::unique_ptr<Model> build(const std::string& text, const Dataset& data, json* resolved = nullptr) {
  SpecHolder holder(text, "$.model", models());
  auto model = make_model(holder.spec, data);
  if (resolved) *resolved = holder.resolved;
  return model;
}

}  // namespace

TEST_CASE("model dimensions follow the data and the hidden sizes, and defaults are echoed") {
  const Dataset data = random_dataset(10, 6, 4, 1);
  json resolved;
  CHECK(build(R"({"kind": "softmax"})", data, &resolved)->dimension() == 4 * 7);
  CHECK(resolved["l2"] == 1e-4);
  CHECK(build(R"({"kind": "mlp", "hidden": [5, 3]})", data)->dimension() ==
        5 * 6 + 5 + 3 * 5 + 3 + 4 * 3 + 4);
  const auto mlp = build(R"({"kind": "mlp"})", data, &resolved);
  CHECK(dynamic_cast<const MlpModel&>(*mlp).widths() == std::vector<std::size_t>{6, 128, 4});
  CHECK(resolved["hidden"] == json::array({128}));
  CHECK(build(R"({"kind": "linear", "l2": 0})", data)->dimension() == 7);
  CHECK(build(R"({"kind": "logistic", "positive_class": 0})", data)->dimension() == 7);
}

TEST_CASE("logistic picks its positive class by the label written in the data") {
  Dataset data = random_dataset(10, 3, 3, 1);
  data.class_values = {1, 5, 7};  // e.g. a LIBSVM file with labels 1, 5 and 7
  const auto model = build(R"({"kind": "logistic", "positive_class": 5})", data);
  CHECK(dynamic_cast<const GeneralizedLinearModel&>(*model).positive_class() == 1);
  CHECK_THROWS_WITH(build(R"({"kind": "logistic", "positive_class": 2})", data),
                    Catch::Contains("$.model.positive_class") && Catch::Contains("labels: 1, 5, 7"));
  CHECK_THROWS_WITH(build(R"({"kind": "logistic"})", data),
                    Catch::Contains("3 classes") && Catch::Contains("one-vs-rest"));
  // Two classes: the second is positive by default.
  Dataset binary = random_dataset(10, 3, 2, 1);
  binary.class_values = {-1, 1};
  json resolved;
  const auto two = build(R"({"kind": "logistic"})", binary, &resolved);
  CHECK(dynamic_cast<const GeneralizedLinearModel&>(*two).positive_class() == 1);
  CHECK(resolved["positive_class"] == 1.0);
}

TEST_CASE("model errors name the key and the problem") {
  const Dataset data = random_dataset(10, 3, 3, 1);
  CHECK_THROWS_AS(build(R"({"kind": "softmaxx"})", data), InputError);
  CHECK_THROWS_WITH(build(R"({"kind": "softmax", "hidden": [3]})", data), Catch::Contains("$.model.hidden"));
  CHECK_THROWS_WITH(build(R"({"kind": "mlp", "hidden": []})", data), Catch::Contains("$.model.hidden"));
  CHECK_THROWS_WITH(build(R"({"kind": "mlp", "hidden": [0]})", data), Catch::Contains("$.model.hidden[0]"));
  CHECK_THROWS_WITH(build(R"({"kind": "softmax", "l2": -1})", data), Catch::Contains("$.model.l2"));
  CHECK_THROWS_WITH(build(R"({"kind": "softmax", "l3": 1})", data), Catch::Contains("unknown key \"l3\""));
  CHECK_THROWS_WITH(build(R"({"kind": "softmax", "positive_class": 1})", data),
                    Catch::Contains("unknown key \"positive_class\" for kind \"softmax\""));
  Dataset regression = random_dataset(10, 3, 2, 1);
  regression.labels.clear();
  regression.classes = 0;
  CHECK_THROWS_WITH(build(R"({"kind": "softmax"})", regression), Catch::Contains("regression"));
  Dataset images = random_dataset(10, 3, 3, 1);
  images.targets.clear();
  CHECK_THROWS_WITH(build(R"({"kind": "linear"})", images), Catch::Contains("real-valued targets"));
}

TEST_CASE("torch kinds refuse plain features, and builds without libtorch refuse them with a clear message") {
  const Dataset plain = random_dataset(10, 6, 4, 1);
  CHECK_THROWS_WITH(build(R"({"kind": "lenet5"})", plain),
                    Catch::Contains("$.model.kind") && Catch::Contains("needs image data"));
  Dataset images = random_dataset(4, 28 * 28, 10, 2);
  images.image = {1, 28, 28};
  if (torch_built()) {
    CHECK(build(R"({"kind": "lenet5"})", images)->dimension() == 61706);
  } else {
    CHECK_THROWS_WITH(build(R"({"kind": "lenet5"})", images),
                      Catch::Contains("$.model.kind") && Catch::Contains("no libtorch"));
  }
}
