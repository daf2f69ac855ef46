#include "scenarios/wiring/run_summary.hpp"

#include <sys/resource.h>

namespace sgdsim::scenarios {
namespace {
using observation::When;
using Run = const RunRecord&;
using json = nlohmann::json;

double wall(Run r, WallClock::Part part) {
  return r.clock ? r.clock->seconds(part) : 0.0;
}
}  // namespace

const std::vector<observation::Field<RunRecord>>& run_fields() {
  static const std::vector<observation::Field<RunRecord>> fields = {
      {"name", "", "The scenario's name.", When::always, [](Run r) -> json { return r.name; }},
      {"seed", "", "The scenario's seed.", When::always, [](Run r) -> json { return r.seed; }},
      {"status", "", "\"completed\", or \"diverged\" when the run stopped at a non-finite value.",
       When::always, [](Run r) -> json { return r.diverged ? "diverged" : "completed"; }},
      {"version", "", "The sgdsim version that wrote the file.", When::always,
       [](Run) -> json { return SGDSIM_VERSION_STRING; }},
      {"algorithm", "", "algorithm.kind.", When::always, [](Run r) -> json { return r.algorithm; }},
      {"warnings", "",
       "Settings that run but depart from a paper (e.g. PowerSGD without error feedback), as printed on "
       "stderr after the scenario file's name; empty when none.",
       When::always, [](Run r) -> json { return r.warnings; }},
      {"nodes", "nodes", "Nodes of the topology.", When::always, [](Run r) -> json { return r.nodes; }},
      {"edges", "edges", "Edges of the topology.", When::always, [](Run r) -> json { return r.edges; }},
      {"dimension", "parameters", "Parameters of the model.", When::always,
       [](Run r) -> json { return r.dimension; }},
      observation::group<RunRecord>("wall_clock_s", "s",
                                    "Host seconds of the simulation, split so that the parts add up to the "
                                    "total; they differ from machine "
                                    "to machine (with --threads above 1, gradient is the simulation thread's "
                                    "time computing gradients or "
                                    "waiting for the pool's)."),
      {"wall_clock_s.total", "s", "The whole simulation, solving f* included.", When::always,
       [](Run r) -> json { return r.wall_s; }},
      {"wall_clock_s.gradient", "s", "Computing minibatch gradients.", When::always,
       [](Run r) -> json { return wall(r, WallClock::Part::gradient); }},
      {"wall_clock_s.compression", "s", "Encoding and decoding.", When::always,
       [](Run r) -> json { return wall(r, WallClock::Part::compression); }},
      {"wall_clock_s.evaluation", "s", "The observer's evaluations of the average model.", When::always,
       [](Run r) -> json { return wall(r, WallClock::Part::evaluation); }},
      {"wall_clock_s.optimum", "s", "Solving f* for the suboptimality column.", When::always,
       [](Run r) -> json { return r.optimum_s; }},
      {"wall_clock_s.simulator_and_protocol", "s", "The rest: SimGrid and the protocols' own code.",
       When::always,
       [](Run r) -> json {
         return r.wall_s - r.optimum_s - wall(r, WallClock::Part::gradient) -
                wall(r, WallClock::Part::compression) - wall(r, WallClock::Part::evaluation);
       }},
      {"peak_rss_mb", "MiB", "Peak resident memory of the process.", When::always,
       [](Run) -> json {
         rusage usage{};
         getrusage(RUSAGE_SELF, &usage);
         return static_cast<double>(usage.ru_maxrss) / 1024.0;
       }},
      observation::group<RunRecord>("divergence", "", "Where the run diverged.", When::diverged),
      {"divergence.step", "steps", "The step being computed.", When::diverged,
       [](Run r) -> json { return r.diverged->where().step; }},
      {"divergence.node", "", "The node whose value was not finite; null for the average model.",
       When::diverged,
       [](Run r) -> json {
         const auto& node = r.diverged->where().node;
         return node ? json(*node) : json();
       }},
      {"divergence.quantity", "",
       "What was not finite (model, gradient, minibatch loss, message, training loss) or blew up (training "
       "loss).",
       When::diverged, [](Run r) -> json { return r.diverged->where().quantity; }},
      {"divergence.reason", "",
       "\"not_finite\" (an infinite or NaN value) or \"blow_up\" (the training loss past eval.blow_up's "
       "limit).",
       When::diverged, [](Run r) -> json { return r.diverged->where().blew_up ? "blow_up" : "not_finite"; }},
      {"divergence.detail", "", "Where in it, e.g. the first bad coordinate, or the blow-up rule's figures.",
       When::diverged, [](Run r) -> json { return r.diverged->where().detail; }},
      {"divergence.message", "", "The whole message, as printed on stderr.", When::diverged,
       [](Run r) -> json { return r.diverged->what(); }},
  };
  return fields;
}

std::vector<observation::FieldDoc> summary_field_docs() {
  std::vector<observation::FieldDoc> docs = observation::field_docs(run_fields());
  for (auto& doc : observation::observed_field_docs()) docs.push_back(std::move(doc));
  return docs;
}

nlohmann::json summary(const RunRecord& run, const observation::Observed& observed) {
  nlohmann::json summary = observation::observed_summary(observed);
  observation::fill(summary, run_fields(), run, {.diverged = run.diverged != nullptr});
  return summary;
}

}  // namespace sgdsim::scenarios
