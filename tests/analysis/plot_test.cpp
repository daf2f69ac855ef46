// Plots: figure computation in-process (grouping, seed averaging, time to target), and `sgdsim plot` end to
// end on fake sweeps (files produced, script references its data, bad input, missing gnuplot).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <tuple>

#include "analysis/csv_table.hpp"
#include "analysis/plot_figure.hpp"
#include "analysis/plot_gnuplot.hpp"
#include "analysis/run_groups.hpp"
#include "analysis_fixture.hpp"
#include "common/error.hpp"

using namespace sgdsim;
using namespace sgdsim::analysis;
using namespace sgdsim::analysis_tests;

TEST_CASE("curves group runs by the varied parameters and average seeds with a min/max band") {
  std::vector<RunData> runs = {
      fake_run("dpsgd", "10Mbps", 1, 1.0, 100, 0.1), fake_run("dpsgd", "10Mbps", 2, 3.0, 100, 0.1),
      fake_run("choco", "10Mbps", 1, 2.0, 10, 0.1), fake_run("choco", "10Mbps", 2, 2.0, 10, 0.1)};
  PlotRequest request;  // bits vs loss
  const Figure figure = build_figure(runs, request);
  CHECK(figure.log_x);
  CHECK_THAT(figure.x_label, Catch::Contains("(bits)"));
  REQUIRE(figure.series.size() == 2);
  CHECK(figure.series[0].legend == "dpsgd");  // only algorithm.kind varies
  CHECK(figure.series[1].legend == "choco");
  // Step 0 has zero bits and is left out on the log axis.
  REQUIRE(figure.series[0].rows.size() == 4);
  const SeriesRow& row = figure.series[0].rows[0];  // step 10
  CHECK(row.x == Approx(1000));
  CHECK(row.mean == Approx((1.0 + 3.0) / 11 / 2));
  CHECK(row.min == Approx(1.0 / 11));
  CHECK(row.max == Approx(3.0 / 11));
  CHECK(row.runs == 2);

  // Grouping by an explicit key, and a linear x axis for steps.
  request.x = "step";
  request.group = {"network.link.bandwidth"};
  const Figure merged = build_figure(runs, request);
  REQUIRE(merged.series.size() == 1);
  CHECK(merged.series[0].legend == "10Mbps");
  CHECK(merged.series[0].rows.size() == 5);
  CHECK(merged.series[0].rows[0].runs == 4);
  CHECK_FALSE(merged.log_x);
}

TEST_CASE("time to target is the first evaluation at or below the target, per bandwidth and method") {
  std::vector<RunData> runs;
  for (const char* bw : {"10Mbps", "100Mbps"}) {
    const double seconds = std::string(bw) == "10Mbps" ? 1.0 : 0.1;
    for (int seed : {1, 2}) {
      runs.push_back(fake_run("dpsgd", bw, seed, 1.0, 100, seconds));
      runs.push_back(fake_run("choco", bw, seed, seed == 1 ? 1.0 : 100.0, 10, seconds / 2));
    }
  }
  PlotRequest request;
  request.x = "bandwidth";
  request.target = 0.05;  // loss 1/(1+step) <= 0.05 first at step 20
  const Figure figure = build_figure(runs, request);
  CHECK(figure.log_x);
  CHECK(figure.log_y);
  CHECK(figure.error_bars);
  REQUIRE(figure.series.size() == 2);
  CHECK(figure.series[0].legend == "dpsgd");
  REQUIRE(figure.series[0].rows.size() == 2);
  CHECK(figure.series[0].rows[0].x == Approx(10e6));  // bits/s, ascending
  CHECK(figure.series[0].rows[0].mean == Approx(20.0));
  CHECK(figure.series[0].rows[1].mean == Approx(2.0));
  // choco's seed 2 never gets there: its points are left out, with a note, rather than averaged over one
  // seed.
  CHECK(figure.series[1].rows.empty());
  CHECK(figure.notes.size() == 2);

  request.target.reset();
  CHECK_THROWS_WITH(build_figure(runs, request), Catch::Contains("--target"));
  request.target = 0.05;
  request.x = "bits";
  request.y = "time-to-target";
  CHECK_THROWS_AS(build_figure(runs, request), InputError);
  request.x = "bits";
  request.y = "suboptimality";
  CHECK_THROWS_WITH(build_figure(runs, request), Catch::Contains("suboptimality"));
}

