// Filters, any-column axes, tables of time and bits to a target, bandwidth crossovers, and series styles
// beyond one palette; `sgdsim targets` end to end on a fake sweep.
#include <catch2/catch.hpp>

#include <set>

#include "analysis/csv_table.hpp"
#include "analysis/plot_figure.hpp"
#include "analysis/plot_gnuplot.hpp"
#include "analysis/run_groups.hpp"
#include "analysis/target_table.hpp"
#include "analysis_fixture.hpp"
#include "common/error.hpp"

using namespace sgdsim;
using namespace sgdsim::analysis;
using namespace sgdsim::analysis_tests;

TEST_CASE("filters keep or drop runs by a parameter's value, and names what it cannot use") {
  const std::vector<RunData> runs = {fake_run("dpsgd", "1Mbps", 1, 1, 1, 1),
                                     fake_run("choco", "1Mbps", 1, 1, 1, 1),
                                     fake_run("sparq", "1Mbps", 1, 1, 1, 1)};
  auto kept = filter_runs(runs, {parse_run_filter("algorithm.kind=choco")});
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].name == "choco");
  kept = filter_runs(runs, {parse_run_filter("algorithm.kind!=choco")});
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].name == "dpsgd");
  CHECK(kept[1].name == "sparq");
  kept = filter_runs(runs,
                     {parse_run_filter("algorithm.kind!=choco"), parse_run_filter("algorithm.kind!=sparq")});
  REQUIRE(kept.size() == 1);
  // Alternatives: any of them.
  kept = filter_runs(runs, {parse_run_filter("algorithm.kind=sparq|dpsgd")});
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].name == "dpsgd");
  kept = filter_runs(runs, {parse_run_filter("algorithm.kind!=sparq|dpsgd")});
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].name == "choco");
  // A value may itself contain '='.
  const RunFilter odd = parse_run_filter("note=a=b");
  CHECK(odd.key == "note");
  CHECK(odd.values == std::vector<std::string>{"a=b"});
  CHECK(odd.equal);

  CHECK_THROWS_WITH(parse_run_filter("algorithm.kind"), Catch::Contains("KEY=VALUE"));
  CHECK_THROWS_WITH(parse_run_filter("=x"), Catch::Contains("KEY=VALUE"));
  CHECK_THROWS_WITH(filter_runs(runs, {parse_run_filter("no.such=1")}), Catch::Contains("no.such"));
  // A value no run has: the values there are, so that the typo shows.
  CHECK_THROWS_WITH(filter_runs(runs, {parse_run_filter("algorithm.kind=adam")}),
                    Catch::Contains("--where algorithm.kind=adam: no run has that value; algorithm.kind has: "
                                    "choco, dpsgd, sparq"));
}

TEST_CASE("any trace column goes on either axis, by its name or its short name") {
  const std::vector<RunData> runs = {fake_run("choco", "1Mbps", 1, 1, 10, 1),
                                     fake_run("choco", "1Mbps", 2, 1, 30, 1)};
  PlotRequest request;
  request.x = "sim_time_s";
  request.y = "compression_error";
  const Figure figure = build_figure(runs, request);
  CHECK_FALSE(figure.log_x);  // declared linear (observation/outputs.cpp)
  CHECK(figure.x_label == "simulated time (s)");
  CHECK(figure.y_label == "compression_error");  // declared without an axis label of its own
  REQUIRE(figure.series.size() == 1);
  REQUIRE(figure.series[0].rows.size() == 5);
  CHECK(figure.series[0].rows[2].x == Approx(20));  // step 20 at 1 s per step on both seeds
  CHECK(figure.series[0].rows[2].mean == Approx(0.2));
  // A column's own name is the same axis as its short name: log scale and label from its declaration.
  request.x = "bits_sent";
  const Figure raw = build_figure(runs, request);
  request.x = "bits";
  const Figure named = build_figure(runs, request);
  CHECK(raw.log_x);
  CHECK(named.log_x);
  CHECK(raw.x_label == named.x_label);
  CHECK(raw.title == named.title);
  REQUIRE(raw.series[0].rows.size() == 4);        // step 0 has sent no bits: not on a log axis
  CHECK(raw.series[0].rows[1].x == Approx(400));  // step 20: mean of 200 and 600 bits
  request.y = "no_such_column";
  CHECK_THROWS_WITH(build_figure(runs, request),
                    Catch::Contains("--y no_such_column") && Catch::Contains("compression_error"));
}

