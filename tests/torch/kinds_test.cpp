// The libtorch models as scenario kinds, run by the sgdsim program (which loads the libtorch plugin): data
// sets, determinism, BatchNorm statistics local or averaged, and bad input (exit 2 naming file and JSON
// path).
#include <catch2/catch.hpp>

#include <fstream>

#include "../learning/helpers.hpp"
#include "algorithms/learning/cifar10.hpp"
#include "algorithms/learning/torch/torch_model.hpp"
#include "script_fixture.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim;
using json = nlohmann::json;

namespace {

// A tiny MNIST-format folder: 28x28 images whose class k lights a 4-pixel-high band at row 2k, plus noise.
void write_tiny_mnist(const std::filesystem::path& dir, std::size_t train, std::size_t test) {
  std::filesystem::create_directories(dir);
  Rng rng(5);
  auto write = [&](const std::string& prefix, std::size_t n) {
    std::vector<unsigned char> pixels, labels;
    for (std::size_t i = 0; i < n; ++i) {
      const auto label = static_cast<unsigned char>(rng.below(10));
      labels.push_back(label);
      for (int r = 0; r < 28; ++r) {
        for (int c = 0; c < 28; ++c) {
          const bool band = r >= 2 * label + 2 && r < 2 * label + 6;
          pixels.push_back(static_cast<unsigned char>(band ? 200 : rng.below(60)));
        }
      }
    }
    const auto count = static_cast<std::uint32_t>(n);
    learning::testing::write_plain((dir / (prefix + "-images-idx3-ubyte")).string(),
                                   learning::testing::idx_bytes({count, 28, 28}, pixels));
    learning::testing::write_plain((dir / (prefix + "-labels-idx1-ubyte")).string(),
                                   learning::testing::idx_bytes({count}, labels));
  };
  write("train", train);
  write("t10k", test);
}

json scenario(const std::filesystem::path& data, const json& model, const json& algorithm) {
  return {{"name", "torch-kind"},
          {"seed", 3},
          {"network", {{"topology", {{"kind", "ring"}, {"nodes", 4}}}}},
          {"data", {{"dataset", "mnist"}, {"path", data.string()}, {"batch_size", 8}}},
          {"model", model},
          {"algorithm", algorithm},
          {"eval", {{"every", 2}}}};
}

json dpsgd(int steps) {
  return {{"kind", "dpsgd"}, {"steps", steps}, {"lr", 0.05}};
}

}  // namespace

TEST_CASE("lenet5 trains as a scenario kind, byte-identical for the same seed and threads") {
  const auto dir = testing::temporary_folder("torch-kinds");
  write_tiny_mnist(dir / "mnist", 64, 32);
  json algorithm = dpsgd(4);
  algorithm["optimizer"] = {{"momentum", 0.9}, {"nesterov", true}, {"weight_decay", 5e-4}};
  json s = scenario(dir / "mnist", {{"kind", "lenet5"}}, algorithm);
  s["data"]["augment"] = {{"crop_padding", 2}, {"horizontal_flip", true}};
  const auto first = testing::run_scenario(s, "lenet-a");
  REQUIRE(first.exit_code == 0);
  const auto second = testing::run_scenario(s, "lenet-b");
  REQUIRE(second.exit_code == 0);
  CHECK(first.trace_text == second.trace_text);
  CHECK(first.summary["dimension"] == 61706);
  // Compute time comes from the flop count: 4 steps x 8 samples x 2.30e6 flops at the host's speed.
  CHECK(first.trace.number(2, "gradient_s") > 0);
  // Two intra-op threads: reproducible for that count too.
  s["model"]["threads"] = 2;
  const auto third = testing::run_scenario(s, "lenet-c");
  const auto fourth = testing::run_scenario(s, "lenet-d");
  REQUIRE(third.exit_code == 0);
  CHECK(third.trace_text == fourth.trace_text);
  // The simulated times never depend on the thread count.
  CHECK(third.trace.rows.back().at("sim_time_s") == first.trace.rows.back().at("sim_time_s"));
}

