#include "scenarios/wiring/scenario.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/learning/footprint.hpp"
#include "algorithms/learning/optimum.hpp"
#include "algorithms/learning/problem.hpp"
#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/footprint.hpp"
#include "common/dotted_path.hpp"
#include "common/error.hpp"
#include "common/memory_limit.hpp"
#include "common/output_folder.hpp"
#include "common/regular_file.hpp"
#include "common/spec.hpp"
#include "common/utf8.hpp"
#include "observation/footprint.hpp"
#include "observation/links.hpp"
#include "observation/timeline.hpp"
#include "scenarios/wiring/run_summary.hpp"
#include "sim/config/compute_keys.hpp"
#include "sim/config/network_keys.hpp"
#include "sim/config/simulator_setup.hpp"
#include "topologies/graph.hpp"

namespace sgdsim::scenarios {
namespace fs = std::filesystem;

namespace {
std::vector<std::size_t> draw_subset(std::size_t population, std::size_t count, std::uint64_t seed) {
  // Partial Fisher-Yates: `count` distinct samples, fixed by the seed, sorted for cache-friendly evaluation.
  std::vector<std::size_t> all(population);
  for (std::size_t i = 0; i < population; ++i) all[i] = i;
  Rng rng = Rng::stream(seed, 0, Purpose::eval);
  for (std::size_t i = 0; i < count; ++i) std::swap(all[i], all[i + rng.below(population - i)]);
  all.resize(count);
  std::sort(all.begin(), all.end());
  return all;
}

// The protocol kinds that declare an averaged-gradient estimator (eval.variance_draws measures it).
std::string averaged_gradient_kinds() {
  std::string kinds;
  for (const std::string& kind : protocols::protocols().kind_names())
    if (protocols::protocols().factory(kind).averaged_gradient) kinds += (kinds.empty() ? "" : ", ") + kind;
  return kinds;
}

}  // namespace

const keys::Object& scenario_keys() {
  static const keys::Object eval{
      "eval",
      "What the observer measures (free: no simulated time, no bits).",
      {keys::integer("every", "Steps between trace rows (and the last step).").fallback_to(100).at_least(1),
       keys::boolean("suboptimality", "Add the column f(x̄) − f*; f* is solved before simulating.")
           .computed_default(
               "true for data sets whose optimum is cheap (synthetic) with a convex model, else false"),
       keys::integer("train_subset", "Evaluate the training loss on this many samples drawn once (0: all).")
           .fallback_to(0)
           .at_least(0),
       keys::integer(
           "variance_draws",
           averaged_gradient_kinds() +
               " only: add the columns sampling_variance and estimator_variance, the "
               "normalised variance ||ĝ − g||² / ||g||² of the workers' averaged minibatch gradient ĝ "
               "without and with the compressor, against the gradient g on `variance_samples` samples, "
               "each the mean over this many fresh draws of one minibatch per worker (0: off).")
           .fallback_to(0)
           .at_least(0),
       keys::integer("variance_samples",
                     "Samples (drawn once) of the reference gradient g of the variance columns (0: all).")
           .computed_default("train_subset")
           .at_least(0)}};
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
       keys::object("eval", eval, "What the trace measures.")}};
  return root;
}

Scenario::Scenario(const nlohmann::json& document, const std::string& origin, const std::string& base_dir) {
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
  Spec algorithm = root.variant("algorithm");
  {
    // Refuse what would not fit before the protocol allocates its per-node vectors (std::bad_alloc after
    // gigabytes otherwise). Each layer states its own part.
    const nlohmann::json& given = document.at("algorithm");  // an object: its kind was read
    memory_ = topology::memory_parts(topology_);
    const bool optimum = data.kind()->has("suboptimality_by_default") && model.kind()->has("convex");
    for (auto parts : {learning::memory_parts(problem_, *model_, batch_size, optimum),
                       protocols::memory_parts(*algorithm.kind(), given, topology_, model_->dimension()),
                       observation::memory_parts(model_->dimension(), topology_.nodes)})
      memory_.insert(memory_.end(), parts.begin(), parts.end());
    require_memory(memory_, origin);
  }
  environment_.topology = &topology_;
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
  if (environment_.lossy && !algorithm.kind()->has("survives_failures"))
    algorithm.fail("kind",
                   "\"" + algorithm.kind_name() +
                       "\" does not handle lost messages; it cannot run with network.receive_timeout > 0");
  protocol_ = protocols::make_protocol(algorithm, environment_);
  algorithm_ = algorithm.kind_name();
  observer_options_.steps = resolved_["algorithm"]["steps"].get<std::int64_t>();
  observer_options_.has_trigger = algorithm.kind()->has("fires_triggers");

  Spec eval = root.object("eval");
  observer_options_.every = eval.integer("every");
  // f* (for the suboptimality column) is solved before simulating, not while validating: it can take seconds.
  const bool convex = model.kind()->has("convex");
  solve_optimum_ = eval.boolean("suboptimality", data.kind()->has("suboptimality_by_default") && convex);
  if (solve_optimum_ && !convex)
    eval.fail("suboptimality",
              "needs a convex model (" + quoted_list(learning::models().kind_names("convex")) + ")");
  const auto subset = static_cast<std::size_t>(eval.integer("train_subset"));
  if (subset > problem_.train.samples()) {
    eval.fail("train_subset", "asks for " + std::to_string(subset) + " samples but the training set has " +
                                  std::to_string(problem_.train.samples()) + " (0 means all)");
  }
  if (subset > 0) observer_options_.train_subset = draw_subset(problem_.train.samples(), subset, seed_);
  read_variance(eval, resolved_["algorithm"], batch_size);
  eval.finish();
  root.finish();
}