TEST_CASE("steps, bits and time to a target are read off the first evaluation that reaches it") {
  // dpsgd: loss 1/(1+step) reaches 0.05 at step 20 on both seeds; choco's seed 2 (scale 100) never does.
  std::vector<RunData> runs = {
      fake_run("dpsgd", "1Mbps", 1, 1, 100, 0.5), fake_run("dpsgd", "1Mbps", 2, 1, 300, 1.5),
      fake_run("choco", "1Mbps", 1, 1, 10, 0.5), fake_run("choco", "1Mbps", 2, 100, 10, 0.5)};
  const auto groups = group_runs(runs, grouping_keys(runs, {}, {"seed"}));
  const auto rows = target_rows(groups, {make_target("loss", 0.05), make_target("accuracy", 0.3)});
  REQUIRE(rows.size() == 4);
  const TargetRow& dpsgd = rows[0];
  CHECK(dpsgd.series == "dpsgd");
  CHECK(dpsgd.reach.reached == 2);
  REQUIRE(dpsgd.reach.steps);
  CHECK(dpsgd.reach.steps->mean == Approx(20));
  CHECK(dpsgd.reach.bits->mean == Approx(4000));
  CHECK(dpsgd.reach.bits->min == Approx(2000));
  CHECK(dpsgd.reach.bits->max == Approx(6000));
  CHECK(dpsgd.reach.seconds->mean == Approx(20));
  CHECK(dpsgd.final_value->mean == Approx(1.0 / 41));
  const TargetRow& choco = rows[1];
  CHECK(choco.reach.reached == 1);
  CHECK_FALSE(choco.reach.steps);  // never averaged over the lucky seed
  // Accuracy is reached from below: step/100 >= 0.3 first at step 30.
  CHECK(rows[2].target.upward);
  CHECK(rows[2].reach.steps->mean == Approx(30));
  const std::string md = target_markdown(rows);
  CHECK_THAT(
      md, Catch::Contains("| dpsgd | train_loss <= 0.05 | 2/2 | 20 | 4e+03 [2e+03, 6e+03] | 20 [10, 30] |"));
  CHECK_THAT(md, Catch::Contains("| choco | train_loss <= 0.05 | 1/2 | – | – | – |"));
  const CsvTable csv = parse_csv(target_csv(rows), "csv");
  REQUIRE(csv.rows.size() == 4);
  CHECK(csv.rows[0][*csv.column("bits_max")] == "6000");
  CHECK(csv.rows[1][*csv.column("steps_mean")].empty());
}

TEST_CASE("relative targets are a fraction short of a baseline series' final value") {
  // dpsgd's loss ends at 1/41 and 3/41 (scales 1 and 3), its accuracy at 0.4 on both seeds.
  std::vector<RunData> runs = {fake_run("dpsgd", "1Mbps", 1, 1, 100, 0.5),
                               fake_run("dpsgd", "1Mbps", 2, 3, 300, 1.5),
                               fake_run("choco", "1Mbps", 1, 1, 10, 0.5)};
  const auto groups = group_runs(runs, grouping_keys(runs, {}, {"seed"}));
  const Target loss = relative_target(groups, "dpsgd", "loss", 0.5);
  CHECK(loss.column == "train_loss");
  CHECK_FALSE(loss.upward);
  CHECK(loss.value == Approx(1.5 * 3 / 41));  // the worst seed's final loss, plus half
  const Target accuracy = relative_target(groups, "dpsgd", "accuracy", 0.25);
  CHECK(accuracy.upward);
  CHECK(accuracy.value == Approx(0.75 * 0.4));
  CHECK_THROWS_WITH(relative_target(groups, "sparq", "loss", 0.1), Catch::Contains("series: dpsgd, choco"));
}