TEST_CASE("resnet BatchNorm statistics: averaged ones are sent and cost exactly their bits, local ones not") {
  const auto dir = testing::temporary_folder("torch-bn");
  write_tiny_mnist(dir / "mnist", 64, 16);
  const int steps = 2;
  json local = scenario(dir / "mnist", {{"kind", "resnet"}, {"depth", 8}}, dpsgd(steps));
  json averaged = local;
  averaged["model"]["batch_norm"] = "averaged";
  const auto a = testing::run_scenario(local, "bn-local");
  const auto b = testing::run_scenario(averaged, "bn-averaged");
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  const auto model = learning::make_resnet(8, {}, {1, 28, 28}, 10);
  const double state_bits = 32.0 * static_cast<double>(model->state_dimension());
  // Ring of 4: 8 directed edges, one statistics message per edge and step.
  CHECK(b.trace.number(1, "bits_sent") - a.trace.number(1, "bits_sent") == state_bits * 8 * steps);
  CHECK(b.trace.number(1, "messages") == 2 * a.trace.number(1, "messages"));
  // The gradients never depend on the running statistics (training normalises with batch statistics), so
  // the parameters agree; the evaluation differs only through the statistics.
  CHECK(a.trace.rows[1].at("consensus_distance") == b.trace.rows[1].at("consensus_distance"));
  // Data-parallel replicas keep theirs local; asking to average them is refused.
  json parallel = averaged;
  parallel["algorithm"] = {{"kind", "data_parallel"}, {"steps", 1}, {"lr", 0.1}};
  const auto c = testing::run_scenario(parallel, "bn-parallel");
  CHECK(c.exit_code == 2);
  CHECK_THAT(c.output, Catch::Contains("averaged"));
}

TEST_CASE(
    "torch models give the same trace for every --threads, BatchNorm statistics and intra-op threads too") {
  const auto dir = testing::temporary_folder("torch-threads");
  write_tiny_mnist(dir / "mnist", 64, 16);
  json lenet = scenario(dir / "mnist", {{"kind", "lenet5"}, {"threads", 2}}, dpsgd(4));
  lenet["data"]["augment"] = {{"crop_padding", 2}, {"horizontal_flip", true}};
  const json resnet =
      scenario(dir / "mnist", {{"kind", "resnet"}, {"depth", 8}, {"batch_norm", "averaged"}}, dpsgd(2));
  for (const json& s : {lenet, resnet}) {
    INFO(s["model"].dump());
    const auto one = testing::run_scenario(s, "torch-threads", "--threads 1");
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
    for (const char* threads : {"2", "3"}) {
      const auto many = testing::run_scenario(s, "torch-threads", std::string("--threads ") + threads);
      INFO("--threads " << threads << ": " << many.output);
      REQUIRE(many.exit_code == 0);
      CHECK(many.trace_text == one.trace_text);
    }
  }
}

TEST_CASE("a TorchScript module with dropout gives the same trace on every run of the same scenario") {
  const auto dir = testing::temporary_folder("torch-dropout");
  write_tiny_mnist(dir / "mnist", 16, 8);
  learning::testing::write_script_dropout((dir / "dropout.pt").string(), 28, 10);
  const json model = {
      {"kind", "torchscript"}, {"path", (dir / "dropout.pt").string()}, {"flops_per_sample", 1e5}};
  const auto first = testing::run_scenario(scenario(dir / "mnist", model, dpsgd(6)), "dropout-1");
  const auto second = testing::run_scenario(scenario(dir / "mnist", model, dpsgd(6)), "dropout-2");
  INFO(first.output << second.output);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(first.trace_text == second.trace_text);
  // The dropout masks come from the scenario's seed: another seed, another trace.
  json reseeded = scenario(dir / "mnist", model, dpsgd(6));
  reseeded["seed"] = 4;
  const auto other = testing::run_scenario(reseeded, "dropout-3");
  REQUIRE(other.exit_code == 0);
  CHECK(other.trace_text != first.trace_text);
  std::filesystem::remove_all(dir);
}

