// Runs that go wrong without the input being malformed: a model that diverges (exit 3, a truncated trace,
// status "diverged"), strings that JSON cannot hold, and scenarios too big for the machine or the solver.
// Every scenario is generated here; every run is its own `sgdsim` process.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "algorithms/learning/optimum.hpp"
#include "common/error.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json linear_scenario(const json& algorithm) {
  return {
      {"seed", 2},
      {"network", {{"topology", {{"kind", "ring"}, {"nodes", 4}}}, {"link", {{"bandwidth", "100Mbps"}}}}},
      {"data",
       {{"dataset", "synthetic"}, {"kind", "linear"}, {"samples", 200}, {"features", 8}, {"batch_size", 8}}},
      {"model", {{"kind", "linear"}}},
      {"algorithm", algorithm},
      // These runs test the non-finite checks: the blow-up rule, which would stop them first, is off.
      {"eval", {{"every", 1}, {"blow_up", {{"loss_factor", 0}}}}}};
}

std::string write_scenario(const json& scenario, const fs::path& file) {
  std::ofstream(file) << scenario.dump(2);
  return file.string();
}

std::string without_wall_clock(const std::string& summary) {
  json s = json::parse(summary);
  s.erase("wall_clock_s");
  s.erase("peak_rss_mb");
  return s.dump();
}

}  // namespace

TEST_CASE("a diverging run stops at the first non-finite value, exits 3 and keeps its trace up to there") {
  const std::vector<json> algorithms = {
      {{"kind", "dpsgd"}, {"steps", 400}, {"lr", 3}},
      {{"kind", "dpsgd"}, {"steps", 50}, {"lr", 1e30}},
      {{"kind", "choco"},
       {"steps", 50},
       {"lr", 1e30},
       {"consensus_step", 0.5},
       {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}},
      {{"kind", "data_parallel"},
       {"steps", 50},
       {"lr", 1e30},
       {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}},
      {{"kind", "sparq"},
       {"steps", 50},
       {"lr", 1e30},
       {"consensus_step", 0.5},
       {"local_steps", 2},
       {"compressor", {{"kind", "topk"}, {"k", 2}}}},
  };
  for (const json& algorithm : algorithms) {
    const fs::path folder = temporary_folder("diverge");
    const std::string file = write_scenario(linear_scenario(algorithm), folder / "scenario.json");
    std::string traces[2], summaries[2];
    for (int attempt = 0; attempt < 2; ++attempt) {
      const fs::path out = folder / ("out" + std::to_string(attempt));
      const CommandResult result =
          run_command(std::string(SGDSIM_BINARY) + " run -q " + file + " -o " + out.string());
      INFO(algorithm.dump() << "\n" << result.output);
      REQUIRE(result.exit_code == 3);
      CHECK(result.output.find("sgdsim: diverged: the run diverged at step ") != std::string::npos);
      CHECK(result.output.find(" is not finite") != std::string::npos);
      traces[attempt] = read_text(out / "trace.csv");
      summaries[attempt] = read_text(out / "summary.json");
      const json summary = json::parse(summaries[attempt]);
      CHECK(summary["status"] == "diverged");
      const json& where = summary["divergence"];
      const std::int64_t step = where["step"].get<std::int64_t>();
      CHECK(step >= 1);
      CHECK(step <= 400);
      CHECK(where["quantity"].is_string());
      CHECK(result.output.find("at step " + std::to_string(step)) != std::string::npos);
      const Trace trace = parse_trace(traces[attempt]);
      REQUIRE(!trace.rows.empty());
      // Every row before the divergence is there, and none of them holds a NaN or an infinity.
      CHECK(trace.number(trace.rows.size() - 1, "step") < static_cast<double>(step));
      // eval.every = 1: at most the rows of steps 0 .. step - 1 (a lagging node may leave the last ones
      // open).
      CHECK(trace.rows.size() <= static_cast<std::size_t>(step));
      CHECK(traces[attempt].find("nan") == std::string::npos);
      CHECK(traces[attempt].find("inf") == std::string::npos);
      CHECK(summary["final"]["train_loss"].is_number());
      CHECK(fs::exists(out / "resolved.json"));
    }
    CHECK(traces[0] == traces[1]);
    CHECK(without_wall_clock(summaries[0]) == without_wall_clock(summaries[1]));
  }
}