bool Scenario::time_dependent() const {
  return protocols::time_dependent(resolved_["algorithm"]) || network_.dynamics.receive_timeout > 0;
}

void Scenario::read_variance(Spec& eval, const nlohmann::json& algorithm, std::size_t batch_size) {
  const auto draws = static_cast<std::size_t>(eval.integer("variance_draws"));
  const auto samples = static_cast<std::size_t>(
      eval.integer("variance_samples", static_cast<std::int64_t>(observer_options_.train_subset.size())));
  if (draws == 0) return;
  const protocols::AveragedGradientOf& estimator =
      protocols::protocols().factory(algorithm_).averaged_gradient;
  if (!estimator)
    eval.fail("variance_draws", "measures an averaged minibatch gradient; \"" + algorithm_ +
                                    "\" has no such estimator (use " + averaged_gradient_kinds() + ", or 0)");
  const protocols::AveragedGradient averaged = estimator(algorithm);
  if (averaged.compressor.is_null()) eval.fail("variance_draws", averaged.why_not);
  if (samples > problem_.train.samples())
    eval.fail("variance_samples", "asks for " + std::to_string(samples) +
                                      " samples but the training set has " +
                                      std::to_string(problem_.train.samples()) + " (0 means all)");
  auto compressor = compression::make_compressor(averaged.compressor.dump(), eval.where("variance_draws"));
  compressor->use_layout(protocols::model_layout(*model_));
  if (compressor->make_state(model_->dimension()))
    eval.fail("variance_draws", "measures one-shot encodings; the compressor \"" +
                                    averaged.compressor["kind"].get<std::string>() +
                                    "\" keeps state from one message to the next");
  observation::VarianceSetup setup;
  setup.model = model_.get();
  setup.train = &problem_.train;
  setup.shards = &shards_;
  setup.batch_size = batch_size;
  setup.compressor = std::move(compressor);
  setup.draws = draws;
  setup.reference =
      draw_subset(problem_.train.samples(), samples > 0 ? samples : problem_.train.samples(), seed_);
  setup.seed = seed_;
  observer_options_.variance = std::make_shared<observation::EstimatorVariance>(std::move(setup));
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
    const sim::Dynamics& dynamics = network_.dynamics;
    options.nodes_down = [&dynamics](double time) {
      std::size_t down = 0;
      for (const auto& state : dynamics.node_state)
        if (!state.empty() && sim::profile_until(state, time).back().second == 0) ++down;
      return down;
    };
  }
  observation::Observer observer(topology_.nodes, *model_, problem_, options, trace, &clock_);
  environment_.probe = &observer;
  // Divergence is found where the step is not known (a gradient, a compressor's input); the observer knows
  // which step each node is in.
  auto attributed = [&observer](std::size_t node, const std::function<void()>& work) {
    try {
      work();
    } catch (const Diverged& e) {
      if (e.where().step >= 0) throw;
      throw e.at_step(observer.reached(node) + 1);
    } catch (const NonFiniteInput& e) {
      throw Diverged({"message", observer.reached(node) + 1, node, e.what(), -1});
    }
  };
  auto body = [&](std::size_t node, protocols::Port& port) {
    attributed(node, [&] { protocol_->run(node, port); });
  };
  sim::NodeBody server;
  if (protocol_->serves()) {
    server = [&](std::size_t node, protocols::Port& port) {
      attributed(node, [&] { protocol_->serve(node, port); });
    };
  }
  double end = 0;
  std::optional<Diverged> diverged;
  sim::Recording own;  // when the caller records nothing
  sim::Recording& record = recording ? *recording : own;
  // The step a node is computing: one past the last it completed.
  // Work charged in the last step may execute after the node reported it complete: it is the last step's.
  const std::int64_t last_step = observer_options_.steps;
  record.timeline.options.step_of = [&observer, last_step](std::size_t node) {
    return std::min(observer.reached(node) + 1, last_step);
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
                .clock = &clock_};
  nlohmann::json summary =
      scenarios::summary(run, {observer.last(), observer.node_stats(), end, &record.links});
  diverged_ = diverged;
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

namespace {
void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}
}  // namespace

void run_to_directory(const std::string& file, const std::vector<std::string>& overrides,
                      const std::string& directory, bool force, bool progress, std::size_t threads,
                      const std::optional<TimelineRequest>& timeline) {
  // A FIFO or device as the scenario would block or never end; refuse it before reading. A bad -o is refused
  // before the data is loaded, and checked again when the temporary folder is made.
  require_regular_file(file, max_json_file_bytes);
  OutputFolder::check(directory, force);
  const nlohmann::json document = load_document(file, overrides);
  const std::string base_dir = fs::path(file).parent_path().string();
  Scenario scenario(document, file, base_dir.empty() ? "." : base_dir);

  OutputFolder output(directory, force);
  const fs::path& temporary = output.temporary();
  write_file(temporary / "resolved.json", scenario.resolved().dump(2) + "\n");
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
    write_file(temporary / "links.csv", links.str());
  }
  if (timeline) {
    std::ofstream out(temporary / "timeline.json", std::ios::binary);
    observation::write_timeline(out, recording.timeline, recording.links, scenario.topology().nodes);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + (temporary / "timeline.json").string());
    if (recording.timeline.cut)
      std::fprintf(stderr, "sgdsim: note: %s\n", observation::timeline_cut_note(recording.timeline).c_str());
  }
  write_file(temporary / "summary.json", summary.dump(2) + "\n");
  output.publish();
  // A diverged run is a complete result (its trace up to the divergence); the caller exits with 3.
  if (scenario.diverged()) throw *scenario.diverged();
}

}  // namespace sgdsim::scenarios
