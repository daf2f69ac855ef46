// Accelerator profiles (docs/compute.md, "Accelerator profiles"): the bundled ones are chosen by name, price
// model math by the roofline of the model's layers and the rest by memory bandwidth plus launches, reproduce
// NVIDIA's published ResNet-50 throughput within 5 %, and refuse what would be ambiguous or malformed (exit
// 2, naming the file and the JSON path). Every run is its own process.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "algorithms/learning/torch_plugin.hpp"
#include "tests/support/child.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int features = 40;

// Two nodes exchanging fp32 models with D-PSGD, one sample per step, on `profile`.
json two_nodes(const json& compute) {
  return {{"seed", 3},
          {"network",
           {{"topology", {{"kind", "complete"}, {"nodes", 2}}},
            {"link", {{"bandwidth", "1GBps"}, {"latency", "20us"}}},
            {"model", "ideal"}}},
          {"compute", compute},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "linear"},
            {"samples", 50},
            {"features", features},
            {"batch_size", 1}}},
          {"model", {{"kind", "linear"}}},
          {"algorithm", {{"kind", "dpsgd"}, {"steps", 6}, {"lr", 0.01}}},
          {"eval", {{"every", 3}}}};
}

CommandResult estimate(const json& scenario, const std::string& label, const std::string& extra = "") {
  const auto folder = temporary_folder(label);
  std::ofstream(folder / "scenario.json") << scenario.dump(2);
  return run_command(std::string(SGDSIM_BINARY) + " estimate " + (folder / "scenario.json").string() +
                     " --json" + extra + " 2>&1");
}

json bundled_profile(const std::string& name) {
  return json::parse(read_text(fs::path(SGDSIM_SOURCE_DIR) / "profiles" / (name + ".json")));
}

// Runs `scenario` after writing `profile` beside it as prof.json.
Run with_profile(const std::string& profile, const std::string& label) {
  json scenario = two_nodes({{"profile", "prof.json"}});
  const auto folder = temporary_folder(label);
  std::ofstream(folder / "prof.json") << profile;
  std::ofstream(folder / "scenario.json") << scenario.dump(2);
  Run run;
  const auto result = run_command(std::string(SGDSIM_BINARY) + " run -q " +
                                  (folder / "scenario.json").string() + " -o " + (folder / "out").string());
  run.exit_code = result.exit_code;
  run.output = result.output;
  run.directory = folder / "out";
  return run;
}

// A well-formed accelerator object's figures, with `name`'s replaced by `figure` when given.
std::string figures(const std::string& name = "", const json& figure = nullptr) {
  json all = {{"peak", {{"value", "100Tf"}, {"source", "s"}}},
              {"efficiency", {{"value", 0.5}, {"source", "s"}}},
              {"memory_bandwidth", {{"value", "1TBps"}, {"source", "s"}}},
              {"launch_overhead", {{"value", "4us"}, {"source", "s"}}},
              {"bytes_per_value", {{"value", 2}, {"source", "s"}}}};
  if (!name.empty()) all[name] = figure;
  const std::string text = all.dump();
  return text.substr(1, text.size() - 2);  // the members, to go inside an object
}

}  // namespace

