#include "scenarios/wiring/scenario.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "algorithms/learning/footprint.hpp"
#include "algorithms/learning/optimum.hpp"
#include "algorithms/learning/problem.hpp"
#include "algorithms/learning/stand_in_model.hpp"
#include "algorithms/protocols/footprint.hpp"
#include "algorithms/protocols/spellings.hpp"
#include "common/dotted_path.hpp"
#include "common/error.hpp"
#include "common/memory_limit.hpp"
#include "common/regular_file.hpp"
#include "common/spec.hpp"
#include "common/utf8.hpp"
#include "observation/attribution.hpp"
#include "observation/eval_keys.hpp"
#include "observation/footprint.hpp"
#include "observation/links.hpp"
#include "observation/schedule_recorder.hpp"
#include "observation/timeline.hpp"
#include "scenarios/wiring/output_folder.hpp"
#include "scenarios/wiring/run_summary.hpp"
#include "sim/config/compute_keys.hpp"
#include "sim/config/network_keys.hpp"
#include "sim/config/simulator_setup.hpp"
#include "topologies/graph.hpp"

namespace sgdsim::scenarios {
namespace fs = std::filesystem;

const keys::Object& scenario_keys() {
  static const keys::Object root{
      "scenario",
      "One simulated training run of decentralized SGD: the network, the data, the model and the algorithm. "
      "Unknown keys are errors; `sgdsim validate S.json` prints the scenario with every default filled in "
      "(what a "
      "run writes to resolved.json). Comments (// and /* */) are allowed.",
      {keys::string("$schema",
                    "The path or URL of this schema, so that editors find it; echoed, otherwise ignored.")
           .may_be_absent(),
       keys::string("name", "A label for the run, copied into summary.json.")
           .computed_default("the scenario file's name without its extension"),
       keys::integer(
           "seed",
           "Seed of every random stream (graph, partition, initialisation, minibatches, compression, "
           "evaluation subset). Same scenario and seed give byte-identical outputs.")
           .fallback_to(1)
           .at_least(0),
       keys::object("network", sim::network_keys(), "The modeled network."),
       keys::object("compute", sim::compute_keys(), "The simulated hosts."),
       keys::variant("data", learning::datasets(), "The learning problem and its split across nodes."),
       keys::variant("model", learning::models(), "The model every node trains."),
       keys::variant("algorithm", protocols::protocols(), "The distributed training algorithm."),
       keys::object("eval", observation::eval_keys(), "What the trace measures.")}};
  return root;
}

Scenario::Scenario(const nlohmann::json& written, const std::string& origin, const std::string& base_dir,
                   const BuildOptions& options) {
  // A method spelled as its issue named it becomes the form that runs before anything is read
  // (protocols/spellings.hpp), so resolved.json shows what ran.
  nlohmann::json document = written;
  if (document.is_object() && document.contains("algorithm"))
    document["algorithm"] = protocols::spell_out(document["algorithm"], origin);
  base_dir_ = fs::absolute(base_dir).lexically_normal().string();
  Spec root(document, origin, "", resolved_, scenario_keys());
  if (root.has("$schema")) root.string("$schema");
  // A name taken from the file name is repaired rather than refused (the file itself is fine); a `name` given
  // in the scenario must be valid UTF-8 (Spec::string), because summary.json is JSON.
  name_ = root.string("name", repair_utf8(fs::path(origin).stem().string()));
  seed_ = static_cast<std::uint64_t>(root.integer("seed"));

  sim::SimulatorSetup simulator = sim::read_simulator(root, seed_, base_dir);
  topology_ = std::move(simulator.topology);
  network_ = std::move(simulator.network);

  Spec data = root.variant("data");
  problem_ = data.in_context([&] { return learning::load_problem(data, seed_, base_dir); });
  {
    Spec partition = data.variant("partition");
    shards_ = learning::partition(partition, problem_.train, topology_.nodes, seed_);
  }
  const auto batch_size = static_cast<std::size_t>(data.integer("batch_size"));
  environment_.augmentation = learning::read_augmentation(data, problem_.train);
  data.finish();

  Spec model = root.variant("model");
  model_ = learning::make_model(model, problem_.train, base_dir);
  if (options.stand_in_model) model_ = std::make_unique<learning::StandInModel>(std::move(model_));
  Spec algorithm = root.variant("algorithm");
  if (algorithm.kind()->find("graph"))
    logical_ = algorithm.in_context(
        [&] { return topology::make_logical_graph(algorithm, topology_, seed_, base_dir); });
  {
    // Refuse what would not fit before the protocol allocates its per-node vectors (std::bad_alloc after
    // gigabytes otherwise). Each layer states its own part.
    const nlohmann::json& given = document.at("algorithm");  // an object: its kind was read
    memory_ = topology::memory_parts(topology_);
    const bool optimum = data.kind()->has("suboptimality_by_default") && model.kind()->has("convex");
    for (auto parts : {learning::memory_parts(problem_, *model_, batch_size, optimum),
                       protocols::memory_parts(*algorithm.kind(), given, graph(), model_->dimension()),
                       observation::memory_parts(model_->dimension(), topology_.nodes)})
      memory_.insert(memory_.end(), parts.begin(), parts.end());
    require_memory(memory_, origin);
  }
  environment_.topology = &graph();
  environment_.network = &topology_;
  environment_.model = model_.get();
  environment_.train = &problem_.train;
  environment_.shards = &shards_;
  environment_.batch_size = batch_size;
  environment_.seed = seed_;
  environment_.clock = &clock_;
  environment_.prices = std::make_shared<protocols::PriceTable>(simulator.costs);
  environment_.model_spec = resolved_["model"];
  network_.prices = environment_.prices;
  environment_.lossy = network_.dynamics.receive_timeout > 0;
  if (const std::size_t state_dimension = model_->state_dimension(); state_dimension > 0) {
    node_states_.assign(topology_.nodes, std::vector<float>(state_dimension));
    for (auto& state : node_states_) model_->initialize_state(state);
    environment_.states = &node_states_;
  }
  if (environment_.lossy && network_.dynamics.late_messages == sim::LateMessages::keep &&
      !algorithm.kind()->has("takes_late_messages"))
    algorithm.fail("kind",
                   "\"" + algorithm.kind_name() +
                       "\" cannot run with network.late_messages \"keep\": a kept message goes to the "
                       "next receive from its sender, which this protocol may read as another of its "
                       "messages; kinds that take it: " +
                       quoted_list(protocols::protocols().kind_names("takes_late_messages")));
  protocol_ = protocols::make_protocol(algorithm, environment_);
  // The exact price of every codec configuration the protocol uses, and its source: resolved.json runs with
  // the same prices whatever the profile file becomes.
  resolved_["compute"]["codecs"] = environment_.prices->codec_prices();
  algorithm_ = algorithm.kind_name();

  Spec eval = root.object("eval");
  observation::EvalSetup measured =
      observation::read_eval(eval, {.model = model_.get(),
                                    .train = &problem_.train,
                                    .shards = &shards_,
                                    .batch_size = batch_size,
                                    .seed = seed_,
                                    .convex = model.kind()->has("convex"),
                                    .optimum_cheap = data.kind()->has("suboptimality_by_default"),
                                    .algorithm = algorithm_,
                                    .resolved_algorithm = &resolved_["algorithm"]});
  solve_optimum_ = measured.solve_optimum;
  measured.options.steps = resolved_["algorithm"]["steps"].get<std::int64_t>();
  measured.options.has_trigger = algorithm.kind()->has("fires_triggers");
  observer_options_ = std::move(measured.options);
  eval.finish();
  root.finish();
  warnings_ = settings_warnings(resolved_, origin);
}

// The text depends on the settings only, so a re-timed run's warnings are the live run's.
std::vector<std::string> settings_warnings(const nlohmann::json& resolved, const std::string& origin) {
  std::vector<std::string> warnings;
  const nlohmann::json& algorithm = resolved.at("algorithm");
  if (algorithm.contains("compressor") && algorithm["compressor"].is_object()) {
    const std::string kind = algorithm["compressor"].value("kind", "");
    const keys::Kind* compressor = compression::compressors().find(kind);
    const bool feedback = algorithm.contains("memory") && algorithm["memory"].is_object() &&
                          algorithm["memory"].value("kind", "") == "error_feedback";
    if (compressor && compressor->has("wants_error_feedback") && !feedback)
      warnings.push_back("$.algorithm.memory: compressor \"" + kind +
                         "\" is biased and its paper runs it with error feedback; without memory "
                         "\"error_feedback\" this run departs from the paper");
  }
  if (resolved.contains("data") && resolved["data"].is_object() &&
      resolved["data"].value("dataset", "") == "synthetic_images")
    warnings.push_back(
        "$.data.dataset: synthetic_images are random pixels with random labels: nothing can be learned, so "
        "the trace's loss and accuracy mean nothing; its simulated times and bytes do");
  for (const std::string& warning : warnings)
    std::fprintf(stderr, "sgdsim: warning: %s: %s\n", origin.c_str(), warning.c_str());
  return warnings;
}

bool Scenario::time_dependent() const {
  return protocols::time_dependent(resolved_["algorithm"]) || network_.dynamics.receive_timeout > 0;
}

std::string Scenario::why_time_dependent() const {
  return scenarios::why_time_dependent(resolved_["algorithm"], network_);
}

std::string why_time_dependent(const nlohmann::json& algorithm, const sim::NetworkOptions& network) {
  for (const keys::Kind* kind : keys::chosen_kinds(protocols::protocols(), algorithm))
    if (kind->family->knows("time_dependent") && kind->has("time_dependent"))
      return "the " + kind->family->name() + " \"" + kind->name +
             "\" declares that what its nodes compute depends on simulated time";
  if (network.dynamics.receive_timeout > 0)
    return "network.receive_timeout > 0: receives give up after a simulated time, so what a node receives "
           "depends on the timing";
  return "";
}

void Scenario::record_schedule() {
  if (const std::string why = why_time_dependent(); !why.empty())
    throw InputError("this run cannot be recorded for re-timing: " + why);
  record_ = true;
}

nlohmann::json Scenario::simulate(std::ostream& trace, bool progress, std::size_t threads,
                                  sim::Recording* recording) {
  const auto start = std::chrono::steady_clock::now();
  if (solve_optimum_ && !problem_.optimum) {
    try {
      problem_.optimum = learning::solve_optimum(*model_, problem_.train);
    } catch (const InputError& e) {
      std::fprintf(stderr, "sgdsim: warning: no suboptimality column: %s\n", e.what());
    }
  }
  const double optimum_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  observation::ObserverOptions options = observer_options_;
  options.progress = progress;
  if (network_.dynamics.receive_timeout > 0) {
    options.nodes_down = [&dynamics = network_.dynamics](double time) { return dynamics.nodes_down(time); };
  }
  observation::Observer observer(topology_.nodes, *model_, problem_, options, trace, &clock_);
  std::optional<observation::ScheduleRecorder> recorder;
  if (record_) recorder.emplace(topology_.nodes, observer);
  environment_.probe = recorder ? static_cast<protocols::Probe*>(&*recorder) : &observer;
  auto body = [&](std::size_t node, protocols::Port& port) {
    if (!recorder)
      return observation::attribute_divergence(observer, node, [&] { protocol_->run(node, port); });
    const std::unique_ptr<protocols::Port> recording = recorder->wrap(node, port);
    observation::attribute_divergence(observer, node, [&] { protocol_->run(node, *recording); });
  };
  sim::NodeBody server;
  if (protocol_->serves()) {
    server = [&](std::size_t node, protocols::Port& port) {
      observation::attribute_divergence(observer, node, [&] { protocol_->serve(node, port); });
    };
  }
  double end = 0;
  std::optional<Diverged> diverged;
  sim::Recording own;  // when the caller records nothing
  sim::Recording& record = recording ? *recording : own;
  record.timeline.options.step_of = [&observer, last_step = observer_options_.steps](std::size_t node) {
    return observation::computing_step(observer, node, last_step);
  };
  {
    // Gone before the protocol's state, which its tasks write into, and before any result is read.
    WorkerPool pool(threads);
    struct Lend {
      protocols::Environment& environment;
      ~Lend() { environment.pool = nullptr; }
    } lend{environment_};
    environment_.pool = &pool;
    try {
      end = sim::simulate(topology_, network_, body, server, &record);
    } catch (const Diverged& e) {
      diverged = e;
      end = e.where().sim_time_s;
    }
  }
  environment_.probe = nullptr;
  record.timeline.options.step_of = nullptr;  // it refers to the observer, gone with this call
  if (!diverged) {
    protocol_->finish();
    if (observer.last().step != observer_options_.steps) {
      throw std::runtime_error("the simulation ended before every node reached the last step");
    }
  }
  RunRecord run{.name = name_,
                .seed = seed_,
                .algorithm = algorithm_,
                .nodes = topology_.nodes,
                .edges = topology_.edges.size(),
                .dimension = model_->dimension(),
                .diverged = diverged ? &*diverged : nullptr,
                .wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                .optimum_s = optimum_seconds,
                .clock = &clock_,
                .warnings = warnings_};
  nlohmann::json summary =
      scenarios::summary(run, {observer.last(), observer.node_stats(), end, &record.links});
  // A run that diverged before its first row measured nothing: its final figures are not 0 (the best loss).
  if (observer.rows().empty()) summary["final"] = nullptr;
  diverged_ = diverged;
  if (recorder && !diverged)
    schedule_ = recorder->finish(resolved_.dump(), base_dir_, observer.shape(), *environment_.prices,
                                 observer.rows());
  return summary;
}

nlohmann::json load_document(const std::string& file, const std::vector<std::string>& overrides) {
  nlohmann::json document = parse_json_file(file);
  for (const std::string& text : overrides) {
    auto [path, value] = parse_assignment(text);
    set_dotted(document, path, value, "--set " + text);
  }
  return document;
}

void run_to_directory(const std::string& file, const std::vector<std::string>& overrides,
                      const std::string& directory, bool force, bool progress, std::size_t threads,
                      const std::optional<TimelineRequest>& timeline, bool record) {
  // A FIFO or device as the scenario would block or never end; refuse it before reading. A bad -o is refused
  // before the data is loaded, and checked again when the temporary folder is made.
  require_regular_file(file, max_json_file_bytes);
  OutputFolder::check(directory, force);
  const nlohmann::json document = load_document(file, overrides);
  const std::string base_dir = fs::path(file).parent_path().string();
  Scenario scenario(document, file, base_dir.empty() ? "." : base_dir);
  if (record) scenario.record_schedule();

  OutputFolder output(directory, force);
  const fs::path& temporary = output.temporary();
  write_run_file(temporary / "resolved.json", scenario.resolved().dump(2) + "\n");
  nlohmann::json summary;
  sim::Recording recording;
  if (timeline) {
    recording.record_timeline = true;
    recording.timeline.options.first_step = timeline->first_step;
    recording.timeline.options.last_step = timeline->last_step;
    recording.timeline.options.max_spans = timeline->max_spans;
  }
  {
    // Written row by row (observation::write_trace_row flushes each whole row), so a reader of the
    // temporary folder sees the run's progress and never a torn row.
    std::ofstream trace(temporary / "trace.csv", std::ios::binary);
    summary = scenario.simulate(trace, progress, threads, &recording);
    trace.close();
    if (!trace) throw std::runtime_error("cannot write " + (temporary / "trace.csv").string());
  }
  {
    std::ostringstream links;
    observation::write_links(links, recording.links);
    write_run_file(temporary / "links.csv", links.str());
  }
  if (timeline) {
    std::ofstream out(temporary / "timeline.json", std::ios::binary);
    observation::write_timeline(out, recording.timeline, recording.links, scenario.topology().nodes);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + (temporary / "timeline.json").string());
    if (recording.timeline.cut)
      std::fprintf(stderr, "sgdsim: note: %s\n", observation::timeline_cut_note(recording.timeline).c_str());
  }
  if (scenario.schedule()) {
    const std::vector<std::uint8_t> bytes = observation::encode_schedule(*scenario.schedule());
    write_run_file(temporary / observation::schedule_file_name, std::string(bytes.begin(), bytes.end()));
  }
  write_run_file(temporary / "summary.json", summary.dump(2) + "\n");
  output.publish();
  // A diverged run is a complete result (its trace up to the divergence); the caller exits with 3.
  if (scenario.diverged()) throw *scenario.diverged();
}

}  // namespace sgdsim::scenarios
