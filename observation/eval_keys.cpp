#include "observation/eval_keys.hpp"

#include <algorithm>
#include <utility>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/protocol.hpp"
#include "common/rng.hpp"
#include "observation/blow_up.hpp"

namespace sgdsim::observation {

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

// The estimator-variance columns (estimator_variance.hpp); null when variance_draws is 0.
std::shared_ptr<const EstimatorVariance> read_variance(Spec& eval, const EvalContext& context,
                                                       std::size_t default_samples) {
  const auto draws = static_cast<std::size_t>(eval.integer("variance_draws"));
  const auto samples =
      static_cast<std::size_t>(eval.integer("variance_samples", static_cast<std::int64_t>(default_samples)));
  if (draws == 0) return nullptr;
  const protocols::AveragedGradientOf& estimator =
      protocols::protocols().factory(context.algorithm).averaged_gradient;
  if (!estimator)
    eval.fail("variance_draws", "measures an averaged minibatch gradient; \"" + context.algorithm +
                                    "\" has no such estimator (use " + averaged_gradient_kinds() + ", or 0)");
  const protocols::AveragedGradient averaged = estimator(*context.resolved_algorithm);
  if (averaged.compressor.is_null()) eval.fail("variance_draws", averaged.why_not);
  const learning::Dataset& train = *context.train;
  if (samples > train.samples())
    eval.fail("variance_samples", "asks for " + std::to_string(samples) +
                                      " samples but the training set has " + std::to_string(train.samples()) +
                                      " (0 means all)");
  auto compressor = compression::make_compressor(averaged.compressor.dump(), eval.where("variance_draws"));
  compressor->use_layout(protocols::model_layout(*context.model));
  if (compressor->make_state(context.model->dimension()))
    eval.fail("variance_draws", "measures one-shot encodings; the compressor \"" +
                                    averaged.compressor["kind"].get<std::string>() +
                                    "\" keeps state from one message to the next");
  VarianceSetup setup;
  setup.model = context.model;
  setup.train = &train;
  setup.shards = context.shards;
  setup.batch_size = context.batch_size;
  setup.compressor = std::move(compressor);
  setup.draws = draws;
  setup.reference = draw_subset(train.samples(), samples > 0 ? samples : train.samples(), context.seed);
  setup.seed = context.seed;
  return std::make_shared<EstimatorVariance>(std::move(setup));
}

}  // namespace

const keys::Object& eval_keys() {
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
           .at_least(0),
       keys::object("blow_up", blow_up_keys(), "Stopping a run whose loss blows up while staying finite.")}};
  return eval;
}

EvalSetup read_eval(Spec& eval, const EvalContext& context) {
  EvalSetup setup;
  setup.options.every = eval.integer("every");
  setup.solve_optimum = eval.boolean("suboptimality", context.optimum_cheap && context.convex);
  if (setup.solve_optimum && !context.convex)
    eval.fail("suboptimality",
              "needs a convex model (" + quoted_list(learning::models().kind_names("convex")) + ")");
  const learning::Dataset& train = *context.train;
  const auto subset = static_cast<std::size_t>(eval.integer("train_subset"));
  if (subset > train.samples()) {
    eval.fail("train_subset", "asks for " + std::to_string(subset) + " samples but the training set has " +
                                  std::to_string(train.samples()) + " (0 means all)");
  }
  if (subset > 0) setup.options.train_subset = draw_subset(train.samples(), subset, context.seed);
  setup.options.variance = read_variance(eval, context, setup.options.train_subset.size());
  Spec blow_up = eval.object("blow_up");
  setup.options.blow_up = read_blow_up(blow_up);
  return setup;
}

}  // namespace sgdsim::observation
