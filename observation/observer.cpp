#include "observation/observer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"

namespace sgdsim::observation {

Observer::Observer(std::size_t nodes, const learning::Model& model, const learning::Problem& problem,
                   ObserverOptions options, std::ostream& trace, WallClock* clock)
    : nodes_(nodes),
      model_(model),
      problem_(problem),
      options_(std::move(options)),
      shape_{.failures = static_cast<bool>(options_.nodes_down),
             .variance_draws = options_.variance != nullptr},
      trace_(trace),
      clock_(clock),
      latest_(nodes),
      reached_(nodes, 0),
      blow_up_(options_.blow_up) {
  write_trace_header(trace_, shape_);
}

bool Observer::wants(std::int64_t step) const {
  return step == 0 || step == options_.steps || step % options_.every == 0;
}

void Observer::observe(std::int64_t step, std::size_t node, std::span<const float> model,
                       const protocols::NodeStats& stats) {
  Pending& p = pending_[step];
  latest_[node] = stats;
  std::vector<float> state;
  if (auto it = p.states.find(node); it != p.states.end()) {
    state = std::move(it->second);
    p.states.erase(it);
  }
  if (node != p.count) {
    p.early[node] = Arrival{{model.begin(), model.end()}, std::move(state), stats};
    return;
  }
  fold(p, model, state, stats);
  for (auto it = p.early.begin(); it != p.early.end() && it->first == p.count; it = p.early.erase(it))
    fold(p, it->second.model, it->second.state, it->second.stats);
  if (p.count == nodes_) {
    complete(step, p);
    pending_.erase(step);
  }
}

void Observer::fold(Pending& p, std::span<const float> model, std::span<const float> state,
                    const protocols::NodeStats& stats) {
  if (p.mean.empty()) p.mean.assign(model.size(), 0.0);
  p.count += 1;
  const double weight = 1.0 / static_cast<double>(p.count);
  for (std::size_t c = 0; c < model.size(); ++c) {
    const double delta = model[c] - p.mean[c];
    p.mean[c] += delta * weight;
    p.spread += delta * (model[c] - p.mean[c]);
  }
  if (!state.empty()) {
    if (p.state_sum.empty()) p.state_sum.assign(state.size(), 0.0);
    for (std::size_t c = 0; c < state.size(); ++c) p.state_sum[c] += state[c];
  }
  p.sums.add(stats);
}

void Observer::observe_state(std::int64_t step, std::size_t node, std::span<const float> state) {
  pending_[step].states[node].assign(state.begin(), state.end());
}

void Observer::reached(std::int64_t step, std::size_t node) {
  reached_[node] = step;
}

void Observer::complete(std::int64_t step, Pending& p) {
  WallClock::Scope timer(clock_, WallClock::Part::evaluation);
  std::vector<float> average(p.mean.begin(), p.mean.end());
  TraceRow row;
  row.step = step;
  const protocols::NodeStats& total = p.sums.total;
  p.sums.fill_timing(row, nodes_);
  if (options_.has_trigger) row.triggers = total.triggers;
  if (shape_.failures)
    row.failures = TraceRow::Failures{total.lost, total.timed_out, options_.nodes_down(p.sums.time)};
  row.consensus_distance = p.spread / static_cast<double>(nodes_);
  std::vector<float> state(p.state_sum.size());
  for (std::size_t c = 0; c < state.size(); ++c)
    state[c] = static_cast<float>(p.state_sum[c] / static_cast<double>(nodes_));
  const auto evaluate = [&](const learning::Dataset& data, std::span<const std::size_t> subset) {
    return state.empty() ? model_.evaluate(average, data, subset)
                         : model_.evaluate_with_state(average, state, data, subset);
  };
  const learning::Evaluation train = evaluate(problem_.train, options_.train_subset);
  // Finite node models can still average to a model whose loss overflows; no row of the trace is NaN.
  if (!std::isfinite(train.loss)) throw Diverged({"training loss", step, std::nullopt, {}, -1});
  // A finite loss far above where it started, sustained: stopped like a NaN, before its row is written.
  if (auto why = blow_up_.check(train.loss)) {
    Divergence where{"training loss", step, std::nullopt, *why, -1};
    where.blew_up = true;
    throw Diverged(std::move(where));
  }
  row.train_loss = train.loss;
  if (problem_.test.samples() > 0) {
    const learning::Evaluation test = evaluate(problem_.test, {});
    if (!std::isnan(test.accuracy)) row.test_accuracy = test.accuracy;
  }
  if (problem_.optimum && options_.train_subset.empty()) row.suboptimality = train.loss - *problem_.optimum;
  const std::uint64_t compressions = total.compressions - last_compressions_;
  if (compressions > 0) {
    row.compression_error =
        (total.compression_error - last_compression_error_) / static_cast<double>(compressions);
  }
  if (shape_.variance_draws) {
    row.variance.emplace();
    if (const auto measured = options_.variance->measure(step, average, state)) {
      row.variance->sampling = measured->sampling;
      row.variance->estimator = measured->estimator;
      row.variance->estimator_nvar = measured->estimator_nvar;
    }
  }
  last_compressions_ = total.compressions;
  last_compression_error_ = total.compression_error;
  write_trace_row(trace_, row, shape_);
  last_ = row;
  rows_.push_back(row);
  if (options_.progress) {
    std::fprintf(stderr, "\rstep %lld/%lld  simulated %.4g s  bits %.4g  loss %.5g   ",
                 static_cast<long long>(step), static_cast<long long>(options_.steps), row.sim_time_s,
                 static_cast<double>(row.bits_sent), row.train_loss);
    if (step == options_.steps) std::fprintf(stderr, "\n");
  }
}

}  // namespace sgdsim::observation