TEST_CASE("the gnuplot script references its data, labels axes with units and has one block per series") {
  Figure figure;
  figure.title = "T \"quoted\"";
  figure.x_label = "simulated time (s)";
  figure.y_label = "training loss";
  figure.series = {{"a", {{1, 2, 1, 3, 2}}}, {"b", {}}, {"c", {{1, 1, 1, 1, 1}}}};
  const std::string script = gnuplot_script(figure, "fig.svg", "fig.dat");
  CHECK_THAT(script, Catch::Contains("set terminal svg"));
  CHECK_THAT(script, Catch::Contains("data = 'fig.dat'"));
  CHECK_THAT(script, Catch::Contains("set output 'fig.svg'"));
  CHECK_THAT(script, Catch::Contains("set xlabel 'simulated time (s)'"));
  CHECK_THAT(script, Catch::Contains("set title 'T \"quoted\"'"));
  CHECK_THAT(script, Catch::Contains("index 2"));
  const std::string data = gnuplot_data(figure);
  // Blocks are separated by two blank lines; the empty series keeps its place with a NaN row.
  CHECK(std::count(data.begin(), data.end(), '#') == 6);
  CHECK_THAT(data, Catch::Contains("\n\n\n# b\n# x mean min max runs\nNaN"));
}

TEST_CASE("hostile labels are text to gnuplot: no command runs, no macro expands, no data row is added") {
  Figure figure;
  figure.title = "`touch pwned` it's @macro $(id)";
  figure.x_label = "x\nset output 'other.png'";
  figure.y_label = "y\r\x1b[31m";
  figure.series = {{"legend`id`\n1 2 3 4 5", {{1, 2, 1, 3, 2}}}};
  figure.markers = {{1.0, "m'`id`'"}};
  const std::string script = gnuplot_script(figure, "fig.svg", "fig.dat");
  CHECK_THAT(script, Catch::Contains("set title '`touch pwned` it''s @macro $(id)'"));
  CHECK_THAT(script, Catch::Contains("set xlabel 'x set output ''other.png'''"));
  CHECK_THAT(script, Catch::Contains("set ylabel 'y  [31m'"));
  CHECK_THAT(script, Catch::Contains("set label 'm''`id`''' at"));
  CHECK_THAT(script, Catch::Contains("title 'legend`id` 1 2 3 4 5'"));
  const std::string data = gnuplot_data(figure);
  CHECK(data == "# legend`id` 1 2 3 4 5\n# x mean min max runs\n1 2 1 3 2\n");
}

TEST_CASE("sgdsim plot of a run folder and a title with backquoted commands runs nothing") {
  ScratchDir scratch("plot-hostile");
  const fs::path out = fake_method_sweep(scratch.path());
  const fs::path lone = scratch / "run `touch pwned-by-folder`";
  fs::copy(out / "runs" / entries(out / "runs")[0], lone);
  write_text(lone / "resolved.json",
             R"({"name": "`touch pwned-by-name`\n0 0 0 0 0", "seed": 1, "algorithm": {"kind": "sparq"}})");
  write_text(lone / "trace.csv",
             "step,sim_time_s,bits_sent,bytes_on_wire,messages,triggers,train_loss,test_accuracy,"
             "consensus_distance\n0,0,0,0,0,,1,,0\n10,1,1000,0,0,,0.5,,0\n");
  const fs::path figures = scratch / "figs";
  fs::create_directories(figures);
  const auto result =
      run_sgdsim("plot " + quote(lone.string()) + " --title " + quote("`touch pwned-by-title` it's") +
                 " -o " + quote((figures / "m.png").string()));
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(fs::file_size(figures / "m.png") > 1000);
  for (const fs::path& folder : {scratch.path(), figures, lone}) {
    for (const char* name : {"pwned-by-folder", "pwned-by-name", "pwned-by-title"}) {
      INFO((folder / name).string());
      CHECK(!fs::exists(folder / name));
    }
  }
  const std::string script = read_text(figures / "m.gp");
  CHECK_THAT(script, Catch::Contains("set title '`touch pwned-by-title` it''s'"));
  CHECK_THAT(script, Catch::Contains("'`touch pwned-by-name` 0 0 0 0 0'"));
  // The data file holds the block's two comment lines and the run's one row drawn (bits > 0 on a log axis):
  // the newline in the name added none.
  const std::string data = read_text(figures / "m.dat");
  CHECK(count_lines(data) == 2 + 1);
  CHECK(data.rfind("# `touch pwned-by-name` 0 0 0 0 0\n# x mean min max runs\n1000 ", 0) == 0);
}

