// reference_sgemm gives the reference BLAS's bits: against a line-by-line transcription of netlib's SGEMM
// loops and, where the machine's libblas.so.3 is netlib's (Debian's libblas3, the one libtorch was linked
// against here), against that library itself; every form (N/T for A and B), odd sizes and leading dimensions,
// alpha and beta 0, 1 and others, zero, negative-zero and empty inner dimensions. Compiled without FMA
// contraction (tests/CMakeLists.txt), as the transcription must be.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "algorithms/learning/torch/reference_gemm.hpp"

namespace {

using Sgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                       const float*, const int*, const float*, const int*, const float*, float*, const int*);

// netlib's SGEMM (reference BLAS 3.x), its loops as written; column-major, 0-based.
void netlib_sgemm(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                  int ldb, float beta, float* c, int ldc) {
  const auto A = [&](int i, int j) { return a[i + static_cast<std::size_t>(j) * lda]; };
  const auto B = [&](int i, int j) { return b[i + static_cast<std::size_t>(j) * ldb]; };
  const auto C = [&](int i, int j) -> float& { return c[i + static_cast<std::size_t>(j) * ldc]; };
  const bool nota = ta == 'N', notb = tb == 'N';
  if (m == 0 || n == 0 || ((alpha == 0 || k == 0) && beta == 1)) return;
  if (alpha == 0) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) C(i, j) = beta == 0 ? 0.0f : beta * C(i, j);
    return;
  }
  for (int j = 0; j < n; ++j) {
    if (nota) {
      if (beta == 0) {
        for (int i = 0; i < m; ++i) C(i, j) = 0;
      } else if (beta != 1) {
        for (int i = 0; i < m; ++i) C(i, j) = beta * C(i, j);
      }
      for (int l = 0; l < k; ++l) {
        const float temp = alpha * (notb ? B(l, j) : B(j, l));
        for (int i = 0; i < m; ++i) C(i, j) = C(i, j) + temp * A(i, l);
      }
    } else {
      for (int i = 0; i < m; ++i) {
        float temp = 0;
        for (int l = 0; l < k; ++l) temp = temp + A(l, i) * (notb ? B(l, j) : B(j, l));
        C(i, j) = beta == 0 ? alpha * temp : alpha * temp + beta * C(i, j);
      }
    }
  }
}

// The machine's libblas.so.3 when it is netlib's (Debian installs it as blas/libblas.so.3; OpenBLAS, BLIS and
// ATLAS sit in folders of their own names), else null.
Sgemm system_reference_blas() {
  void* handle = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
  if (!handle) return nullptr;
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return nullptr;
  std::error_code error;
  const std::filesystem::path path = std::filesystem::canonical(map->l_name, error);
  if (error || path.parent_path().filename() != "blas") return nullptr;
  return reinterpret_cast<Sgemm>(dlsym(handle, "sgemm_"));
}

}  // namespace

TEST_CASE("reference_sgemm: the reference BLAS's bits in every form, size and scaling", "[torch][gemm]") {
  const Sgemm system = system_reference_blas();
  if (!system) WARN("libblas.so.3 is not netlib's reference BLAS: compared with the transcription only");
  std::mt19937 random(20261204);
  const auto uniform = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
  const auto value = [&](float scale) {
    switch (uniform(6)) {
      case 0:
        return 0.0f;
      case 1:
        return -0.0f;
      default:
        return (static_cast<float>(random()) / 4294967296.0f - 0.5f) * scale;
    }
  };
  const float scalings[] = {0.0f, 1.0f, 1.0f, 0.5f, -1.25f};
  int cases = 0, system_cases = 0;
  for (const char ta : {'N', 'T'}) {
    for (const char tb : {'N', 'T'}) {
      for (int trial = 0; trial < 300; ++trial) {
        // Sizes around the kernels' blocks of 32, 8 and 4 (and LeNet-5's 10, 84, 120, 400), an empty k.
        const int m = 1 + uniform(trial % 10 == 0 ? 130 : 45), n = 1 + uniform(20),
                  k = uniform(trial % 7 == 0 ? 410 : 40);
        const float alpha = scalings[uniform(5)], beta = scalings[uniform(5)];
        const int rows_a = ta == 'N' ? m : k, cols_a = ta == 'N' ? k : m;
        const int rows_b = tb == 'N' ? k : n, cols_b = tb == 'N' ? n : k;
        const int lda = std::max(1, rows_a) + uniform(3), ldb = std::max(1, rows_b) + uniform(3),
                  ldc = m + uniform(3);
        std::vector<float> a(static_cast<std::size_t>(lda) * std::max(1, cols_a)),
            b(static_cast<std::size_t>(ldb) * std::max(1, cols_b));
        std::vector<float> c(static_cast<std::size_t>(ldc) * n);
        for (float& x : a) x = value(4);
        for (float& x : b) x = value(8);
        for (float& x : c) x = value(2);
        std::vector<float> expected = c, ours = c;
        netlib_sgemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, expected.data(), ldc);
        sgdsim::learning::reference_sgemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta,
                                          ours.data(), ldc);
        INFO(ta << tb << " m " << m << " n " << n << " k " << k << " alpha " << alpha << " beta " << beta);
        REQUIRE(std::memcmp(expected.data(), ours.data(), expected.size() * sizeof(float)) == 0);
        ++cases;
        if (system) {
          std::vector<float> library = c;
          system(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, library.data(), &ldc);
          REQUIRE(std::memcmp(library.data(), ours.data(), library.size() * sizeof(float)) == 0);
          ++system_cases;
        }
      }
    }
  }
  CHECK(cases == 1200);
  CHECK(system_cases == (system ? 1200 : 0));
}

TEST_CASE("reference_sgemm: lower-case and 'C' options read as the reference reads them", "[torch][gemm]") {
  const int m = 3, n = 2, k = 4;
  std::vector<float> a(static_cast<std::size_t>(k) * m), b(static_cast<std::size_t>(k) * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * static_cast<float>(i) - 1.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 0.5f - 0.125f * static_cast<float>(i);
  std::vector<float> upper(static_cast<std::size_t>(m) * n, 1.0f), lower = upper, conjugate = upper;
  sgdsim::learning::reference_sgemm('T', 'N', m, n, k, 1.0f, a.data(), k, b.data(), k, 1.0f, upper.data(), m);
  sgdsim::learning::reference_sgemm('t', 'n', m, n, k, 1.0f, a.data(), k, b.data(), k, 1.0f, lower.data(), m);
  sgdsim::learning::reference_sgemm('C', 'n', m, n, k, 1.0f, a.data(), k, b.data(), k, 1.0f, conjugate.data(),
                                    m);
  CHECK(upper == lower);
  CHECK(upper == conjugate);
  CHECK(upper[0] != 1.0f);
}