TEST_CASE("an accelerator profile prices each part of a step by its roofline, bandwidth and launches") {
  const json profile = bundled_profile("v100-amp");
  const json& device = profile["accelerator"];
  const double efficiency = device["efficiency"]["value"].get<double>();
  REQUIRE(device["peak"]["value"] == "125Tf");
  REQUIRE(device["memory_bandwidth"]["value"] == "900GBps");
  REQUIRE(device["launch_overhead"]["value"] == "5us");
  const double peak = 125e12, bandwidth = 900e9, launch = 5e-6;
  const auto result = estimate(two_nodes({{"profile", "v100-amp"}}), "accelerator-parts");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const json e = json::parse(result.output);
  const double d = e["dimension"].get<double>(), flops = e["flops_per_sample"].get<double>();
  REQUIRE(d == features + 1);
  const json& s = e["per_step"];
  // The linear model does not describe its layers: one compute-bound layer launched three times.
  CHECK(s["gradient_s"].get<double>() == Approx(flops / (efficiency * peak) + 3 * launch).epsilon(1e-12));
  // fp32 ("none"): two passes of 4 bytes per coordinate each way and one kernel.
  CHECK(s["encode_s"].get<double>() == Approx(8 * d / bandwidth + launch).epsilon(1e-12));
  CHECK(s["decode_s"].get<double>() == Approx(8 * d / bandwidth + launch).epsilon(1e-12));
  // x −= η g: 3 d floats; the mixing: the self-weighted copy (2 d) and the neighbour's axpy (3 d).
  CHECK(s["update_s"].get<double>() == Approx(12 * d / bandwidth + launch).epsilon(1e-12));
  CHECK(s["mixing_s"].get<double>() == Approx(20 * d / bandwidth + 2 * launch).epsilon(1e-12));
  for (const json& entry : e["sources"]["gradient"]) {
    CHECK(entry["basis"] == "seconds");
    CHECK(entry["source"].get<std::string>().find("a prediction") != std::string::npos);
  }
  // The text says the gradient is a prediction.
  const auto folder = temporary_folder("accelerator-text");
  std::ofstream(folder / "scenario.json") << two_nodes({{"profile", "v100-amp"}}).dump(2);
  const auto text =
      run_command(std::string(SGDSIM_BINARY) + " estimate " + (folder / "scenario.json").string() + " 2>&1");
  REQUIRE(text.exit_code == 0);
  CHECK(text.output.find("(roofline prediction)") != std::string::npos);
}

TEST_CASE("an all-reduce on an accelerator is one kernel per call: one launch, its chunks at bandwidth") {
  // NCCL runs a collective call as one kernel, the reduction fused into its copy loop: the chunks' encodes,
  // decodes and sums cost their bytes only, and the copy of the own vector and the final scaling (4 d
  // floats) carry the call's one launch, where a launch per chunk would add 2(n − 1) of each.
  const double n = 4, bandwidth = 2039e9, launch = 5e-6;
  json scenario = two_nodes({{"profile", "a100-amp"}});
  scenario["network"]["topology"] = {{"kind", "ring"}, {"nodes", 4}};
  // Large enough that the bytes' time stands well above the simulated clock's rounding (the work is timed by
  // the engine: about 1e-7 of it here), small beside the launch the test is about.
  scenario["data"]["features"] = 100000;
  for (const char* collective : {"ring_allreduce", "recursive_doubling"}) {
    INFO(collective);
    scenario["algorithm"] = {
        {"kind", "data_parallel"}, {"steps", 6}, {"lr", 0.01}, {"collective", collective}};
    const auto result = estimate(scenario, std::string("one-kernel-") + collective);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const json e = json::parse(result.output);
    const double d = e["dimension"].get<double>();
    const json& s = e["per_step"];
    // Coordinates each node encodes (and decodes) per step, and the floats its sums read and write: the ring
    // sends each of its n chunks n − 1 times in each pass (a sum reads two chunks and writes one, a copy
    // reads one and writes one); recursive doubling sends the whole vector log2(n) times, adding each.
    const bool ring = std::string(collective) == "ring_allreduce";
    const double coded = ring ? 2 * (n - 1) / n * d : 2 * d;
    const double summed = ring ? (3 + 2) * (n - 1) / n * d : 2 * 3 * d;
    // fp32 ("none"): two passes of 4 bytes per coordinate each way.
    CHECK(s["encode_s"].get<double>() == Approx(coded * 8 / bandwidth).epsilon(1e-6));
    CHECK(s["decode_s"].get<double>() == Approx(coded * 8 / bandwidth).epsilon(1e-6));
    CHECK(s["mixing_s"].get<double>() == Approx((summed + 4 * d) * 4 / bandwidth + launch).epsilon(1e-6));
  }
  // THC: its norm (d floats), rotation and quantization, and decode are kernels of their own; its ring of
  // integers is one call, launched with its first sum, over the vector padded to D = 2^17 (sums 3 and
  // copies 2 floats per coordinate of each chunk, each chunk n − 1 times per pass).
  scenario["algorithm"] = {
      {"kind", "data_parallel"}, {"steps", 6}, {"lr", 0.01}, {"collective", {{"kind", "thc"}, {"bits", 4}}}};
  const auto result = estimate(scenario, "one-kernel-thc");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const json e = json::parse(result.output);
  const double d = e["dimension"].get<double>(), padded = 131072;
  const json& s = e["per_step"];
  // The rotation: log2(D) passes of D floats read and written; then the rounding (or the affine decode).
  const double rotation = 2 * padded * 17 + 2 * padded;
  CHECK(s["encode_s"].get<double>() == Approx(rotation * 4 / bandwidth + launch).epsilon(1e-6));
  CHECK(s["decode_s"].get<double>() == Approx(rotation * 4 / bandwidth + launch).epsilon(1e-6));
  CHECK(s["mixing_s"].get<double>() ==
        Approx((d + (3 + 2) * (n - 1) / n * padded) * 4 / bandwidth + 2 * launch).epsilon(1e-6));
}

