// PowerSGD as published (powersgd_allreduce.hpp).
#include "algorithms/protocols/powersgd_allreduce.hpp"

#include <cstring>

#include "algorithms/compression/powersgd.hpp"
#include "algorithms/protocols/encoders.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {
// The products of the power step: for every r < rows and c < cols (row by row), Σ_k a(r, k)·b(k, c) over
// k < inner in ascending order, summed in double, handed to store(r, c, sum).
template <typename A, typename B, typename Store>
void multiply(std::size_t rows, std::size_t inner, std::size_t cols, const A& a, const B& b,
              const Store& store) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      double sum = 0;
      for (std::size_t k = 0; k < inner; ++k) sum += static_cast<double>(a(r, k)) * b(k, c);
      store(r, c, sum);
    }
}
}  // namespace

PowerSgdAllreduce::PowerSgdAllreduce(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      local_(environment, schedule_.optimizer),
      nodes_(environment.topology->nodes) {
  const std::size_t n = environment.topology->nodes;
  const std::size_t d = local_.dimension();
  if (environment.model->averages_state())
    throw InputError(spec.where() +
                     ": the model's batch_norm \"averaged\" is implemented by the gossip protocols (dpsgd, "
                     "choco, sparq); PowerSGD's workers keep their BatchNorm statistics local");
  const auto rank = static_cast<std::size_t>(spec.integer("rank"));
  error_feedback_ = spec.boolean("error_feedback");
  // The rank rule is the compressor's: r' = min(r, rows, cols), low rank only when (rows + cols) r' < rows
  // cols.
  compression::PowerSgd rule(rank);
  rule.use_layout(model_layout(*environment.model));
  std::size_t begin = 0;
  for (const compression::Tensor& t : rule.tensors(d)) {
    if (const std::size_t r = rule.rank_of(t)) {
      matrices_.push_back({begin, t.rows, t.cols, r, p_floats_, q_floats_});
      p_floats_ += t.rows * r;
      q_floats_ += t.cols * r;
    } else {
      wholes_.push_back({begin, t.size(), 0});
    }
    begin += t.size();
  }
  for (Whole& whole : wholes_) {
    whole.at = p_floats_;
    p_floats_ += whole.size;
  }
  // Q's all-reduce is skipped when no matrix is compressed (then this is data-parallel SGD in fp32).
  fp32_ = compression::make_compressor(R"({"kind": "none"})", spec.where("collective"));
  const nlohmann::json fp32 = {{"kind", "none"}};
  const std::string where = spec.where();
  PriceTable& prices = *environment.prices;
  const Charge decode{prices.codec(Work::decode, fp32, where), 0};
  Spec collective = spec.variant("collective");
  const auto setup = [&](std::size_t dimension) {
    Charge decode_one = decode;
    decode_one.amount = static_cast<double>(dimension);
    return CollectiveSetup{n,
                           dimension,
                           fp32_.get(),
                           decode_one,
                           environment.prices.get(),
                           environment.clock,
                           where,
                           compression::Layout{},
                           physical_network(environment)};
  };
  reduce_p_ = collectives().factory(collective.kind_name())(collective, setup(p_floats_));
  if (q_floats_ > 0) reduce_q_ = collectives().factory(collective.kind_name())(collective, setup(q_floats_));
  collective.finish();
  const PriceId encode_fp32 = prices.codec(Work::encode, fp32, where);
  encode_p_ = {encode_fp32, static_cast<double>(p_floats_)};
  encode_q_ = {encode_fp32, static_cast<double>(q_floats_)};
  // The power step and the reconstruction are the codec's work, priced per coordinate of the model vector
  // as the powersgd compressor's (the same products: M Q, Gram-Schmidt, Mᵀ P̂, then P̂ Qᵀ).
  const nlohmann::json codec = {{"kind", "powersgd"}, {"rank", rank}, {"rows", 0}};
  const auto coordinates = static_cast<double>(d);
  compress_ = {prices.codec(Work::encode, codec, where), coordinates};
  decompress_ = {prices.codec(Work::decode, codec, where), coordinates};
  // Error feedback: M = g + e reads two vectors and writes one; e = M − P̂ Qᵢᵀ as much again.
  feedback_ = {prices.floats(Work::encode), error_feedback_ ? 6 * coordinates : 0};
  std::vector<float> warm(q_floats_);
  for (std::size_t k = 0; k < matrices_.size(); ++k) {
    const Matrix& matrix = matrices_[k];
    const std::vector<float> q = compression::initial_q(k, matrix.cols, matrix.rank);
    std::copy(q.begin(), q.end(), warm.begin() + static_cast<std::ptrdiff_t>(matrix.q_at));
  }
  for (Node& node : nodes_) {
    node.x = initial_model(environment);
    for (std::vector<float>* v : {&node.error, &node.m, &node.update}) v->assign(d, 0.0f);
    node.p.assign(p_floats_, 0.0f);
    node.p_mean.assign(p_floats_, 0.0f);
    node.q.assign(q_floats_, 0.0f);
    node.q_mean.assign(q_floats_, 0.0f);
    node.warm = warm;
  }
}

void PowerSgdAllreduce::reduce(std::size_t i, Collective& collective, std::span<const float> own,
                               std::span<float> mean, const Charge& encode, protocols::Port& port) {
  Node& node = nodes_[i];
  node.bytes.clear();
  if (collective.sends_message()) {
    WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
    fp32_->encode_into(own, unused_, node.bytes);
    port.charge(encode);
  }
  collective.average(i, node.bytes, own, unused_, mean, port);
}

void PowerSgdAllreduce::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  std::vector<double> p;
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    const std::span<const float> gradient = local_.gradient(i, node.x, batches, port);
    // M = g + e.
    for (std::size_t c = 0; c < node.m.size(); ++c)
      node.m[c] = error_feedback_ ? gradient[c] + node.error[c] : gradient[c];
    {
      WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
      // P_i = M Q with the shared Q; the whole tensors beside them.
      for (const Matrix& a : matrices_) {
        const float* m = node.m.data() + a.begin;
        const float* q = node.warm.data() + a.q_at;
        multiply(
            a.rows, a.cols, a.rank, [&](std::size_t row, std::size_t col) { return m[row * a.cols + col]; },
            [&](std::size_t col, std::size_t k) { return q[col * a.rank + k]; },
            [&](std::size_t row, std::size_t k, double sum) {
              node.p[a.p_at + row * a.rank + k] = static_cast<float>(sum);
            });
      }
      for (const Whole& whole : wholes_)
        std::memcpy(node.p.data() + whole.at, node.m.data() + whole.begin, 4 * whole.size);
    }
    port.charge(std::span<const Charge>(&compress_, 1));
    reduce(i, *reduce_p_, node.p, node.p_mean, encode_p_, port);
    {
      WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
      for (const Matrix& a : matrices_) {
        // P̂ = orthonormalise(mean P), the same floats on every worker; Q_i = M_iᵀ P̂.
        p.assign(node.p_mean.begin() + static_cast<std::ptrdiff_t>(a.p_at),
                 node.p_mean.begin() + static_cast<std::ptrdiff_t>(a.p_at + a.rows * a.rank));
        compression::orthonormalise(p, a.rows, a.rank);
        float* hat = node.p_mean.data() + a.p_at;
        for (std::size_t x = 0; x < p.size(); ++x) hat[x] = static_cast<float>(p[x]);
        const float* m = node.m.data() + a.begin;
        float* q = node.q.data() + a.q_at;
        multiply(
            a.cols, a.rows, a.rank, [&](std::size_t col, std::size_t row) { return m[row * a.cols + col]; },
            [&](std::size_t row, std::size_t k) { return hat[row * a.rank + k]; },
            [&](std::size_t col, std::size_t k, double sum) {
              q[col * a.rank + k] = static_cast<float>(sum);
            });
        // e_i = M_i − P̂ Q_iᵀ: what this worker's own projection leaves out.
        if (error_feedback_)
          multiply(
              a.rows, a.rank, a.cols, [&](std::size_t row, std::size_t k) { return hat[row * a.rank + k]; },
              [&](std::size_t k, std::size_t col) { return q[col * a.rank + k]; },
              [&](std::size_t row, std::size_t col, double sum) {
                node.error[a.begin + row * a.cols + col] = m[row * a.cols + col] - static_cast<float>(sum);
              });
      }
      // Whole tensors are sent exactly: nothing is left out of them.
    }
    port.charge(feedback_);
    if (reduce_q_) reduce(i, *reduce_q_, node.q, node.q_mean, encode_q_, port);
    {
      WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
      // The step: P̂ Qᵀ per matrix, the mean of the whole tensors.
      for (const Matrix& a : matrices_) {
        const float* hat = node.p_mean.data() + a.p_at;
        const float* q = node.q_mean.data() + a.q_at;
        multiply(
            a.rows, a.rank, a.cols, [&](std::size_t row, std::size_t k) { return hat[row * a.rank + k]; },
            [&](std::size_t k, std::size_t col) { return q[col * a.rank + k]; },
            [&](std::size_t row, std::size_t col, double sum) {
              node.update[a.begin + row * a.cols + col] = static_cast<float>(sum);
            });
      }
      for (const Whole& whole : wholes_)
        std::memcpy(node.update.data() + whole.begin, node.p_mean.data() + whole.at, 4 * whole.size);
      // Warm start: the next step's shared Q is this one.
      for (std::size_t k = 0; k < matrices_.size(); ++k) {
        const Matrix& a = matrices_[k];
        std::vector<float> q(node.q_mean.begin() + static_cast<std::ptrdiff_t>(a.q_at),
                             node.q_mean.begin() + static_cast<std::ptrdiff_t>(a.q_at + a.cols * a.rank));
        compression::restart_zero_columns(q, k, a.cols, a.rank);
        std::copy(q.begin(), q.end(), node.warm.begin() + static_cast<std::ptrdiff_t>(a.q_at));
      }
    }
    port.charge(decompress_);
    local_.descend(i, node.x, schedule_.at(t), node.update);
    port.charge(local_.update());
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
std::vector<keys::Key> powersgd_keys() {
  return {keys::integer("rank", "r, the rank of each weight matrix's approximation.")
              .fallback_to(1)
              .between(1, 65536),
          keys::boolean("error_feedback",
                        "Each worker keeps e = M − P̂ Qᵢᵀ and adds it to its next gradient (the paper's "
                        "Algorithm 2); false: plain rank-r compression.")
              .fallback_to(true),
          keys::variant("collective", collectives(),
                        "How the workers all-reduce P and Q (float32 messages; every kind takes them).")
              .fallback_to({{"kind", "ring_allreduce"}})};
}

const bool registered_powersgd_allreduce = protocols().add(
    {"powersgd",
     "PowerSGD as published (Vogels et al. 2019): per weight matrix, the workers all-reduce P = M Q with a "
     "shared warm-started Q, orthonormalise it, all-reduce Q = Mᵀ P̂ and step along P̂ Qᵀ, with error "
     "feedback; vectors go uncompressed with P. Two all-reduces of rank-r factors per step.",
     powersgd_keys(),
     {}},
    {.build =
         [](Spec& spec, const Environment& environment) {
           return std::make_unique<PowerSgdAllreduce>(spec, environment);
         },
     // x_i, e, M, the update, and the collective's scratch (the factors are small).
     .vectors_per_node = [](const nlohmann::json&, double) { return 5.0; }});
}  // namespace

}  // namespace sgdsim::protocols