TEST_CASE("a run whose loss blows up while finite stops as diverged, by the documented rule") {
  json scenario = linear_scenario({{"kind", "dpsgd"}, {"steps", 400}, {"lr", 3}});
  scenario["eval"]["blow_up"] = {{"loss_factor", 10}, {"evaluations", 3}};
  const fs::path folder = temporary_folder("blow-up");
  const std::string file = write_scenario(scenario, folder / "scenario.json");
  const CommandResult result =
      run_command(std::string(SGDSIM_BINARY) + " run -q " + file + " -o " + (folder / "out").string());
  INFO(result.output);
  REQUIRE(result.exit_code == 3);
  CHECK(result.output.find("training loss blew up") != std::string::npos);
  const json summary = json::parse(read_text(folder / "out" / "summary.json"));
  CHECK(summary["status"] == "diverged");
  CHECK(summary["divergence"]["reason"] == "blow_up");
  CHECK(summary["divergence"]["quantity"] == "training loss");
  const Trace trace = parse_trace(read_text(folder / "out" / "trace.csv"));
  REQUIRE(trace.rows.size() >= 3);
  // The rows written: finite, the last two already above the limit (the third one stopped the run).
  const double initial = trace.number(0, "train_loss");
  const std::size_t last = trace.rows.size() - 1;
  CHECK(trace.number(last, "train_loss") > 10 * initial);
  CHECK(trace.number(last - 1, "train_loss") > 10 * initial);
  CHECK(trace.number(last - 2, "train_loss") <= 10 * initial);
  CHECK(summary["divergence"]["step"].get<double>() == trace.number(last, "step") + 1);
  // Switched off, the same run goes on until a value is no longer finite.
  scenario["eval"]["blow_up"]["loss_factor"] = 0;
  const Run off = run_scenario(scenario, "blow-up-off");
  CHECK(off.exit_code == 3);
  CHECK(off.output.find(" is not finite") != std::string::npos);
}

TEST_CASE("a completed run says so in summary.json") {
  const Run run = run_scenario(linear_scenario({{"kind", "dpsgd"}, {"steps", 5}, {"lr", 0.01}}), "completed");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.summary["status"] == "completed");
  CHECK(!run.summary.contains("divergence"));
}

TEST_CASE("a sweep indexes a diverged point as diverged, exits 0 and does not rerun it") {
  const fs::path folder = temporary_folder("diverge-sweep");
  write_scenario(linear_scenario({{"kind", "dpsgd"}, {"steps", 20}, {"lr", 0.01}}), folder / "base.json");
  const json sweep = {{"name", "lr"}, {"base", "base.json"}, {"grid", {{"algorithm.lr", {0.01, 1e30}}}}};
  std::ofstream(folder / "sweep.json") << sweep.dump(2);
  const std::string command = std::string(SGDSIM_BINARY) + " sweep " + (folder / "sweep.json").string() +
                              " -o " + (folder / "study").string() + " -j 1";
  const CommandResult first = run_command(command);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK(first.output.find("diverged") != std::string::npos);
  // The closing count keeps a diverged point apart from the ones that finished well.
  CHECK_THAT(first.output, Catch::Contains(": 1 ok, 1 diverged, 0 failed, 0 pending of 2 points"));
  const std::string index = read_text(folder / "study" / "index.csv");
  CHECK(index.find(",diverged,") != std::string::npos);
  CHECK(index.find(",ok,") != std::string::npos);
  const CommandResult again = run_command(command);
  INFO(again.output);
  CHECK(again.exit_code == 0);
  CHECK(again.output.find("diverged ") == std::string::npos);  // nothing ran again
  CHECK(read_text(folder / "study" / "index.csv") == index);
}