TEST_CASE("every bundled accelerator is chosen by name and cites a source for every figure") {
  for (const char* name : {"v100-fp32", "v100-amp", "a100-tf32", "a100-amp"}) {
    INFO(name);
    const json profile = bundled_profile(name);
    for (const auto& [key, figure] : profile.at("accelerator").items()) {
      INFO(key);
      CHECK(figure.at("source").get<std::string>().size() > 20);
    }
    const auto result = estimate(two_nodes({{"profile", name}}), std::string("accelerator-") + name);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const json e = json::parse(result.output);
    CHECK(e["profile"] == name);
    CHECK(e["sources"]["gradient"][0]["source"].get<std::string>().find(name) != std::string::npos);
  }
}

TEST_CASE("host_speed beside an accelerator profile is refused, naming both keys") {
  const auto result =
      estimate(two_nodes({{"profile", "a100-amp"}, {"host_speed", "10Tf"}}), "accelerator-speed");
  CHECK(result.exit_code == 2);
  CHECK(result.output.find("$.compute.host_speed") != std::string::npos);
  CHECK(result.output.find("compute.profile \"a100-amp\"") != std::string::npos);
  // A name that is neither bundled nor a file lists the bundled ones.
  const auto unknown = estimate(two_nodes({{"profile", "a100"}}), "accelerator-unknown");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.output.find("$.compute.profile") != std::string::npos);
  CHECK(unknown.output.find("a100-amp") != std::string::npos);
}

TEST_CASE("a malformed accelerator profile is an input error naming the file and the JSON path") {
  const std::map<std::string, std::string> cases = {
      {"prof.json: $.accelerator.peak.source",
       "{\"accelerator\": {" + figures("peak", {{"value", "100Tf"}}) + "}}"},
      {"prof.json: $.accelerator.efficiency.value",
       "{\"accelerator\": {" + figures("efficiency", {{"value", 1.5}, {"source", "s"}}) + "}}"},
      {"prof.json: $.host_speed", "{\"host_speed\": \"1Tf\", \"accelerator\": {" + figures() + "}}"},
      {"prof.json: $.accelerator", "{\"accelerator\": {" + figures() + ", \"peek\": 3}}"},
      {"prof.json: $.accelerator.launch_overhead.value",
       "{\"accelerator\": {" + figures("launch_overhead", {{"value", "soon"}, {"source", "s"}}) + "}}"},
  };
  for (const auto& [where, text] : cases) {
    INFO(where << "\n" << text);
    const Run run = with_profile(text, "accelerator-bad");
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find(where) != std::string::npos);
    CHECK_FALSE(fs::exists(run.directory / "trace.csv"));
  }
  // The same figures, well formed, run.
  const Run good = with_profile("{\"accelerator\": {" + figures() + "}}", "accelerator-good");
  INFO(good.output);
  CHECK(good.exit_code == 0);
}

