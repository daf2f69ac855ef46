// The mixing matrix W and its spectral gap.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/topologies/make.hpp"

using sgdsim::testing::make;
using namespace sgdsim::topology;

namespace {

Topology ring(std::size_t n) {
  return make(R"({"topology": {"kind": "ring", "nodes": )" + std::to_string(n) + "}}");
}

double w(const Topology& t, const Mixing& m, std::size_t i, std::size_t j) {
  if (i == j) return m.self[i];
  for (std::size_t k = 0; k < t.neighbors[i].size(); ++k)
    if (t.neighbors[i][k] == j) return m.neighbor[i][k];
  return 0;
}

}  // namespace

TEST_CASE("metropolis and uniform weights are symmetric and doubly stochastic and follow the formulas") {
  auto t = make(R"({"topology": {"kind": "star", "nodes": 5}})");
  auto m = make_mixing(t, "metropolis");
  CHECK(w(t, m, 0, 3) == Approx(1.0 / 5));
  CHECK(w(t, m, 3, 3) == Approx(4.0 / 5));
  CHECK(w(t, m, 0, 0) == Approx(1.0 / 5));
  auto er = make(R"({"topology": {"kind": "erdos_renyi", "nodes": 30, "p": 0.2}})");
  for (const std::string weights : {"metropolis", "uniform"}) {
    auto mix = make_mixing(er, weights);
    std::size_t max_degree = 0;
    for (std::size_t i = 0; i < er.nodes; ++i) max_degree = std::max(max_degree, er.degree(i));
    for (std::size_t i = 0; i < er.nodes; ++i) {
      double row = 0;
      for (std::size_t j = 0; j < er.nodes; ++j) {
        CHECK(w(er, mix, i, j) == w(er, mix, j, i));
        CHECK(w(er, mix, i, j) >= 0);
        row += w(er, mix, i, j);
      }
      CHECK(std::abs(row - 1) < 1e-12);
      for (std::size_t k = 0; k < er.neighbors[i].size(); ++k) {
        const std::size_t j = er.neighbors[i][k];
        const double expected =
            weights == "uniform" ? 1.0 / (1 + max_degree) : 1.0 / (1 + std::max(er.degree(i), er.degree(j)));
        CHECK(mix.neighbor[i][k] == expected);
      }
    }
  }
  CHECK_THROWS(make_mixing(er, "equal"));
}

TEST_CASE("spectral gap of rings 8 9 16 is 0.1953 0.1560 0.0507 and uniform equals metropolis") {
  const std::vector<std::pair<std::size_t, double>> table{{8, 0.1953}, {9, 0.1560}, {16, 0.0507}};
  for (auto [n, rounded] : table) {
    auto t = ring(n);
    const double delta = spectral_gap(t, make_mixing(t, "metropolis"));
    const double closed_form = 1 - (1 + 2 * std::cos(2 * M_PI / static_cast<double>(n))) / 3;
    CHECK(delta == Approx(closed_form).margin(1e-12));
    CHECK(std::round(delta * 1e4) / 1e4 == Approx(rounded).margin(1e-12));
    CHECK(spectral_gap(t, make_mixing(t, "uniform")) == Approx(delta).margin(1e-12));
  }
}

TEST_CASE("spectral gap of complete graph and hypercube and one node") {
  auto k = make(R"({"topology": {"kind": "complete", "nodes": 6}})");
  CHECK(spectral_gap(k, make_mixing(k, "metropolis")) == Approx(1.0).margin(1e-12));  // W = 11^T/n
  // Hypercube dim 3 with 1/4 weights: eigenvalues (1 + 3 - 2k)/4 -> |lambda_2| = 1/2.
  auto h = make(R"({"topology": {"kind": "hypercube", "dim": 3}})");
  CHECK(spectral_gap(h, make_mixing(h, "metropolis")) == Approx(0.5).margin(1e-12));
  auto one = make(R"({"topology": {"kind": "complete", "nodes": 1}})");
  CHECK(spectral_gap(one, make_mixing(one, "metropolis")) == 1.0);
}

TEST_CASE("Lanczos estimate agrees with the dense solver on well-connected graphs") {
  for (const std::string spec : {R"({"topology": {"kind": "random_regular", "nodes": 400, "degree": 4}})",
                                 R"({"topology": {"kind": "erdos_renyi", "nodes": 300, "p": 0.05}})",
                                 R"({"topology": {"kind": "torus", "dims": [6, 6, 6]}})"}) {
    auto t = make(spec);
    auto m = make_mixing(t, "metropolis");
    const double exact = spectral_gap(t, m, GapMethod::dense);
    const double estimate = spectral_gap(t, m, GapMethod::lanczos);
    INFO(spec);
    CHECK(estimate == Approx(exact).margin(1e-6));
  }
}
