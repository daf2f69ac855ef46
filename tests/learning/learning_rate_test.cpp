#include <catch2/catch.hpp>

#include "algorithms/learning/learning_rate.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

namespace {
std::unique_ptr<LearningRate> schedule(const std::string& text, json* resolved = nullptr) {
  static const keys::Object algorithm{"algorithm", "", {keys::variant("lr", learning_rates(), "")}};
  SpecHolder holder(text, "$.algorithm", algorithm);
  Spec spec = holder.spec.variant("lr");
  auto lr = make_learning_rate(spec);
  holder.spec.finish();
  if (resolved) *resolved = holder.resolved;
  return lr;
}
}  // namespace

TEST_CASE("learning-rate schedules follow their formulas") {
  const auto constant = schedule(R"({"lr": 0.05})");
  CHECK(constant->at(0) == Approx(0.05));
  CHECK(constant->at(100000) == Approx(0.05));
  json resolved;
  const auto object = schedule(R"({"lr": {"value": 0.2}})", &resolved);
  CHECK(object->at(7) == Approx(0.2));
  CHECK(resolved["lr"]["schedule"] == "constant");
  const auto inverse = schedule(R"({"lr": {"schedule": "inverse_time", "value": 0.5, "t0": 100}})");
  CHECK(inverse->at(0) == Approx(0.5));
  CHECK(inverse->at(100) == Approx(0.25));
  CHECK(inverse->at(300) == Approx(0.5 * 100 / 400));
  const auto step = schedule(R"({"lr": {"schedule": "step", "value": 1, "factor": 0.1, "every": 10}})");
  CHECK(step->at(9) == Approx(1));
  CHECK(step->at(10) == Approx(0.1));
  CHECK(step->at(25) == Approx(0.01));
}

TEST_CASE("warm-up ramps linearly into the schedule") {
  const auto lr = schedule(R"({"lr": {"schedule": "inverse_time", "value": 1, "t0": 10, "warmup": 4}})");
  CHECK(lr->at(0) == Approx(0.25 * 10 / 10));
  CHECK(lr->at(1) == Approx(0.5 * 10 / 11));
  CHECK(lr->at(3) == Approx(1.0 * 10 / 13));
  CHECK(lr->at(4) == Approx(10.0 / 14));
}

TEST_CASE("bad learning rates are InputErrors naming the path") {
  CHECK_THROWS_WITH(schedule(R"({"lr": -1})"), Catch::Contains("$.algorithm.lr"));
  CHECK_THROWS_WITH(schedule(R"({"lr": "fast"})"), Catch::Contains("$.algorithm.lr"));
  CHECK_THROWS_WITH(schedule(R"({})"), Catch::Contains("$.algorithm.lr"));
  CHECK_THROWS_WITH(schedule(R"({"lr": {"schedule": "inverse_time", "value": 1}})"),
                    Catch::Contains("$.algorithm.lr.t0"));
  CHECK_THROWS_WITH(schedule(R"({"lr": {"schedule": "step", "value": 1, "factor": 0, "every": 5}})"),
                    Catch::Contains("$.algorithm.lr.factor"));
  CHECK_THROWS_WITH(schedule(R"({"lr": {"schedule": "step", "value": 1, "factor": 0.5, "every": 0}})"),
                    Catch::Contains("$.algorithm.lr.every"));
  CHECK_THROWS_WITH(schedule(R"({"lr": {"value": 1, "t0": 5}})"), Catch::Contains("unknown key \"t0\""));
  CHECK_THROWS_WITH(schedule(R"({"lr": {"schedule": "cosine", "value": 1}})"), Catch::Contains("schedule"));
}

TEST_CASE("the multistep schedule decays by its factor at each milestone") {
  const auto lr =
      schedule(R"({"lr": {"schedule": "multistep", "value": 0.1, "factor": 0.1, "milestones": [3, 5]}})");
  CHECK(lr->at(0) == Approx(0.1));
  CHECK(lr->at(2) == Approx(0.1));
  CHECK(lr->at(3) == Approx(0.01));
  CHECK(lr->at(4) == Approx(0.01));
  CHECK(lr->at(5) == Approx(0.001));
  CHECK(lr->at(1000) == Approx(0.001));
  const auto warm = schedule(
      R"({"lr": {"schedule": "multistep", "value": 1, "factor": 0.5, "milestones": [2], "warmup": 2}})");
  CHECK(warm->at(0) == Approx(0.5));
  CHECK(warm->at(1) == Approx(1.0));
  CHECK(warm->at(2) == Approx(0.5));
  CHECK_THROWS_WITH(
      schedule(R"({"lr": {"schedule": "multistep", "value": 1, "factor": 0.5, "milestones": [5, 5]}})"),
      Catch::Contains("$.algorithm.lr.milestones"));
  CHECK_THROWS_WITH(
      schedule(R"({"lr": {"schedule": "multistep", "value": 1, "factor": 0.5, "milestones": [0]}})"),
      Catch::Contains("$.algorithm.lr.milestones"));
}