TEST_CASE("sgdsim plot draws sweeps and runs to png and svg, keeping script and data beside the figure") {
  ScratchDir scratch("plot");
  const std::string dir = quote(fake_method_sweep(scratch.path()).string());

  struct Case {
    std::string options;
    std::string figure;
    std::string axis;  // expected in the script
  };
  const std::vector<Case> cases = {
      {"", "figs/bits.png", "bits sent"},
      {"--x time --group algorithm.kind", "figs/time.svg", "simulated time (s)"},
      {"--x step --y accuracy", "figs/step.png", "test accuracy"},
      {"--x bandwidth --target 0.2", "figs/bw.svg", "link bandwidth (bit/s)"},
  };
  for (const auto& c : cases) {
    INFO(c.options);
    const fs::path figure = scratch / c.figure;
    const auto result = run_sgdsim("plot " + dir + " " + c.options + " -o " + quote(figure.string()));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    REQUIRE(fs::exists(figure));
    CHECK(fs::file_size(figure) > 1000);
    const std::string script = read_text(fs::path(figure).replace_extension(".gp"));
    CHECK_THAT(script, Catch::Contains(fs::path(figure).replace_extension(".dat").filename().string()));
    CHECK_THAT(script, Catch::Contains(c.axis));
    CHECK(fs::file_size(fs::path(figure).replace_extension(".dat")) > 0);
  }
  CHECK_THAT(read_text(scratch / "figs/time.gp"), Catch::Contains("title 'choco'"));
  // The fake runs' bits do not depend on the bandwidth: per method, the two bandwidths are one curve.
  CHECK_THAT(read_text(scratch / "figs/bits.gp"), Catch::Contains("kind=choco (2 identical)"));
  // The bandwidth figure has one line per method, not per bandwidth.
  CHECK(count_lines(read_text(scratch / "figs/bw.dat")) == 2 * (2 + 2) + 2);

  // A single run folder works too.
  const auto runs = entries(scratch / "out/runs");
  const auto one = run_sgdsim("plot " + quote((scratch / "out/runs" / runs[0]).string()) + " -o " +
                              quote((scratch / "one.png").string()));
  INFO(one.output);
  CHECK(one.exit_code == 0);
  CHECK(fs::exists(scratch / "one.png"));

  // Bad input: exit 2 and a message.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {dir + " -o " + quote((scratch / "x.pdf").string()), ".png or .svg"},
      {dir + " --x bandwidth -o " + quote((scratch / "x.png").string()), "--target"},
      {dir + " --x parsecs -o " + quote((scratch / "x.png").string()), "--x"},
      {dir + " --group nothing.here -o " + quote((scratch / "x.png").string()), "nothing.here"},
      {quote((scratch / "absent").string()) + " -o " + quote((scratch / "x.png").string()), "absent"},
  };
  for (const auto& [args, message] : bad) {
    INFO(args);
    const auto result = run_sgdsim("plot " + args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(message));
  }
  // Without gnuplot: a clear error, and the script is still there to render elsewhere.
  const auto missing = run_sgdsim("plot " + dir + " -o " + quote((scratch / "nognuplot.png").string()),
                                  "SGDSIM_GNUPLOT=/nonexistent/gnuplot");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.output, Catch::Contains("gnuplot not found"));
  CHECK(fs::exists(scratch / "nognuplot.gp"));
}

