// PowerSGD: exact sizes, the Eckart–Young bound and its attainment by warm-started power iteration,
// determinism, and raw vectors.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>

#include "algorithms/compression/powersgd.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"

using namespace sgdsim;
using compression::Layout;
using compression::PowerSgd;
using compression::Tensor;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {

// A rows × cols matrix with singular values 2^-k (k = 0, 1, ...) and random singular vectors.
RowMatrix decaying(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  Rng rng(seed);
  const auto random = [&rng](Eigen::Index r, Eigen::Index c) {
    Eigen::MatrixXd m(r, c);
    for (Eigen::Index i = 0; i < r; ++i)
      for (Eigen::Index j = 0; j < c; ++j) m(i, j) = rng.normal();
    return m;
  };
  const Eigen::Index k = std::min(rows, cols);
  const Eigen::MatrixXd u = Eigen::HouseholderQR<Eigen::MatrixXd>(random(rows, k)).householderQ() *
                            Eigen::MatrixXd::Identity(rows, k);
  const Eigen::MatrixXd v = Eigen::HouseholderQR<Eigen::MatrixXd>(random(cols, k)).householderQ() *
                            Eigen::MatrixXd::Identity(cols, k);
  Eigen::VectorXd sigma(k);
  for (Eigen::Index i = 0; i < k; ++i) sigma(i) = std::ldexp(1.0, -static_cast<int>(i));
  return u * sigma.asDiagonal() * v.transpose();
}

std::vector<float> flat(const RowMatrix& m) {
  std::vector<float> v(static_cast<std::size_t>(m.size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      v[static_cast<std::size_t>(i * m.cols() + j)] = static_cast<float>(m(i, j));
  return v;
}

// ||M − C(M)||_F² from the float32 values the encoder saw.
double error(const std::vector<float>& m, const std::vector<float>& decoded) {
  double e = 0;
  for (std::size_t i = 0; i < m.size(); ++i)
    e += (decoded[i] - static_cast<double>(m[i])) * (decoded[i] - m[i]);
  return e;
}

// Eckart–Young: the best rank-r error is the sum of the squared singular values past the r-th.
double best_rank(const std::vector<float>& m, Eigen::Index rows, Eigen::Index cols, Eigen::Index r) {
  Eigen::MatrixXd a(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) a(i, j) = m[static_cast<std::size_t>(i * cols + j)];
  const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues();
  double tail = 0;
  for (Eigen::Index i = r; i < sigma.size(); ++i) tail += sigma(i) * sigma(i);
  return tail;
}

}  // namespace

TEST_CASE("powersgd message size: (rows + cols)·r float32 per factored matrix, the rest raw") {
  PowerSgd c(2);
  // 20 × 30 at rank 2: 100 floats; the 1 × 30 vector raw; 3 × 3 would need 12 floats at rank 2, so raw.
  c.use_layout(Layout({Tensor{20, 30}, Tensor{1, 30}, Tensor{3, 3}}));
  CHECK(c.rank_of(Tensor{20, 30}) == 2);
  CHECK(c.rank_of(Tensor{1, 30}) == 0);
  CHECK(c.rank_of(Tensor{3, 3}) == 0);
  CHECK(c.message_bytes(639) == 4 * (100 + 30 + 9));
  Rng rng(1), data(3);
  std::vector<float> v(639);
  for (float& x : v) x = static_cast<float>(data.normal());
  const auto state = c.make_state(v.size());
  compression::Bytes bytes;
  c.encode_with(v, rng, state.get(), bytes);
  CHECK(bytes.size() == 4 * (100 + 30 + 9));
  // Raw tensors arrive bit for bit.
  const std::vector<float> out = c.decode(bytes, v.size());
  for (std::size_t i = 600; i < 639; ++i) CHECK(out[i] == v[i]);
  // The rank is capped by the matrix: rank 8 of a 20 × 5 matrix is 5, which no longer gains.
  PowerSgd big(8);
  CHECK(big.rank_of(Tensor{20, 5}) == 0);
  CHECK(big.rank_of(Tensor{64, 64}) == 8);
  // Without a layout, `rows` views the vector as a matrix and a rest.
  PowerSgd viewed(1, 16);
  CHECK(viewed.tensors(100) == std::vector<Tensor>{Tensor{16, 6}, Tensor{1, 4}});
  CHECK(viewed.message_bytes(100) == 4 * (22 + 4));
}

TEST_CASE("powersgd error is at least the best rank-r error and reaches it with warm-started iterations") {
  const Eigen::Index rows = 40, cols = 30;
  const std::vector<float> m = flat(decaying(rows, cols, 7));
  for (std::size_t r : {1, 2, 4}) {
    INFO("rank " << r);
    PowerSgd c(r);
    c.use_layout(Layout({Tensor{rows, cols}}));
    const double optimum = best_rank(m, rows, cols, static_cast<Eigen::Index>(r));
    const auto state = c.make_state(m.size());
    Rng rng(1);
    compression::Bytes bytes;
    double first = 0, last = 0;
    for (int step = 0; step < 60; ++step) {
      bytes.clear();
      c.encode_with(m, rng, state.get(), bytes);
      const double e = error(m, c.decode(bytes, m.size()));
      CHECK(e >= optimum * (1 - 1e-5));
      if (step == 0) first = e;
      last = e;
    }
    INFO("first " << first << " last " << last << " optimum " << optimum);
    CHECK(first > optimum * 1.01);
    CHECK(last == Approx(optimum).epsilon(1e-4));
  }
}

TEST_CASE("powersgd: the same state gives the same bytes and encode() starts from the initial state") {
  PowerSgd c(2);
  c.use_layout(Layout({Tensor{12, 10}, Tensor{1, 12}}));
  Rng data(4);
  std::vector<float> v(132);
  for (float& x : v) x = static_cast<float>(data.normal());
  const auto a = c.make_state(v.size()), b = c.make_state(v.size());
  Rng rng(1);
  for (int step = 0; step < 3; ++step) {
    compression::Bytes x, y;
    c.encode_with(v, rng, a.get(), x);
    c.encode_with(v, rng, b.get(), y);
    CHECK(x == y);
    if (step == 0) CHECK(c.encode(v, rng) == x);
    if (step > 0) CHECK(c.encode(v, rng) != x);  // warm-started: a later message differs from a fresh one
  }
  // A zero matrix sends zero factors and then restarts from the initial Q, not from zero.
  const std::vector<float> zero(132, 0.0f);
  compression::Bytes bytes;
  c.encode_with(zero, rng, a.get(), bytes);
  CHECK(c.decode(bytes, 132) == zero);
  bytes.clear();
  c.encode_with(v, rng, a.get(), bytes);
  CHECK(bytes == c.encode(v, rng));
}

TEST_CASE("powersgd rejects non-finite input and messages of the wrong size") {
  PowerSgd c(1, 4);
  Rng rng(1);
  std::vector<float> v(16, 1.0f);
  v[3] = std::nanf("");
  CHECK_THROWS_AS(c.encode(v, rng), NonFiniteInput);
  const compression::Bytes good = c.encode(std::vector<float>(16, 1.0f), rng);
  CHECK(good.size() == 4 * 8);
  compression::Bytes longer = good;
  longer.push_back(0);
  CHECK_THROWS_WITH(c.decode(longer, 16), Catch::Contains("(trailing bytes) at byte offset 32 of 33"));
  CHECK_THROWS_WITH(c.decode(std::span(good).first(31), 16),
                    Catch::Contains("(truncated message) at byte offset 31 of 31"));
}