TEST_CASE("bandwidth tables give the fastest series per bandwidth and log-log interpolated crossovers") {
  // Per step: baseline takes 1 s at 1 Mbps and 0.01 s at 100 Mbps; compressed 0.1 s at both, so it is faster
  // at 1 Mbps, slower at 100 Mbps, and the ratio crosses 1 halfway in log bandwidth: 10 Mbps.
  std::vector<RunData> runs;
  for (int seed : {1, 2}) {
    runs.push_back(fake_run("allreduce", "1Mbps", seed, 1, 100, 1));
    runs.push_back(fake_run("allreduce", "100Mbps", seed, 1, 100, 0.01));
    runs.push_back(fake_run("qsgd", "1Mbps", seed, 1, 10, 0.1));
    runs.push_back(fake_run("qsgd", "100Mbps", seed, 1, 10, 0.1));
  }
  const auto groups = group_runs(runs, grouping_keys(runs, {}, {"seed", "network.link.bandwidth"}));
  REQUIRE(groups.size() == 2);
  // bandwidth_bits reads the declaration from the resolved scenario, so give the runs one.
  for (auto& run : runs) run.resolved = {{"network", {{"link", {{"bandwidth", "1Mbps"}}}}}};
  const BandwidthTable table =
      bandwidth_table(groups, "network.link.bandwidth", make_target("loss", 0.05), {"allreduce"});
  REQUIRE(table.bandwidths.size() == 2);
  CHECK(table.bandwidths[0] == Approx(1e6));
  CHECK(table.fastest == std::vector<std::string>{"qsgd", "allreduce"});
  REQUIRE(table.crossings.size() == 1);
  CHECK(table.crossings[0].series == "qsgd");
  REQUIRE(table.crossings[0].crossings.size() == 1);
  CHECK(table.crossings[0].crossings[0] == Approx(1e7));
  CHECK(table.crossings[0].faster_at == std::vector<double>{1e6});
  // Each seed's own crossover too (here the seeds agree).
  REQUIRE(table.crossings[0].per_seed.size() == 2);
  CHECK(table.crossings[0].per_seed[1].first == 2);
  REQUIRE(table.crossings[0].per_seed[1].second.size() == 1);
  CHECK(table.crossings[0].per_seed[1].second[0] == Approx(1e7));
  CHECK_FALSE(table.crossings[0].coarse);
  CHECK_THAT(
      bandwidth_markdown(table),
      Catch::Contains("| qsgd | allreduce | 1 Mbps | ≈ 10 Mbps (per seed 10 Mbps to 10 Mbps: seed 1: 10 "
                      "Mbps; seed 2: 10 Mbps) |"));
  CHECK_THROWS_WITH(bandwidth_table(groups, "network.link.bandwidth", make_target("loss", 0.05), {"fp64"}),
                    Catch::Contains("--baseline fp64") && Catch::Contains("allreduce, qsgd"));

  // The figure draws the crossover as a labelled vertical line.
  PlotRequest request;
  request.x = "bandwidth";
  request.target = 0.05;
  request.baselines = {"allreduce"};
  const Figure figure = build_figure(runs, request);
  REQUIRE(figure.markers.size() == 1);
  CHECK(figure.markers[0].x == Approx(1e7));
  CHECK_THAT(figure.markers[0].label, Catch::Contains("qsgd = allreduce at 10Mbit/s (seeds 10M-10M)"));
  CHECK_THAT(gnuplot_script(figure, "f.png", "f.dat"), Catch::Contains("set arrow from 10000000, graph 0"));
}

TEST_CASE("crossovers give each seed's value, and say when the evaluation interval cannot resolve them") {
  // Seed 2 of the compressed method is twice as slow: its crossover moves; with evaluations every 10 steps,
  // the times near the crossover differ by less than an evaluation interval.
  std::vector<RunData> runs;
  for (int seed : {1, 2}) {
    runs.push_back(fake_run("allreduce", "1Mbps", seed, 1, 100, 0.25));
    runs.push_back(fake_run("allreduce", "100Mbps", seed, 1, 100, 0.025));
    runs.push_back(fake_run("qsgd", "1Mbps", seed, 1, 10, 0.1 * seed));
    runs.push_back(fake_run("qsgd", "100Mbps", seed, 1, 10, 0.1 * seed));
  }
  for (auto& run : runs) run.resolved = {{"network", {{"link", {{"bandwidth", "1Mbps"}}}}}};
  const auto groups = group_runs(runs, grouping_keys(runs, {}, {"seed", "network.link.bandwidth"}));
  const BandwidthTable table =
      bandwidth_table(groups, "network.link.bandwidth", make_target("loss", 0.05), {"allreduce"});
  REQUIRE(table.crossings.size() == 1);
  const Crossing& c = table.crossings[0];
  REQUIRE(c.per_seed.size() == 2);
  REQUIRE(c.per_seed[0].second.size() == 1);
  REQUIRE(c.per_seed[1].second.size() == 1);
  CHECK(c.per_seed[0].second[0] > c.per_seed[1].second[0]);  // the slower seed crosses at a lower bandwidth
  CHECK(c.coarse);
  const std::string text = bandwidth_markdown(table);
  CHECK_THAT(text,
             Catch::Contains("(per seed ") && Catch::Contains("seed 1: ") && Catch::Contains("seed 2: "));
  CHECK_THAT(text, Catch::Contains("less than the evaluation interval"));
}