TEST_CASE("figures that do not mislead: a time axis over decades goes log, identical series become one") {
  // Simulated time per step from 1 ms to 1 s: four methods' curves over three decades of time.
  std::vector<RunData> runs;
  const std::vector<std::pair<std::string, double>> methods = {
      {"a", 0.001}, {"b", 0.01}, {"c", 0.1}, {"d", 1}};
  for (const auto& [method, seconds] : methods)
    for (int seed : {1, 2}) runs.push_back(fake_run(method, "10Mbps", seed, 1.0, 1e6 * seconds, seconds));
  PlotRequest request;
  request.x = "time";
  const Figure figure = build_figure(runs, request);
  CHECK(figure.log_x);
  CHECK_FALSE(figure.log_y);
  request.linear_x = true;  // the option overrides
  CHECK_FALSE(build_figure(runs, request).log_x);

  // Bits: large values get SI tick labels on their (log) axis.
  request = PlotRequest{};
  const Figure bits = build_figure(runs, request);
  CHECK(bits.engineering_x);
  CHECK_THAT(gnuplot_script(bits, "f.png", "f.dat"), Catch::Contains("set format x \"%.0s%c\""));
  CHECK_FALSE(bits.engineering_y);

  // A bandwidth sweep's bits do not depend on the bandwidth: per method, its bandwidths are one curve.
  std::vector<RunData> sweep;
  for (const char* method : {"dpsgd", "choco"})
    for (const char* bandwidth : {"1Mbps", "10Mbps", "100Mbps"})
      sweep.push_back(fake_run(method, bandwidth, 1, 1.0, std::string(method) == "choco" ? 10 : 100, 0.1));
  const Figure merged = build_figure(sweep, PlotRequest{});
  REQUIRE(merged.series.size() == 2);
  CHECK(merged.series[0].legend == "kind=dpsgd (3 identical)");
  CHECK(merged.series[1].legend == "kind=choco (3 identical)");
  REQUIRE_FALSE(merged.notes.empty());
  CHECK_THAT(merged.notes[0], Catch::Contains("kind=dpsgd, bandwidth=1Mbps; kind=dpsgd, bandwidth=10Mbps"));
  // Grouping chosen by the user is kept as given.
  request = PlotRequest{};
  request.group = {"algorithm.kind", "network.link.bandwidth"};
  CHECK(build_figure(sweep, request).series.size() == 6);
}

TEST_CASE("plot helps with typos and filters that match nothing, and reads a run in progress") {
  ScratchDir scratch("plot-help");
  const fs::path sweep = fake_method_sweep(scratch.path());
  const auto typo =
      run_sgdsim("plot " + quote(sweep.string()) + " --x bandwith -o " + quote((scratch / "t.png").string()));
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.output, Catch::Contains("did you mean \"bandwidth\""));
  const auto nothing = run_sgdsim("plot " + quote(sweep.string()) + " --where algorithm.kind=chocoo -o " +
                                  quote((scratch / "w.png").string()));
  CHECK(nothing.exit_code == 2);
  CHECK_THAT(nothing.output, Catch::Contains("--where algorithm.kind=chocoo: no run has that value; "
                                             "algorithm.kind has: choco, dpsgd"));

  // A run still going: DIR does not exist yet, its rows grow in DIR.tmp-HOST-PID; a last line without its
  // newline is not read.
  const fs::path temporary = scratch / "live.tmp-host-123";
  fs::create_directories(temporary);
  write_text(temporary / "resolved.json", R"({"name": "live", "seed": 1})");
  write_text(temporary / "trace.csv",
             "step,sim_time_s,bits_sent,bytes_on_wire,messages,triggers,train_loss,test_accuracy,"
             "consensus_distance\n0,0,0,0,0,,1,,0\n10,1,1000,0,0,,0.5,,0\n20,2,2000,0,0,,0.2");
  const auto live = run_sgdsim("table " + quote((scratch / "live").string()) + " --column loss");
  INFO(live.output);
  CHECK(live.exit_code == 0);
  CHECK_THAT(live.output, Catch::Contains("is still being written: using its 2 rows so far"));
  CHECK_THAT(live.output, Catch::Contains("0.5"));
  CHECK_FALSE(fs::exists(scratch / "live"));
}