TEST_CASE(
    "strings that are not UTF-8 are refused where they enter, or repaired when taken from a file name") {
  const fs::path folder = temporary_folder("utf8");
  const json scenario = linear_scenario({{"kind", "dpsgd"}, {"steps", 2}, {"lr", 0.01}});
  const std::string file = write_scenario(scenario, folder / "scenario.json");
  for (const std::string& verb :
       {std::string("validate -q "), "run -q -o " + (folder / "a").string() + " "}) {
    const CommandResult result =
        run_command(std::string(SGDSIM_BINARY) + " " + verb + file + " --set 'name=bad\xff name'");
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK(result.output.find("not valid UTF-8") != std::string::npos);
  }
  CHECK(!fs::exists(folder / "a"));
  // No name given: the file's name (here not UTF-8) is repaired.
  const std::string odd = write_scenario(scenario, folder / "r\xe9sum\xe9.json");
  const CommandResult run =
      run_command(std::string(SGDSIM_BINARY) + " run -q " + odd + " -o " + (folder / "b").string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(json::parse(read_text(folder / "b" / "summary.json"))["name"] == "r?sum?");
}

TEST_CASE("scenarios too big for the memory limit are refused during validation with the estimate") {
  const fs::path folder = temporary_folder("huge");
  struct Case {
    std::string label, set, expected;
  };
  const std::vector<Case> cases = {
      {"complete graph", R"('network.topology={"kind":"complete","nodes":10000}')",
       "topology (49995000 edges)"},
      {"wide MLP",
       R"('model={"kind":"mlp","hidden":[65536]}' --set data.features=784 --set data.kind=logistic)",
       "node models and messages"},
      {"huge batch", "data.batch_size=16777216 --set data.features=784",
       "minibatch buffers (batch_size 16777216)"},
  };
  const std::string file =
      write_scenario(linear_scenario({{"kind", "dpsgd"}, {"steps", 2}, {"lr", 0.01}}), folder / "s.json");
  for (const Case& c : cases) {
    for (const std::string& verb : {std::string("validate -q"), "run -q -o " + (folder / "out").string()}) {
      const auto start = std::chrono::steady_clock::now();
      const CommandResult result = run_command(std::string(SGDSIM_BINARY) + " " + verb + " " + file +
                                               " --memory-limit 2GB --set " + c.set);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      INFO(c.label << ": " << verb << "\n" << result.output);
      CHECK(result.exit_code == 2);
      CHECK(result.output.find("needs an estimated") != std::string::npos);
      CHECK(result.output.find(c.expected) != std::string::npos);
      CHECK(result.output.find("limit of 2 GB") != std::string::npos);
      CHECK(seconds < 20);
    }
  }
  CHECK(!fs::exists(folder / "out"));
  // The environment sets the limit too; a small scenario fits a small limit.
  CHECK(run_command("SGDSIM_MEMORY_LIMIT=1kB " + std::string(SGDSIM_BINARY) + " validate -q " + file)
            .exit_code == 2);
  CHECK(run_command("SGDSIM_MEMORY_LIMIT=1GB " + std::string(SGDSIM_BINARY) + " validate -q " + file)
            .exit_code == 0);
  const CommandResult bad =
      run_command(std::string(SGDSIM_BINARY) + " validate -q " + file + " --memory-limit x");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("--memory-limit") != std::string::npos);
}

TEST_CASE("an Erdos-Renyi graph that is almost never connected is refused at once") {
  const fs::path folder = temporary_folder("sparse-er");
  const std::string file =
      write_scenario(linear_scenario({{"kind", "dpsgd"}, {"steps", 2}, {"lr", 0.01}}), folder / "s.json");
  const auto start = std::chrono::steady_clock::now();
  const CommandResult result =
      run_command(std::string(SGDSIM_BINARY) + " validate -q " + file +
                  " --set 'network.topology={\"kind\":\"erdos_renyi\",\"nodes\":10000,\"p\":1e-4}'");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(result.output);
  CHECK(result.exit_code == 2);
  CHECK(result.output.find("$.network.topology.p") != std::string::npos);
  CHECK(result.output.find("almost never connected") != std::string::npos);
  CHECK(seconds < 10);
}

TEST_CASE("the optimum solver stops at its work budget with a message saying so") {
  // Softmax takes L-BFGS (no Newton): a budget of a few evaluations is exhausted long before convergence.
  json scenario = linear_scenario({{"kind", "dpsgd"}, {"steps", 2}, {"lr", 0.01}});
  scenario["data"] = {
      {"dataset", "synthetic"}, {"kind", "logistic"}, {"samples", 400}, {"features", 50}, {"batch_size", 8}};
  scenario["model"] = {{"kind", "softmax"}, {"l2", 1e-4}};
  const sgdsim::scenarios::Scenario loaded(scenario, "softmax.json", ".");
  const auto& train = loaded.problem().train;
  const double per_evaluation = static_cast<double>(train.samples() * loaded.dimension());
  try {
    sgdsim::learning::solve_optimum(loaded.model(), train, 5 * per_evaluation);
    FAIL("expected the budget to run out");
  } catch (const sgdsim::InputError& e) {
    CHECK(std::string(e.what()).find("solver's budget") != std::string::npos);
  }
  CHECK(std::isfinite(sgdsim::learning::solve_optimum(loaded.model(), train)));
}

