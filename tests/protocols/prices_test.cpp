// The run's price table: charges in profile-independent units become seconds in one place, with the same
// expressions the costs had before the table (so traces keep every bit), and the entries say what each price
// is for.
#include <catch2/catch.hpp>

#include <algorithm>

#include "algorithms/compression/speed_keys.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/protocols/prices.hpp"
#include "common/error.hpp"

using namespace sgdsim;
using nlohmann::json;
using protocols::Charge;
using protocols::Work;

namespace {

// A model that only knows its flop count, and its layers' costs when given.
class FlopsOnly final : public learning::Model {
 public:
  explicit FlopsOnly(double flops, std::vector<learning::LayerCost> layers = {})
      : flops_(flops), layers_(std::move(layers)) {}
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
  std::vector<learning::LayerCost> layer_costs() const override { return layers_; }

 private:
  double flops_;
  std::vector<learning::LayerCost> layers_;
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

TEST_CASE("codecs are priced per configuration: the keys that change the speed, nothing else") {
  protocols::Costs settings;
  settings.charged = {true, true, true, true, true};
  const json elias = {{"kind", "qsgd"}, {"levels", 16}, {"bucket", 8192}, {"coding", "elias"}};
  const json fixed = {{"kind", "qsgd"}, {"levels", 16}, {"bucket", 8192}, {"coding", "fixed"}};
  settings.configurations[compression::priced_configuration(elias).dump()] = {{1e8, 2e8}, "measured A"};
  settings.configurations[compression::priced_configuration(fixed).dump()] = {{5e8, 7e8}, "measured B"};
  settings.profile = "the profile p.json";
  protocols::PriceTable prices(settings);
  // `scale` does not change the speed: the same price as without it; the subject stays the whole object.
  json scaled = elias;
  scaled["scale"] = "contractive";
  const auto encode_elias = prices.codec(Work::encode, scaled, "s.json: $.algorithm.compressor");
  const auto encode_fixed = prices.codec(Work::encode, fixed, "s.json: $.algorithm.compressor");
  const auto decode_fixed = prices.codec(Work::decode, fixed, "s.json: $.algorithm.compressor");
  CHECK(prices.seconds({encode_elias, 1e6}, 1) == 1e6 / 1e8);
  CHECK(prices.seconds({encode_fixed, 1e6}, 1) == 1e6 / 5e8);
  CHECK(prices.seconds({decode_fixed, 1e6}, 1) == 1e6 / 7e8);
  CHECK(prices.prices()[encode_elias].subject == scaled);
  CHECK(prices.prices()[encode_fixed].source == "measured B");
  // The echo: one entry per priced configuration, with both rates and their source.
  const json echoed = prices.codec_prices();
  REQUIRE(echoed.size() == 2);
  CHECK(echoed[0]["codec"] == compression::priced_configuration(elias));
  CHECK(echoed[0]["encode"] == 1e8);
  CHECK_FALSE(echoed[0].contains("decode"));
  CHECK(echoed[1]["codec"] == compression::priced_configuration(fixed));
  CHECK(echoed[1]["encode"] == 5e8);
  CHECK(echoed[1]["decode"] == 7e8);
  CHECK(echoed[1]["source"] == "measured B");
  // Another level count is another configuration: without a price it is an error that names it, the
  // profile, and the command that measures it.
  json eight = fixed;
  eight["levels"] = 8;
  try {
    prices.codec(Work::encode, eight, "runs/s.json: $.algorithm.compressor");
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("runs/s.json: $.algorithm.compressor: the profile p.json has no encode price") == 0);
    CHECK(what.find(compression::priced_configuration(eight).dump()) != std::string::npos);
    CHECK(what.find("sgdsim calibrate --scenario runs/s.json") != std::string::npos);
  }
  // A scenario's override of the kind prices every configuration of the kind, and says so.
  settings.codecs["qsgd"] = {3e9, 0};
  protocols::PriceTable overridden(settings);
  const auto encode_eight = overridden.codec(Work::encode, eight, "s.json");
  CHECK(overridden.seconds({encode_eight, 3e9}, 1) == 1);
  CHECK(overridden.prices()[encode_eight].source == "the scenario's compute.codecs.qsgd.encode");
}

namespace {

protocols::Costs accelerator() {
  protocols::Costs c;
  c.charged = {true, true, true, true, true};
  c.memory_bandwidth = 1e12;
  c.roofline.peak = {1e14, "datasheet"};
  c.roofline.efficiency = {0.5, "fitted"};
  c.roofline.memory_bandwidth = {1e12, "datasheet"};
  c.roofline.launch_overhead = {4e-6, "assumed"};
  c.roofline.bytes_per_value = {2, "fp16"};
  c.roofline.profile = "the bundled profile x";
  return c;
}

}  // namespace

TEST_CASE("an accelerator prices a gradient by the roofline of its layers, and again from the subject") {
  // A compute-bound convolution and a memory-bound BatchNorm, batch 64.
  const FlopsOnly model(2e9 + 1e7, {{2e9, 1e6, 3e4, 3}, {1e7, 8e6, 0, 2}});
  protocols::PriceTable prices(accelerator());
  const auto gradient = prices.gradient(model, {{"kind", "test"}}, 64);
  const double conv = std::max(64 * 2e9 / (0.5 * 1e14), (64 * 1e6 + 3e4) * 2 / 1e12) + 3 * 4e-6;
  const double norm = std::max(64 * 1e7 / (0.5 * 1e14), 64 * 8e6 * 2 / 1e12) + 2 * 4e-6;
  CHECK(64 * 2e9 / (0.5 * 1e14) > (64 * 1e6 + 3e4) * 2 / 1e12);  // the two sides of the roofline
  CHECK(64 * 1e7 / (0.5 * 1e14) < 64 * 8e6 * 2 / 1e12);
  CHECK(prices.seconds({gradient, 1}, 1e3) == Approx(conv + norm).epsilon(1e-14));
  CHECK(prices.seconds({gradient, 0.25}, 1e3) == Approx(0.25 * (conv + norm)).epsilon(1e-14));
  CHECK(prices.prices()[gradient].source.starts_with("a prediction"));
  // The subject carries the layers: a table built from it alone prices it the same, and the CPU's table by
  // its flops.
  const protocols::Price& recorded = prices.prices()[gradient];
  const protocols::PriceKey key{recorded.work, recorded.unit, recorded.subject.dump()};
  protocols::PriceTable again(accelerator());
  CHECK(again.seconds({again.again(key, "schedule.bin: price 0"), 1}, 1e3) ==
        prices.seconds({gradient, 1}, 1e3));
  protocols::PriceTable cpu(costs());
  CHECK(cpu.seconds({cpu.again(key, "schedule.bin: price 0"), 1}, 1.3e10) == 64 * (2e9 + 1e7) / 1.3e10);
  // Layers that are not four numbers each are refused, naming the place.
  json broken = recorded.subject;
  broken["layers"][1] = {1, 2, 3};
  CHECK_THROWS_WITH(again.again({key.work, key.unit, broken.dump()}, "schedule.bin: price 0"),
                    Catch::StartsWith("schedule.bin: price 0: the price"));
}

TEST_CASE("a gradient's passes of some layers: each layer's forward is one of its kernels, and again") {
  // A first convolution (2 kernels: forward and weight gradient), a BatchNorm (2), a linear layer (3).
  const std::vector<learning::LayerCost> layers = {{2e9, 1e6, 3e4, 2}, {1e7, 8e6, 0, 2}, {3e6, 2e3, 1e6, 3}};
  const FlopsOnly model(2e9 + 1e7 + 3e6, layers);
  for (const bool accelerated : {false, true}) {
    INFO(accelerated);
    protocols::PriceTable prices(accelerated ? accelerator() : costs());
    const double speed = 1.3e10;
    const auto whole = prices.gradient(model, {{"kind", "test"}}, 64);
    const auto forward = prices.gradient_part(whole, learning::Pass::forward, 0, 3);
    const auto top = prices.gradient_part(whole, learning::Pass::backward, 1, 3);
    const auto bottom = prices.gradient_part(whole, learning::Pass::backward, 0, 1);
    const auto seconds = [&](protocols::PriceId id) { return prices.seconds({id, 1}, speed); };
    if (accelerated) {
      // The roofline of each layer's share: half of the first two, a third of the linear layer, forward.
      const auto roof = [](double share, const learning::LayerCost& l) {
        return share * std::max(64 * l.flops / (0.5 * 1e14), (64 * l.values + l.weight_values) * 2 / 1e12) +
               share * l.kernels * 4e-6;
      };
      CHECK(seconds(forward) ==
            Approx(roof(0.5, layers[0]) + roof(0.5, layers[1]) + roof(1.0 / 3, layers[2])).epsilon(1e-14));
      CHECK(seconds(top) == Approx(roof(0.5, layers[1]) + roof(2.0 / 3, layers[2])).epsilon(1e-14));
      CHECK(seconds(bottom) == Approx(roof(0.5, layers[0])).epsilon(1e-14));
    } else {
      CHECK(seconds(forward) == Approx(64 * (1e9 + 5e6 + 1e6) / speed).epsilon(1e-14));
      CHECK(seconds(top) == Approx(64 * (5e6 + 2e6) / speed).epsilon(1e-14));
      CHECK(seconds(bottom) == Approx(64 * 1e9 / speed).epsilon(1e-14));
    }
    // The passes add up to the whole gradient.
    CHECK(seconds(forward) + seconds(top) + seconds(bottom) == Approx(seconds(whole)).epsilon(1e-14));
    CHECK(prices.prices()[top].subject["part"] == json{{"pass", "backward"}, {"layers", {1, 3}}});
    CHECK(prices.prices()[top].source.starts_with("the backward pass of layers 1 to 3 (of 3): "));
    // A table built from the subject alone prices it the same; a part outside the layers is refused.
    const protocols::Price& recorded = prices.prices()[top];
    const protocols::PriceKey key{recorded.work, recorded.unit, recorded.subject.dump()};
    protocols::PriceTable again(accelerated ? accelerator() : costs());
    CHECK(again.seconds({again.again(key, "schedule.bin: price 2"), 1}, speed) == seconds(top));
    for (const json& part : {json{{"pass", "backward"}, {"layers", {1, 4}}},
                             json{{"pass", "sideways"}, {"layers", {0, 1}}}, json{{"layers", {0, 1}}}}) {
      json broken = recorded.subject;
      broken["part"] = part;
      CHECK_THROWS_WITH(again.again({key.work, key.unit, broken.dump()}, "schedule.bin: price 2"),
                        Catch::StartsWith("schedule.bin: price 2: the price"));
    }
  }
}

TEST_CASE("an accelerator estimates a codec without a measured price from its declared passes") {
  protocols::PriceTable prices(accelerator());
  const json fixed = {{"kind", "qsgd"}, {"levels", 16}, {"coding", "fixed"}};
  const json elias = {{"kind", "qsgd"}, {"levels", 16}, {"coding", "elias"}};
  const double d = 1e6;
  // QSGD fixed-width: 2 passes and 2 kernels to encode, 1 and 1 to decode; Elias adds one of each.
  CHECK(prices.seconds({prices.codec(Work::encode, fixed, "s.json"), d}, 1) ==
        Approx(d * 4 * 2 / 1e12 + 2 * 4e-6).epsilon(1e-14));
  CHECK(prices.seconds({prices.codec(Work::decode, fixed, "s.json"), d}, 1) ==
        Approx(d * 4 * 1 / 1e12 + 1 * 4e-6).epsilon(1e-14));
  CHECK(prices.seconds({prices.codec(Work::encode, elias, "s.json"), d}, 1) ==
        Approx(d * 4 * 3 / 1e12 + 3 * 4e-6).epsilon(1e-14));
  // Nothing to encode launches nothing.
  CHECK(prices.seconds({prices.codec(Work::encode, fixed, "s.json"), 0}, 1) == 0);
  // Vector work: its bytes and one launch per charge.
  CHECK(prices.seconds({prices.floats(Work::mixing), 3 * d}, 1) ==
        Approx(3 * d * 4 / 1e12 + 4e-6).epsilon(1e-14));
  // Estimates are not echoed as throughputs (the profile makes them again).
  CHECK(prices.codec_prices().empty());
  // A measured price wins over the estimate.
  protocols::Costs measured = accelerator();
  measured.configurations[compression::priced_configuration(fixed).dump()] = {{5e9, 6e9}, "measured"};
  protocols::PriceTable priced(measured);
  CHECK(priced.seconds({priced.codec(Work::encode, fixed, "s.json"), d}, 1) == d / 5e9);
}

TEST_CASE("work inside a collective's kernel launches nothing of its own, and is priced again as such") {
  const json fp16 = {{"kind", "fp16"}};
  const double d = 1e6;
  protocols::PriceTable prices(accelerator());
  const auto encode = prices.codec(Work::encode, fp16, "s.json", protocols::Kernel::collective);
  const auto sums = prices.floats(Work::mixing, protocols::Kernel::collective);
  // fp16: 1.5 passes of 4 bytes, no launch; a sum's floats, no launch. The same work as a kernel of its own
  // pays its launch.
  CHECK(prices.seconds({encode, d}, 1) == Approx(d * 4 * 1.5 / 1e12).epsilon(1e-14));
  CHECK(prices.seconds({sums, 3 * d}, 1) == Approx(3 * d * 4 / 1e12).epsilon(1e-14));
  CHECK(prices.seconds({prices.codec(Work::encode, fp16, "s.json"), d}, 1) ==
        Approx(d * 4 * 1.5 / 1e12 + 4e-6).epsilon(1e-14));
  CHECK(prices.seconds({prices.floats(Work::mixing), 3 * d}, 1) ==
        Approx(3 * d * 4 / 1e12 + 4e-6).epsilon(1e-14));
  // The subjects say so, whatever the profile: a recorded run prices them again as work inside a kernel.
  CHECK(prices.prices()[encode].subject == json{{"codec", fp16}, {"kernel", "collective"}});
  CHECK(protocols::codec_configuration(prices.prices()[encode]) == fp16);
  CHECK(prices.prices()[sums].subject == json{{"kernel", "collective"}});
  protocols::PriceTable again(accelerator());
  for (const auto id : {encode, sums}) {
    const protocols::Price& recorded = prices.prices()[id];
    const auto priced = again.again({recorded.work, recorded.unit, recorded.subject.dump()}, "schedule.bin");
    CHECK(again.seconds({priced, d}, 1) == prices.seconds({id, d}, 1));
  }
  // On a profile without launches both kinds of work price the same, and a measured price is echoed once.
  protocols::Costs measured = costs();
  measured.configurations[compression::priced_configuration(fp16).dump()] = {{5e8, 6e8}, "measured"};
  protocols::PriceTable cpu(measured);
  const auto inside = cpu.codec(Work::encode, fp16, "s.json", protocols::Kernel::collective);
  const auto own = cpu.codec(Work::encode, fp16, "s.json");
  CHECK(inside != own);
  CHECK(cpu.seconds({inside, d}, 1) == cpu.seconds({own, d}, 1));
  CHECK(cpu.seconds({cpu.floats(Work::mixing, protocols::Kernel::collective), d}, 1) ==
        cpu.seconds({cpu.floats(Work::mixing), d}, 1));
  CHECK(cpu.codec_prices() ==
        json::array({{{"codec", fp16}, {"encode", 5e8}, {"encode_source", "measured"}}}));
  // A wrapped subject that is not one this table writes is refused, naming the place.
  CHECK_THROWS_WITH(
      again.again({Work::mixing, protocols::Unit::floats, R"({"kernel":"fused"})"}, "schedule.bin"),
      Catch::StartsWith("schedule.bin: the price"));
}