TEST_CASE("a sweep shown beside single runs: series named by the sweep's axes and the runs' names") {
  // Two runs of a sweep (one axis, algorithm.kind) and three lone runs: two seeds of one scenario, and a
  // scenario of the same name that differs in more than its seed.
  std::vector<RunData> runs;
  for (const char* method : {"dpsgd", "choco"}) {
    RunData run = fake_run(method, "10Mbps", 1, 1.0, 100, 0.1);
    run.source = "results/study";
    run.axes = {"algorithm.kind"};
    runs.push_back(std::move(run));
  }
  for (const auto& [folder, seed, lr] : std::vector<std::tuple<std::string, int, double>>{
           {"one-s1", 1, 0.1}, {"one-s2", 2, 0.1}, {"one-fast", 1, 0.5}}) {
    RunData run = fake_run("sparq", "10Mbps", seed, 1.0, 50, 0.1);
    run.dir = "results/" + folder;
    run.source = run.dir;
    run.lone = true;
    run.name = "ring16-sparq";
    run.resolved = {{"name", "ring16-sparq"}, {"seed", seed}, {"algorithm", {{"lr", lr}}}};
    for (const auto& [key, value] : flatten(run.resolved)) run.parameters[key] = value;
    run.parameters.erase("seed");
    runs.push_back(std::move(run));
  }
  const auto legends = [](const std::vector<RunGroup>& groups) {
    std::vector<std::string> out;
    for (const auto& g : groups) out.push_back(g.legend + " x" + std::to_string(g.runs.size()));
    return out;
  };
  CHECK(legends(series_groups(runs, {}, {"seed"})) ==
        std::vector<std::string>{"dpsgd x1", "choco x1", "one-s1 x1", "one-s2 x1", "one-fast x1"});
  // Without the one that differs, the two seeds of ring16-sparq are one series under its name.
  runs.pop_back();
  CHECK(legends(series_groups(runs, {}, {"seed"})) ==
        std::vector<std::string>{"dpsgd x1", "choco x1", "ring16-sparq x2"});
  // Two sweeps: each series says which.
  RunData other = fake_run("dpsgd", "10Mbps", 1, 1.0, 100, 0.1);
  other.source = "results/other/";
  other.axes = {"algorithm.kind", "network.link.bandwidth"};
  runs.push_back(other);
  CHECK(legends(series_groups(runs, {}, {"seed"})) ==
        std::vector<std::string>{"study: dpsgd x1", "study: choco x1", "ring16-sparq x2",
                                 "other: kind=dpsgd, bandwidth=10Mbps x1"});
  {
    // Series whose names agree up to the 45 characters a long name is cut to stay apart, named in full.
    std::vector<RunData> long_named = runs;
    for (RunData& run : long_named)
      if (run.source == "results/study") run.source = "results/a-sweep-folder-whose-name-takes-45-characters";
    CHECK(legends(series_groups(long_named, {}, {"seed"})) ==
          std::vector<std::string>{"a-sweep-folder-whose-name-takes-45-characters: dpsgd x1",
                                   "a-sweep-folder-whose-name-takes-45-characters: choco x1",
                                   "ring16-sparq x2", "other: kind=dpsgd, bandwidth=10Mbps x1"});
    // The same when grouping by a parameter whose values agree that far; a long value alone is still cut.
    long_named[0].parameters["algorithm.kind"] = std::string(50, 'x') + "1";
    long_named[1].parameters["algorithm.kind"] = std::string(50, 'x') + "2";
    long_named[4].parameters["algorithm.kind"] = std::string(50, 'y');
    CHECK(legends(series_groups(long_named, {"algorithm.kind"}, {"seed"})) ==
          std::vector<std::string>{std::string(50, 'x') + "1 x1", std::string(50, 'x') + "2 x1", "sparq x2",
                                   std::string(45, 'y') + "... x1"});
  }
  // An excluded axis (the bandwidth of a bandwidth figure) does not split or name a series.
  CHECK(legends(series_groups(runs, {}, {"seed", "network.link.bandwidth"})).back() == "other: dpsgd x1");
  // Grouping asked for is kept, and one sweep alone groups by what varies as before.
  CHECK(series_groups(runs, {"algorithm.kind"}, {"seed"}).size() == 3);
  const std::vector<RunData> sweep(runs.begin(), runs.begin() + 2);
  CHECK(legends(series_groups(sweep, {}, {"seed"})) == std::vector<std::string>{"dpsgd x1", "choco x1"});

  // End to end: a sweep folder and one of its runs copied as a lone run, plotted together.
  ScratchDir scratch("plot-mixed");
  const fs::path out = fake_method_sweep(scratch.path());
  const fs::path lone = scratch / "lone";
  fs::copy(out / "runs" / entries(out / "runs")[0], lone);
  write_text(lone / "resolved.json", R"({"name": "my-run", "seed": 1, "algorithm": {"kind": "sparq"}})");
  write_text(lone / "trace.csv",
             "step,sim_time_s,bits_sent,bytes_on_wire,messages,triggers,train_loss,test_accuracy,"
             "consensus_distance\n0,0,0,0,0,,1,,0\n10,1,1000,0,0,,0.5,,0\n");
  const auto result = run_sgdsim("plot " + quote(out.string()) + " " + quote(lone.string()) + " -o " +
                                 quote((scratch / "m.png").string()));
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const std::string script = read_text(scratch / "m.gp");
  CHECK_THAT(script, Catch::Contains("title 'my-run'"));
  CHECK_THAT(script, Catch::Contains("title 'kind=dpsgd (2 identical)'"));
  CHECK_THAT(script, !Catch::Contains("kind=sparq"));
}

