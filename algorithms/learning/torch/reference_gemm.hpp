// The BLAS single-precision matrix product with the reference implementation's arithmetic, faster.
//
// libtorch computes linear layers (and their backward pass) with the BLAS routine sgemm_. Debian's libtorch
// is linked against the reference BLAS (netlib), whose sgemm_ is plain scalar code: the fully connected
// layers were about 40 % of a LeNet-5 run (docs/performance.md). The plugin defines sgemm_ itself
// (reference_gemm.cpp) and libtorch binds to it: each element is computed by the reference algorithm's own
// operations in its own order (products added one at a time in increasing l, a multiply then an add, never
// fused), several independent elements at once, so the bits are the reference BLAS's whatever BLAS the
// machine has.
#pragma once

namespace sgdsim::learning {

// C := alpha * op(A) * op(B) + beta * C in column-major storage, as the BLAS's SGEMM: op(X) is X for 'N' or
// 'n', its transpose for 'T', 't', 'C' or 'c'. Arguments as the reference's; an illegal one aborts, naming
// it, as the reference's XERBLA stops the program.
void reference_sgemm(char transa, char transb, int m, int n, int k, float alpha, const float* a, int lda,
                     const float* b, int ldb, float beta, float* c, int ldc);

}  // namespace sgdsim::learning