TEST_CASE("torch kinds refuse bad input with exit 2 naming the file and the JSON path") {
  const auto dir = testing::temporary_folder("torch-bad");
  write_tiny_mnist(dir / "mnist", 16, 8);
  auto script = [&](const json& extra) {
    json model = {{"kind", "torchscript"}, {"flops_per_sample", 1e5}};
    model.update(extra);
    return testing::run_scenario(scenario(dir / "mnist", model, dpsgd(1)), "bad-script");
  };
  // Missing file.
  const auto missing = script({{"path", (dir / "absent.pt").string()}});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("absent.pt") && Catch::Contains("$.model.path"));
  // Not a TorchScript archive.
  {
    std::ofstream out(dir / "corrupt.pt", std::ios::binary);
    out << "PK\x03\x04 this is not a zip archive";
  }
  const auto corrupt = script({{"path", (dir / "corrupt.pt").string()}});
  CHECK(corrupt.exit_code == 2);
  CHECK_THAT(corrupt.output, Catch::Contains("corrupt.pt") && Catch::Contains("$.model.path"));
  // An archive whose code does not compile and holds bytes a terminal would interpret.
  learning::testing::write_script_mlp((dir / "source.pt").string(), 28, 10);
  learning::testing::rewrite_archive((dir / "source.pt").string(), (dir / "damaged.pt").string(),
                                     [](const std::string& name, std::string bytes) {
                                       if (name.rfind("code/", 0) != 0) return bytes;
                                       return std::string("def forward(self, x):\n  \x1b[2J\xff(\n");
                                     });
  const auto damaged = script({{"path", (dir / "damaged.pt").string()}});
  CHECK(damaged.exit_code == 2);
  CHECK_THAT(damaged.output, Catch::Contains("damaged.pt") && Catch::Contains("$.model.path"));
  CHECK(std::all_of(damaged.output.begin(), damaged.output.end(),
                    [](char c) { return c == '\n' || (c >= 0x20 && c < 0x7f); }));
  // Output of 3 classes for 10-class data.
  learning::testing::write_script_mlp((dir / "three.pt").string(), 28, 3);
  const auto classes = script({{"path", (dir / "three.pt").string()}});
  CHECK(classes.exit_code == 2);
  CHECK_THAT(classes.output, Catch::Contains("three.pt") && Catch::Contains("[2, 10]"));
  // A module for 8x8 images on 28x28 data.
  learning::testing::write_script_mlp((dir / "small.pt").string(), 8, 10);
  const auto shape = script({{"path", (dir / "small.pt").string()}});
  CHECK(shape.exit_code == 2);
  CHECK_THAT(shape.output, Catch::Contains("small.pt") && Catch::Contains("1x28x28"));
  // A correct module trains.
  learning::testing::write_script_mlp((dir / "good.pt").string(), 28, 10);
  const auto good = script({{"path", (dir / "good.pt").string()}});
  CHECK(good.exit_code == 0);
  // A convolutional model on data that are not images.
  json plain = scenario(dir / "mnist", {{"kind", "lenet5"}}, dpsgd(1));
  plain["data"] = {{"dataset", "synthetic"}};
  const auto features = testing::run_scenario(plain, "bad-plain");
  CHECK(features.exit_code == 2);
  CHECK_THAT(features.output, Catch::Contains("$.model.kind") && Catch::Contains("image data"));
  // An image data set whose folder lacks the files.
  json nowhere = scenario(dir / "nowhere", {{"kind", "lenet5"}}, dpsgd(1));
  const auto absent = testing::run_scenario(nowhere, "bad-data");
  CHECK(absent.exit_code == 2);
  CHECK_THAT(absent.output, Catch::Contains("nowhere") && Catch::Contains("$.data"));
  // CIFAR-10 batches with a truncated record.
  std::filesystem::create_directories(dir / "cifar");
  for (const char* name : {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
                           "data_batch_5.bin", "test_batch.bin"}) {
    std::ofstream out(dir / "cifar" / name, std::ios::binary);
    out << std::string(learning::cifar10_record_bytes - (std::string(name) == "test_batch.bin" ? 1 : 0),
                       '\0');
  }
  json cifar = scenario(dir / "cifar", {{"kind", "resnet"}}, dpsgd(1));
  cifar["data"]["dataset"] = "cifar10";
  const auto truncated = testing::run_scenario(cifar, "bad-cifar");
  CHECK(truncated.exit_code == 2);
  CHECK_THAT(truncated.output, Catch::Contains("test_batch.bin") && Catch::Contains("offset"));
}