TEST_CASE("table, targets and plot refuse a trace.csv or index.csv that is a FIFO or a device", "[fifo]") {
  ScratchDir scratch("analysis-fifo");
  const fs::path out = fake_method_sweep(scratch.path());
  // A lone run whose trace.csv is a FIFO (reading it would block for ever).
  const fs::path lone = scratch / "lone";
  fs::copy(out / "runs" / entries(out / "runs")[0], lone);
  fs::remove(lone / "trace.csv");
  REQUIRE(mkfifo((lone / "trace.csv").c_str(), 0600) == 0);
  // A sweep whose index.csv is a FIFO.
  REQUIRE(fs::remove(out / "index.csv"));
  REQUIRE(mkfifo((out / "index.csv").c_str(), 0600) == 0);
  const std::vector<std::string> commands = {"table {} --column loss", "targets {} --target 0.5",
                                             "plot {} -o " + quote((scratch / "f.png").string())};
  for (const fs::path& folder : {lone, out}) {
    for (std::string command : commands) {
      command.replace(command.find("{}"), 2, quote(folder.string()));
      const auto result = run_sgdsim(command);
      INFO(command << "\n" << result.output);
      CHECK(result.exit_code == 2);
      CHECK_THAT(result.output, Catch::Contains("is a FIFO"));
    }
  }
  if (geteuid() == 0) {
    // A copy of /dev/zero (made in the scratch folder) would be read until memory runs out.
    fs::remove(lone / "trace.csv");
    REQUIRE(mknod((lone / "trace.csv").c_str(), S_IFCHR | 0666, makedev(1, 5)) == 0);
    const auto result = run_sgdsim("table " + quote(lone.string()) + " --column loss");
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("trace.csv: is a character device"));
  }
}