TEST_CASE("an accelerator run's resolved.json runs again to the same trace") {
  const Run first = run_scenario(two_nodes({{"profile", "a100-tf32"}}), "accelerator-first");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const json resolved = json::parse(read_text(first.directory / "resolved.json"));
  CHECK(resolved["compute"]["profile"] == "a100-tf32");
  CHECK_FALSE(resolved["compute"].contains("host_speed"));
  const Run again = run_scenario(resolved, "accelerator-again");
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(again.trace_text == first.trace_text);
  // Another time axis (on a 41-parameter model the accelerator is the slower: its launches), the same
  // learning.
  const Run cpu = run_scenario(two_nodes(json::object()), "accelerator-cpu");
  REQUIRE(cpu.exit_code == 0);
  CHECK(first.summary["simulated_time_s"]["total"].get<double>() >
        cpu.summary["simulated_time_s"]["total"].get<double>());
  for (std::size_t row = 0; row < cpu.trace.rows.size(); ++row)
    CHECK(first.trace.rows[row].at("train_loss") == cpu.trace.rows[row].at("train_loss"));
}

TEST_CASE("synthetic_images are seeded and the run says it learns nothing") {
  json scenario = two_nodes(json::object());
  scenario["data"] = {{"dataset", "synthetic_images"},
                      {"shape", {1, 4, 4}},
                      {"classes", 3},
                      {"samples", 40},
                      {"test_samples", 10},
                      {"batch_size", 4}};
  scenario["model"] = {{"kind", "softmax"}};
  const Run first = run_scenario(scenario, "synthetic-images");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const Run second = run_scenario(scenario, "synthetic-images");
  CHECK(second.trace_text == first.trace_text);
  CHECK(first.summary["dimension"] == 16 * 3 + 3);
  REQUIRE(first.summary["warnings"].size() == 1);
  CHECK(first.summary["warnings"][0].get<std::string>().find("nothing can be learned") != std::string::npos);
  scenario["seed"] = 4;
  const Run other = run_scenario(scenario, "synthetic-images-4");
  REQUIRE(other.exit_code == 0);
  CHECK(other.trace_text != first.trace_text);
}

TEST_CASE("ResNet-50 reproduces NVIDIA's published training throughput within 5 % on every accelerator") {
  if (!sgdsim::learning::torch_built()) {
    SUCCEED("built without libtorch");
    return;
  }
  // Images per second, batch 256: NVIDIA DeepLearningExamples, ResNet-50 v1.5 for PyTorch (docs/compute.md).
  const std::map<std::string, double> published = {
      {"v100-fp32", 367}, {"v100-amp", 1200}, {"a100-tf32", 938}, {"a100-amp", 2470}};
  const std::string scenario =
      (fs::path(SGDSIM_SOURCE_DIR) / "scenarios" / "resnet50-synthetic.json").string();
  for (const auto& [name, throughput] : published) {
    INFO(name);
    const auto result = run_command(std::string(SGDSIM_BINARY) + " estimate " + scenario +
                                    " --json --steps 1 --set compute.profile=" + name + " 2>/dev/null");
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const json e = json::parse(result.output);
    CHECK(e["dimension"] == 25557032);
    CHECK(e["sources"]["gradient"][0]["for"]["layers"].size() > 100);
    const double predicted = 256 / e["per_step"]["total_s"].get<double>();
    CHECK(predicted == Approx(throughput).epsilon(0.05));
  }
}
