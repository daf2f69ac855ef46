// Compiled with -ffp-contract=off (CMakeLists.txt): every `x + y * z` below must stay a multiply and then an
// add, as in the reference, on instruction sets that could fuse them.
#include "algorithms/learning/torch/reference_gemm.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace sgdsim::learning {

namespace {

bool is(char option, char upper) {
  return option == upper || option == upper - 'A' + 'a';
}

// c[i] = c[i] + t[l] * a[l * lda + i] for l = 0 .. Count-1 in turn: the reference's inner loop of the forms
// without a transposed A, for Count consecutive l at once (c stays in registers between them).
template <int Count>
[[gnu::target_clones("avx2", "default")]] void add_scaled(float* c, const float* a, std::size_t lda,
                                                          const float* t, int m) {
  for (int i = 0; i < m; ++i) {
    float sum = c[i];
    for (int l = 0; l < Count; ++l) sum = sum + t[l] * a[static_cast<std::size_t>(l) * lda + i];
    c[i] = sum;
  }
}

// sums[q] = sum over l of at[l * stride + q] * b[l], each sum from 0 in increasing l: the reference's dot
// product of the forms with a transposed A, for `Lanes` consecutive elements of a column of C at once.
template <int Lanes>
[[gnu::target_clones("avx2", "default")]] void dot_lanes(const float* at, std::size_t stride, const float* b,
                                                         int k, float* sums) {
  float acc[Lanes] = {};
  for (int l = 0; l < k; ++l) {
    const float* row = at + static_cast<std::size_t>(l) * stride;
    const float bl = b[l];
    for (int q = 0; q < Lanes; ++q) acc[q] = acc[q] + row[q] * bl;
  }
  std::copy(acc, acc + Lanes, sums);
}

[[noreturn]] void illegal(int parameter) {
  std::fprintf(stderr, " ** On entry to SGEMM  parameter number %2d had an illegal value\n", parameter);
  std::abort();
}

}  // namespace

void reference_sgemm(char transa, char transb, int m, int n, int k, float alpha, const float* a, int lda,
                     const float* b, int ldb, float beta, float* c, int ldc) {
  const bool nota = is(transa, 'N');
  const bool notb = is(transb, 'N');
  const int rows_a = nota ? m : k;
  const int rows_b = notb ? k : n;
  if (!nota && !is(transa, 'C') && !is(transa, 'T')) illegal(1);
  if (!notb && !is(transb, 'C') && !is(transb, 'T')) illegal(2);
  if (m < 0) illegal(3);
  if (n < 0) illegal(4);
  if (k < 0) illegal(5);
  if (lda < std::max(1, rows_a)) illegal(8);
  if (ldb < std::max(1, rows_b)) illegal(10);
  if (ldc < std::max(1, m)) illegal(13);

  const auto at = [](const float* x, int ld, int row, int col) {
    return x[static_cast<std::size_t>(row) + static_cast<std::size_t>(col) * static_cast<std::size_t>(ld)];
  };
  const auto column = [&](int j) { return c + static_cast<std::size_t>(j) * static_cast<std::size_t>(ldc); };
  if (m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f)) return;
  if (alpha == 0.0f) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) column(j)[i] = beta == 0.0f ? 0.0f : beta * column(j)[i];
    return;
  }

  if (nota) {  // C := alpha*A*op(B) + beta*C, a column at a time
    for (int j = 0; j < n; ++j) {
      float* cj = column(j);
      if (beta == 0.0f) {
        std::fill(cj, cj + m, 0.0f);
      } else if (beta != 1.0f) {
        for (int i = 0; i < m; ++i) cj[i] = beta * cj[i];
      }
      const auto stride = static_cast<std::size_t>(lda);
      float t[4];
      int l = 0;
      for (; l + 4 <= k; l += 4) {
        for (int q = 0; q < 4; ++q) t[q] = alpha * (notb ? at(b, ldb, l + q, j) : at(b, ldb, j, l + q));
        add_scaled<4>(cj, a + static_cast<std::size_t>(l) * stride, stride, t, m);
      }
      for (; l < k; ++l) {
        t[0] = alpha * (notb ? at(b, ldb, l, j) : at(b, ldb, j, l));
        add_scaled<1>(cj, a + static_cast<std::size_t>(l) * stride, stride, t, m);
      }
    }
    return;
  }

  // C := alpha*A**T*op(B) + beta*C: element (i, j) is a dot product over l of A's column i and op(B)'s column
  // j. A is copied transposed (row l holds A(l, 0..m)) so that consecutive i are consecutive in memory.
  thread_local std::vector<float> transposed, column_b;
  const auto width = static_cast<std::size_t>(m);
  transposed.resize(width * static_cast<std::size_t>(k));
  column_b.resize(static_cast<std::size_t>(k));
  for (int i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l) transposed[static_cast<std::size_t>(l) * width + i] = at(a, lda, l, i);
  float sums[32];
  for (int j = 0; j < n; ++j) {
    for (int l = 0; l < k; ++l) column_b[l] = notb ? at(b, ldb, l, j) : at(b, ldb, j, l);
    float* cj = column(j);
    const auto store = [&](int i, int count) {
      for (int q = 0; q < count; ++q)
        cj[i + q] = beta == 0.0f ? alpha * sums[q] : alpha * sums[q] + beta * cj[i + q];
    };
    int i = 0;
    for (; i + 32 <= m; i += 32) {
      dot_lanes<32>(transposed.data() + i, width, column_b.data(), k, sums);
      store(i, 32);
    }
    for (; i + 8 <= m; i += 8) {
      dot_lanes<8>(transposed.data() + i, width, column_b.data(), k, sums);
      store(i, 8);
    }
    for (; i < m; ++i) {
      dot_lanes<1>(transposed.data() + i, width, column_b.data(), k, sums);
      store(i, 1);
    }
  }
}

}  // namespace sgdsim::learning

// The BLAS's Fortran entry point, exported from the plugin for libtorch to bind to (reference_gemm.hpp).
extern "C" [[gnu::visibility("default")]] void sgemm_(const char* transa, const char* transb, const int* m,
                                                      const int* n, const int* k, const float* alpha,
                                                      const float* a, const int* lda, const float* b,
                                                      const int* ldb, const float* beta, float* c,
                                                      const int* ldc) {
  sgdsim::learning::reference_sgemm(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}
