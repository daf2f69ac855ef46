// The run's price table: charges in profile-independent units become seconds in one place, with the same
// expressions the costs had before the table (so traces keep every bit), and the entries say what each price
// is for.
#include <catch2/catch.hpp>

#include "algorithms/learning/model.hpp"
#include "algorithms/protocols/prices.hpp"
#include "common/error.hpp"

using namespace sgdsim;
using nlohmann::json;
using protocols::Charge;
using protocols::Work;

namespace {

// A model that only knows its flop count.
class FlopsOnly final : public learning::Model {
 public:
  explicit FlopsOnly(double flops) : flops_(flops) {}
  std::size_t dimension() const override { return 1; }
  void initialize(std::span<float>, Rng&) const override {}
  double loss_and_gradient(std::span<const float>, const learning::Dataset&, std::span<const std::size_t>,
                           std::span<float>) const override {
    return 0;
  }
  learning::Evaluation evaluate(std::span<const float>, const learning::Dataset&,
                                std::span<const std::size_t>) const override {
    return {};
  }
  double flops_per_sample() const override { return flops_; }

 private:
  double flops_;
};

protocols::Costs costs() {
  protocols::Costs c;
  c.charged = {true, true, true, true, true};
  c.memory_bandwidth = 3.3e10;
  c.codecs["qsgd"] = {3.3e8, 2.01e8};
  return c;
}

}  // namespace

TEST_CASE("prices give the seconds of each kind of work by the profile's expressions") {
  protocols::PriceTable prices(costs());
  const FlopsOnly model(2873.0);
  const json qsgd = {{"kind", "qsgd"}, {"levels", 4}};
  const auto gradient = prices.gradient(model, {{"kind", "test"}}, 32);
  const auto encode = prices.codec(Work::encode, qsgd, "s.json: $.algorithm.compressor");
  const auto decode = prices.codec(Work::decode, qsgd, "s.json: $.algorithm.compressor");
  const auto mixing = prices.floats(Work::mixing);
  const double host_speed = 1.3e10, d = 7850;
  // Bit for bit the expressions of the costs before the table: flops / speed, d / throughput, floats · 4 /
  // bw.
  CHECK(prices.seconds({gradient, 1}, host_speed) == 2873.0 * 32.0 / host_speed);
  CHECK(prices.seconds({encode, d}, host_speed) == d / 3.3e8);
  CHECK(prices.seconds({decode, d}, host_speed) == d / 2.01e8);
  CHECK(prices.seconds({mixing, 9 * d}, host_speed) == 9 * d * sizeof(float) / 3.3e10);
  CHECK(prices.work(encode) == Work::encode);
  CHECK(prices.work(mixing) == Work::mixing);
  // Registering the same subject again gives the same price; another kind of work a new one.
  CHECK(prices.codec(Work::encode, qsgd, "elsewhere") == encode);
  CHECK(prices.floats(Work::mixing) == mixing);
  CHECK(prices.floats(Work::update) != mixing);
  const json listed = prices.to_json();
  REQUIRE(listed.size() == 5);
  CHECK(listed[encode]["subject"] == qsgd);
  CHECK(listed[encode]["work"] == "encode");
  CHECK(listed[encode]["unit"] == "coordinates");
  CHECK(listed[gradient]["subject"]["batch_size"] == 32);
  CHECK(listed[gradient]["subject"]["flops_per_sample"] == 2873.0);
  CHECK(listed[mixing]["rate"] == 3.3e10);
}

TEST_CASE("work that is not charged prices to zero, and needs no codec price") {
  protocols::Costs settings = costs();
  settings.charged = {false, false, true, false, true};
  settings.codecs.clear();
  protocols::PriceTable prices(settings);
  const FlopsOnly model(100);
  const auto gradient = prices.gradient(model, {{"kind", "test"}}, 8);
  const auto encode = prices.codec(Work::encode, {{"kind", "sign"}}, "s.json");
  CHECK(prices.seconds({gradient, 1}, 1e9) == 0);
  CHECK(prices.seconds({encode, 1000}, 1e9) == 0);
  CHECK(prices.seconds({prices.floats(Work::mixing), 1000}, 1e9) == 0);
  CHECK(prices.seconds({prices.floats(Work::update), 1000}, 1e9) > 0);
  // Decoding is charged: a codec without a price is an error naming where it is set.
  try {
    prices.codec(Work::decode, {{"kind", "sign"}}, "s.json: $.algorithm.compressor");
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("s.json: $.algorithm.compressor") == 0);
    CHECK(what.find("\"sign\"") != std::string::npos);
  }
}

TEST_CASE("a default table charges gradients only") {
  protocols::PriceTable prices;
  const FlopsOnly model(10);
  CHECK(prices.seconds({prices.gradient(model, json::object(), 4), 1}, 20) == 2);
  CHECK(prices.seconds({prices.floats(Work::mixing), 1e6}, 20) == 0);
  CHECK(prices.seconds({prices.codec(Work::encode, {{"kind", "none"}}, "x"), 1e6}, 20) == 0);
}