TEST_CASE("time profiles whose value stops changing neither hang run nor topology --link") {
  const fs::path folder = temporary_folder("constant-profiles");
  std::ofstream(folder / "flat.trace") << "0 0.5\n1 0.5\n";
  json scenario = linear_scenario({{"kind", "dpsgd"}, {"steps", 20}, {"lr", 0.05}});
  scenario["network"]["dynamics"] = json::parse(R"([
      {"edge": [0, 1], "bandwidth": {"kind": "steps", "steps": [[0, 0.5], [0.001, 0.5]], "period": "2ms"}},
      {"edge": [1, 2], "latency": {"kind": "trace", "file": "flat.trace", "period": "3s"}},
      {"edge": [2, 3], "bandwidth": {"kind": "random", "mean_normal": "1ms", "mean_episode": "1ms", "value": 1}}])");
  const std::string file = write_scenario(scenario, folder / "scenario.json");
  // `timeout` turns a hang into exit 124 instead of a stuck test.
  const std::string sgdsim = "timeout 120 " + std::string(SGDSIM_BINARY);
  const CommandResult run = run_command(sgdsim + " run -q " + file + " -o " + (folder / "out").string());
  INFO(run.output);
  CHECK(run.exit_code == 0);
  CHECK(fs::exists(folder / "out" / "summary.json"));
  for (const char* link : {"0-1", "1-2", "2-3"}) {
    const CommandResult profile =
        run_command(sgdsim + " topology " + file + " --link " + link + " --until 1e6");
    INFO(link << "\n" << profile.output);
    CHECK(profile.exit_code == 0);
  }
  fs::remove_all(folder);
}

TEST_CASE("Ctrl-C stops a run with a message and the status of an interrupted program, writing nothing") {
  const fs::path folder = temporary_folder("interrupt");
  const std::string file = write_scenario(
      linear_scenario({{"kind", "dpsgd"}, {"steps", 10000000}, {"lr", 0.05}}), folder / "s.json");
  // SIGINT once the simulation runs (validation and data take well under a second here).
  // Built piece by piece: GCC 12 warns (-Wrestrict, a false positive) on this chain of operator+.
  std::string command = "(";
  command += SGDSIM_BINARY;
  command += " run " + file + " -o " + (folder / "out").string();
  command += " & pid=$!; sleep 2; kill -INT $pid; wait $pid; echo \"exit $?\") 2>&1";
  const CommandResult result = run_command(command);
  INFO(result.output);
  CHECK_THAT(result.output, Catch::Contains("sgdsim: interrupted: the run stopped and wrote nothing"));
  CHECK_THAT(result.output, Catch::Contains("exit 130"));
  CHECK(!fs::exists(folder / "out"));
  fs::remove_all(folder);
}

TEST_CASE("a run that diverges before its first row writes final: null, and a sweep indexes empty cells") {
  const fs::path folder = temporary_folder("diverge-first-row");
  // Targets of size 1e200: the loss of the first evaluation (step 0) is already infinite.
  json scenario = linear_scenario({{"kind", "dpsgd"}, {"steps", 5}, {"lr", 0.01}});
  scenario["data"]["noise"] = 1e200;
  const Run run = run_scenario(scenario, "diverge-first-row");
  INFO(run.output);
  REQUIRE(run.exit_code == 3);
  CHECK_THAT(run.output, Catch::Contains("sgdsim: diverged: the run diverged at step "));
  const json summary = json::parse(read_text(run.directory / "summary.json"));
  CHECK(summary["status"] == "diverged");
  CHECK(summary["final"].is_null());
  CHECK(parse_trace(read_text(run.directory / "trace.csv")).rows.empty());
  // In a sweep: a complete, diverged point whose final figures are empty cells, not 0.
  write_scenario(scenario, folder / "base.json");
  const json sweep = {{"name", "noise"}, {"base", "base.json"}, {"grid", {{"data.noise", {1e200}}}}};
  std::ofstream(folder / "sweep.json") << sweep.dump(2);
  const std::string command = std::string(SGDSIM_BINARY) + " sweep " + (folder / "sweep.json").string() +
                              " -o " + (folder / "study").string() + " -j 1";
  const CommandResult first = run_command(command);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const std::string index = read_text(folder / "study" / "index.csv");
  INFO(index);
  // The final figures' cells (from the column "step" on) are empty.
  const std::string header = index.substr(0, index.find('\n'));
  const std::string row = index.substr(index.find('\n') + 1);
  CHECK(row.find(",diverged,") != std::string::npos);
  const auto commas = [](const std::string& text, std::size_t end) {
    return std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), ',');
  };
  const auto step_column = commas(header, header.find(",step,") + 1);
  std::size_t at = 0;
  for (auto c = 0; c < step_column; ++c) at = row.find(',', at) + 1;
  CHECK(row.substr(at).find_first_not_of(",\n") == std::string::npos);
  const CommandResult again = run_command(command);
  CHECK(again.exit_code == 0);
  CHECK(read_text(folder / "study" / "index.csv") == index);  // complete: not run again
}
