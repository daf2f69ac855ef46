#include "algorithms/compression/powersgd.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/error.hpp"

namespace sgdsim::compression {

namespace {

void append_floats(const float* values, std::size_t count, Bytes& out) {
  const std::size_t at = out.size();
  out.resize(at + 4 * count);
  if (count) std::memcpy(out.data() + at, values, 4 * count);
}

}  // namespace

void orthonormalise(std::vector<double>& p, std::size_t rows, std::size_t r) {
  for (std::size_t k = 0; k < r; ++k) {
    double before = 0;
    for (std::size_t i = 0; i < rows; ++i) before += p[i * r + k] * p[i * r + k];
    for (std::size_t l = 0; l < k; ++l) {
      double dot = 0;
      for (std::size_t i = 0; i < rows; ++i) dot += p[i * r + k] * p[i * r + l];
      for (std::size_t i = 0; i < rows; ++i) p[i * r + k] -= dot * p[i * r + l];
    }
    double norm = 0;
    for (std::size_t i = 0; i < rows; ++i) norm += p[i * r + k] * p[i * r + k];
    norm = std::sqrt(norm);
    const bool vanished = !(norm > 1e-12 * std::sqrt(before));
    for (std::size_t i = 0; i < rows; ++i) p[i * r + k] = vanished ? 0.0 : p[i * r + k] / norm;
  }
}

std::vector<float> initial_q(std::uint64_t matrix, std::size_t cols, std::size_t r) {
  Rng draw(0x9e3779b97f4a7c15ULL ^ matrix);
  std::vector<float> q(cols * r);
  for (float& v : q) v = static_cast<float>(draw.normal());
  return q;
}

void restart_zero_columns(std::vector<float>& q, std::uint64_t matrix, std::size_t cols, std::size_t r) {
  for (std::size_t k = 0; k < r; ++k) {
    bool zero = true;
    for (std::size_t j = 0; j < cols && zero; ++j) zero = q[j * r + k] == 0.0f;
    if (!zero) continue;
    const std::vector<float> restart = initial_q(matrix, cols, r);
    for (std::size_t j = 0; j < cols; ++j) q[j * r + k] = restart[j * r + k];
  }
}

PowerSgd::PowerSgd(std::size_t rank, std::size_t rows) : rank_(rank), rows_(rows) {
  if (rank_ < 1) throw std::invalid_argument("powersgd: the rank must be at least 1");
}

std::vector<Tensor> PowerSgd::tensors(std::size_t d) const {
  const bool modelled = !layout().tensors().empty() && layout().dimension() == d;
  if (modelled || rows_ == 0 || d < rows_) return layout().of(d);
  std::vector<Tensor> view = {Tensor{rows_, d / rows_}};
  if (d % rows_) view.push_back(Tensor{1, d % rows_});
  return view;
}

std::size_t PowerSgd::rank_of(const Tensor& t) const {
  if (!t.is_matrix()) return 0;
  const std::size_t r = std::min({rank_, t.rows, t.cols});
  return (t.rows + t.cols) * r < t.rows * t.cols ? r : 0;
}

std::size_t PowerSgd::message_bytes(std::size_t dimension) const {
  std::size_t floats = 0;
  for (const Tensor& t : tensors(dimension)) {
    const std::size_t r = rank_of(t);
    floats += r ? (t.rows + t.cols) * r : t.size();
  }
  return 4 * floats;
}

// Every sender starts from the same Q (standard normal, drawn from a fixed stream per matrix), as in the
// paper, whose all-reduce needs one shared Q.
PowerSgd::Factors PowerSgd::initial(std::size_t dimension) const {
  Factors factors;
  std::uint64_t matrix = 0;
  for (const Tensor& t : tensors(dimension)) {
    const std::size_t r = rank_of(t);
    if (!r) continue;
    factors.q.push_back(initial_q(matrix++, t.cols, r));
  }
  return factors;
}

std::unique_ptr<Compressor::State> PowerSgd::make_state(std::size_t dimension) const {
  return std::make_unique<Factors>(initial(dimension));
}

void PowerSgd::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  Factors fresh = initial(values.size());
  encode_with(values, rng, &fresh, out);
}

