#include "observation/estimator_variance.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/rng.hpp"

namespace sgdsim::observation {

EstimatorVariance::EstimatorVariance(VarianceSetup setup) : setup_(std::move(setup)) {
  if (!setup_.model || !setup_.train || !setup_.shards || !setup_.compressor || setup_.draws == 0 ||
      setup_.batch_size == 0 || setup_.reference.empty())
    throw std::logic_error("EstimatorVariance: incomplete setup");
}

void EstimatorVariance::gradient(std::span<const float> x, std::span<const float> state,
                                 std::span<const std::size_t> rows, std::span<float> out) const {
  // Models return the mean gradient of a batch; chunks are weighted by their size. A stateful model
  // (BatchNorm in training mode) starts every chunk from the same statistics, which it may update: a scratch
  // copy.
  constexpr std::size_t chunk = 1024;
  std::fill(out.begin(), out.end(), 0.0f);
  std::vector<float> part(out.size());
  std::vector<double> sum(out.size(), 0.0);
  std::vector<float> scratch_state;
  for (std::size_t begin = 0; begin < rows.size(); begin += chunk) {
    const std::span<const std::size_t> piece = rows.subspan(begin, std::min(chunk, rows.size() - begin));
    if (state.empty()) {
      setup_.model->loss_and_gradient(x, *setup_.train, piece, part);
    } else {
      scratch_state.assign(state.begin(), state.end());
      setup_.model->loss_and_gradient_with_state(x, scratch_state, *setup_.train, piece, part);
    }
    for (std::size_t c = 0; c < part.size(); ++c) sum[c] += static_cast<double>(piece.size()) * part[c];
  }
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = static_cast<float>(sum[c] / rows.size());
}

std::optional<EstimatorVariance::Result> EstimatorVariance::measure(std::int64_t step,
                                                                    std::span<const float> x,
                                                                    std::span<const float> state) const {
  const std::size_t d = x.size();
  const std::size_t n = setup_.shards->size();
  std::vector<float> reference(d);
  gradient(x, state, setup_.reference, reference);
  double reference_norm = 0;
  for (float v : reference) reference_norm += static_cast<double>(v) * v;
  if (reference_norm == 0) return std::nullopt;

  // Two streams per evaluation step, apart from every stream the protocol uses.
  const auto index = static_cast<std::uint64_t>(step);
  Rng batches = Rng::stream(setup_.seed, 2 * index, Purpose::variance);
  Rng rounding = Rng::stream(setup_.seed, 2 * index + 1, Purpose::variance);
  std::vector<std::size_t> batch(setup_.batch_size);
  std::vector<float> g(d), decoded(d);
  std::vector<double> sampled(d), estimated(d);
  compression::Bytes bytes;
  double sampling = 0, estimator = 0;
  // Per coordinate, Σ over draws of ĝ_c and of ĝ_c² (estimator_nvar).
  std::vector<double> first(d, 0.0), second(d, 0.0);
  for (std::size_t draw = 0; draw < setup_.draws; ++draw) {
    std::fill(sampled.begin(), sampled.end(), 0.0);
    std::fill(estimated.begin(), estimated.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const learning::Shard& shard = (*setup_.shards)[i];
      for (auto& row : batch) row = shard[batches.below(shard.size())];
      gradient(x, state, batch, g);
      bytes.clear();
      setup_.compressor->encode_into(g, rounding, bytes);
      setup_.compressor->decode_into(bytes, decoded);
      for (std::size_t c = 0; c < d; ++c) {
        sampled[c] += g[c];
        estimated[c] += decoded[c];
      }
    }
    for (std::size_t c = 0; c < d; ++c) {
      const double s = sampled[c] / static_cast<double>(n) - reference[c];
      const double mean = estimated[c] / static_cast<double>(n);
      const double e = mean - reference[c];
      sampling += s * s;
      estimator += e * e;
      first[c] += mean;
      second[c] += mean * mean;
    }
  }
  const auto draws = static_cast<double>(setup_.draws);
  double spread = 0, moment = 0;
  for (std::size_t c = 0; c < d; ++c) {
    const double m = first[c] / draws;
    spread += std::max(0.0, second[c] / draws - m * m);
    moment += second[c] / draws;
  }
  const double scale = draws * reference_norm;
  return Result{sampling / scale, estimator / scale, moment > 0 ? spread / moment : 0.0};
}

}  // namespace sgdsim::observation