TEST_CASE("more series than colours stay distinguishable") {
  Figure figure;
  for (int s = 0; s < 24; ++s) figure.series.push_back({std::to_string(s), {{1, 1, 1, 1, 1}}});
  const std::string script = gnuplot_script(figure, "f.png", "f.dat");
  std::set<std::string> styles;
  std::size_t at = 0;
  while ((at = script.find("with lines ", at)) != std::string::npos) {
    at += 11;
    styles.insert(script.substr(at, script.find(" lw", at) - at));
  }
  CHECK(styles.size() == 24);
}

TEST_CASE("sgdsim targets writes Markdown and CSV tables of a sweep, and rejects what it cannot do") {
  ScratchDir scratch("targets");
  const std::string dir = quote(fake_method_sweep(scratch.path()).string());

  const auto md =
      run_sgdsim("targets " + dir + " --target 0.5 --target 0.2 -o " + quote((scratch / "t.md").string()));
  INFO(md.output);
  REQUIRE(md.exit_code == 0);
  const std::string table = read_text(scratch / "t.md");
  CHECK_THAT(table, Catch::Contains("| series | target | seeds reached |"));
  CHECK_THAT(table, Catch::Contains("train_loss <= 0.2"));

  const auto csv = run_sgdsim("targets " + dir + " --target 0.2 --by-bandwidth --baseline dpsgd -o " +
                              quote((scratch / "t.csv").string()));
  INFO(csv.output);
  REQUIRE(csv.exit_code == 0);
  const CsvTable parsed = parse_csv(read_text(scratch / "t.csv"), "t.csv");
  CHECK(parsed.rows.size() == 4);  // 2 methods x 2 bandwidths
  CHECK(parsed.column("bandwidth_bps"));

  const auto filtered = run_sgdsim("targets " + dir + " --target 0.2 --where algorithm.kind=choco");
  REQUIRE(filtered.exit_code == 0);
  CHECK_THAT(filtered.output, Catch::Contains("10Mbps"));
  CHECK_THAT(filtered.output, !Catch::Contains("dpsgd"));

  const auto relative =
      run_sgdsim("targets " + dir + " --group algorithm.kind --relative-to dpsgd --target 0.1");
  INFO(relative.output);
  REQUIRE(relative.exit_code == 0);
  CHECK_THAT(relative.output, Catch::Contains("| dpsgd | train_loss <= "));

  const std::string txt = quote((scratch / "t.txt").string());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--target 0.2 -o " + txt, ".md or .csv"},
      {"--target 0.2 --baseline dpsgd", "--by-bandwidth"},
      {"--target 0.2 --target 0.1 --by-bandwidth", "exactly one --target"},
      {"--target 0.2 --metric nothing", "no column \"nothing\""},
      {"--target 0.2 --where x", "KEY=VALUE"},
      {"--target 1.5 --relative-to dpsgd", "fraction in [0, 1)"},
      {"--target 0.1 --relative-to nobody", "no series \"nobody\""},
  };
  for (const auto& [args, message] : bad) {
    INFO(args);
    const auto result = run_sgdsim("targets " + dir + " " + args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(message));
  }
}

TEST_CASE("targets refuses --target nan or inf, and plot draws a trace holding 1e400 without it") {
  ScratchDir scratch("targets-nonfinite");
  const std::string dir = quote(fake_method_sweep(scratch.path()).string());
  for (const char* value : {"nan", "inf", "-inf"}) {
    const auto result = run_sgdsim("targets " + dir + " --target " + value);
    INFO(value << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("--target: expected a finite value"));
  }
  const fs::path lone = scratch / "lone";
  write_text(lone / "resolved.json", R"({"name": "huge", "seed": 1})");
  write_text(lone / "trace.csv",
             "step,sim_time_s,bits_sent,bytes_on_wire,messages,triggers,train_loss,test_accuracy,"
             "consensus_distance\n0,0,0,0,0,,1,,0\n10,1,1000,0,0,,1e400,,0\n20,2,2000,0,0,,0.5,,0\n");
  const auto plotted =
      run_sgdsim("plot " + quote(lone.string()) + " -o " + quote((scratch / "f.png").string()));
  INFO(plotted.output);
  CHECK(plotted.exit_code == 0);
  CHECK_THAT(read_text(scratch / "f.dat"), Catch::Contains("NaN"));
}