void PowerSgd::encode_with(std::span<const float> values, Rng& /*rng*/, State* state, Bytes& out) const {
  auto* factors = dynamic_cast<Factors*>(state);
  if (!factors) throw std::logic_error("powersgd: encode_with needs the state make_state() gave");
  for (float v : values)
    if (!std::isfinite(v))
      throw NonFiniteInput("powersgd: cannot compress a vector with infinite or NaN values");
  std::size_t begin = 0, matrix = 0;
  std::vector<double> p, q;
  std::vector<float> p_wire, q_wire;
  for (const Tensor& t : tensors(values.size())) {
    const float* m = values.data() + begin;
    begin += t.size();
    const std::size_t r = rank_of(t), rows = t.rows, cols = t.cols;
    if (!r) {
      append_floats(m, t.size(), out);
      continue;
    }
    if (matrix >= factors->q.size() || factors->q[matrix].size() != cols * r)
      throw std::logic_error("powersgd: the state does not match the layout");
    std::vector<float>& warm = factors->q[matrix];
    // P = M Q, then P̂ = orthonormal columns spanning P.
    p.assign(rows * r, 0.0);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        const double mij = m[i * cols + j];
        for (std::size_t k = 0; k < r; ++k) p[i * r + k] += mij * warm[j * r + k];
      }
    orthonormalise(p, rows, r);
    p_wire.resize(rows * r);
    for (std::size_t x = 0; x < p.size(); ++x) p_wire[x] = static_cast<float>(p[x]);
    // Q = Mᵀ P̂ with the P̂ that goes on the wire, so that P̂ Qᵀ is the projection of M the receivers see.
    q.assign(cols * r, 0.0);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        const double mij = m[i * cols + j];
        for (std::size_t k = 0; k < r; ++k) q[j * r + k] += mij * p_wire[i * r + k];
      }
    q_wire.resize(cols * r);
    for (std::size_t x = 0; x < q.size(); ++x) {
      q_wire[x] = static_cast<float>(q[x]);
      if (!std::isfinite(q_wire[x])) throw NonFiniteInput("powersgd: a factor overflows float32");
    }
    append_floats(p_wire.data(), p_wire.size(), out);
    append_floats(q_wire.data(), q_wire.size(), out);
    // Warm start: the next step starts from this Q. A zero column would stay zero forever (M Q would be zero
    // there), so it restarts from its initial draw.
    warm = q_wire;
    restart_zero_columns(warm, matrix, cols, r);
    ++matrix;
  }
}

void PowerSgd::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                           std::span<float> out) const {
  const std::size_t expected = message_bytes(out.size());
  const std::size_t available = start <= message.size() ? message.size() - start : 0;
  if (available != expected)
    throw DecodeError(
        "powersgd decoder: expected " + std::to_string(expected) + " bytes, found " +
        std::to_string(available) + (available < expected ? " (truncated message)" : " (trailing bytes)") +
        " at byte offset " + std::to_string(std::min(message.size(), start + std::min(available, expected))) +
        " of " + std::to_string(message.size()));
  const std::uint8_t* at = message.data() + start;
  std::size_t begin = 0;
  std::vector<float> p, q;
  for (const Tensor& t : tensors(out.size())) {
    float* m = out.data() + begin;
    begin += t.size();
    const std::size_t r = rank_of(t), rows = t.rows, cols = t.cols;
    if (!r) {
      if (t.size()) std::memcpy(m, at, 4 * t.size());
      at += 4 * t.size();
      continue;
    }
    // Factors are finite and their product fits float32 in every message an encoder writes.
    const std::size_t factors_at = static_cast<std::size_t>(at - message.data());
    const auto fail = [&](const std::string& what, std::size_t offset) {
      throw DecodeError("powersgd decoder: " + what + " at byte offset " + std::to_string(offset) + " of " +
                        std::to_string(message.size()));
    };
    p.resize(rows * r);
    q.resize(cols * r);
    std::memcpy(p.data(), at, 4 * p.size());
    at += 4 * p.size();
    std::memcpy(q.data(), at, 4 * q.size());
    at += 4 * q.size();
    for (std::size_t x = 0; x < p.size() + q.size(); ++x)
      if (!std::isfinite(x < p.size() ? p[x] : q[x - p.size()]))
        fail("non-finite factor", factors_at + 4 * x);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        double sum = 0;
        for (std::size_t k = 0; k < r; ++k) sum += static_cast<double>(p[i * r + k]) * q[j * r + k];
        m[i * cols + j] = static_cast<float>(sum);
        if (!std::isfinite(m[i * cols + j])) fail("factor product overflows float32", factors_at);
      }
  }
}

}  // namespace sgdsim::compression
