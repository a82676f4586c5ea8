// The numeric primitives every layer is built from, in two implementations with one signature:
// `attnseq::ref` (plain loops, the specification) and `attnseq::simd` (xsimd, the fast path).
// `attnseq::kernels` routes to one of them at compile time (ATTNSEQ_REFERENCE_KERNELS selects ref);
// `simd` itself forwards to the instruction set chosen at run time (kernels/dispatch.hpp).
// Matrices are row-major. Legend: M rows, N columns, B batch rows, n vector length.
#pragma once
#include <cstddef>
#include <cstdint>

#define ATTNSEQ_KERNEL_LIST(X)                                                                     \
  /* <a, b> */                                                                                     \
  X(float, dot, (const float* a, const float* b, std::size_t n), (a, b, n))                        \
  /* y += alpha * x */                                                                             \
  X(void, axpy, (float alpha, const float* x, float* y, std::size_t n), (alpha, x, y, n))          \
  /* y = W x (+ y if accumulate). W (M, N), x (N), y (M) */                                        \
  X(void, gemv, (const float* W, const float* x, float* y, std::size_t M, std::size_t N,           \
                 bool accumulate), (W, x, y, M, N, accumulate))                                    \
  /* y += W^T x. W (M, N), x (M), y (N) */                                                         \
  X(void, gemv_t, (const float* W, const float* x, float* y, std::size_t M, std::size_t N),        \
    (W, x, y, M, N))                                                                               \
  /* C = X W^T (+ C). X (B, N) with row stride ldx, W (M, N), C (B, M) with row stride ldc */      \
  X(void, gemm_nt, (const float* X, std::size_t ldx, const float* W, float* C, std::size_t ldc,    \
                    std::size_t B, std::size_t M, std::size_t N, bool accumulate),                 \
    (X, ldx, W, C, ldc, B, M, N, accumulate))                                                      \
  /* C (M, N) += A (M, K) Bm (K, N). A(i, k) = A[i rsa + k csa], so A may be read transposed;    \
     Bm and C row-major with strides ldb, ldc. The backward products of a linear layer:           \
     dX += dY W (A = dY) and dW += dY^T X (A = dY read transposed, Bm = X). */                     \
  X(void, gemm_acc, (const float* A, std::size_t rsa, std::size_t csa, const float* Bm,            \
                     std::size_t ldb, float* C, std::size_t ldc, std::size_t M, std::size_t N,     \
                     std::size_t K), (A, rsa, csa, Bm, ldb, C, ldc, M, N, K))                      \
  /* y += x */                                                                                     \
  X(void, add, (const float* x, float* y, std::size_t n), (x, y, n))                               \
  /* y = a * b (elementwise) */                                                                    \
  X(void, mul, (const float* a, const float* b, float* y, std::size_t n), (a, b, y, n))            \
  /* x = sigmoid(x) */                                                                             \
  X(void, sigmoid, (float* x, std::size_t n), (x, n))                                              \
  /* x = tanh(x) */                                                                                \
  X(void, tanh, (float* x, std::size_t n), (x, n))                                                 \
  /* x[0..valid) = softmax(x[0..valid)), x[valid..n) = 0 */                                        \
  X(void, masked_softmax, (float* x, std::size_t n, std::size_t valid), (x, n, valid))             \
  /* max over x[0..n) */                                                                           \
  X(float, max, (const float* x, std::size_t n), (x, n))                                           \
  /* log sum exp over x[0..n) */                                                                   \
  X(float, logsumexp, (const float* x, std::size_t n), (x, n))                                     \
  /* floats needed to hold an (M, N) matrix in the packed layout */                               \
  X(std::size_t, packed_size, (std::size_t M, std::size_t N), (M, N))                             \
  /* P = W (M, N) repacked: blocks of 4 rows, columns interleaved in chunks of pack_width(), so   \
     the product reads one sequential stream. Padding is zero. */                                \
  X(void, pack, (const float* W, std::size_t M, std::size_t N, float* P), (W, M, N, P))           \
  /* C = X W^T (+ bias) with W given packed. X (B, N) stride ldx, C (B, M) stride ldc */          \
  X(void, gemm_packed, (const float* X, std::size_t ldx, const float* P, const float* bias,       \
                        float* C, std::size_t ldc, std::size_t B, std::size_t M, std::size_t N),  \
    (X, ldx, P, bias, C, ldc, B, M, N))                                                            \
  /* index of the largest element (first on ties); n >= 1 */                                       \
  X(std::size_t, argmax, (const float* x, std::size_t n), (x, n))                                  \
  /* k largest elements, descending (ties: lower index first); k <= n */                           \
  X(void, topk, (const float* x, std::size_t n, std::size_t k, std::int32_t* idx, float* val),     \
    (x, n, k, idx, val))

namespace attnseq {

#define ATTNSEQ_DECLARE(ret, name, params, args) ret name params;
namespace ref {
ATTNSEQ_KERNEL_LIST(ATTNSEQ_DECLARE)
// The packed layout for an explicit panel height R (4 x the vector width of the arch that reads it).
std::size_t packed_size_panels(std::size_t M, std::size_t N, std::size_t R);
void pack_panels(const float* W, std::size_t M, std::size_t N, float* P, std::size_t R);
}
namespace simd {
ATTNSEQ_KERNEL_LIST(ATTNSEQ_DECLARE)
// Name of the instruction set in use (e.g. "sse2", "fma3+avx2", "avx512f", "wasm", "emulated").
const char* arch_name();
// Floats per vector of that arch: the column chunk of the packed layout (both namespaces use it).
std::size_t pack_width();
}
#undef ATTNSEQ_DECLARE

namespace kernels {
#if defined(ATTNSEQ_REFERENCE_KERNELS)
namespace impl = ::attnseq::ref;
constexpr bool uses_reference = true;
#else
namespace impl = ::attnseq::simd;
constexpr bool uses_reference = false;
#endif
#define ATTNSEQ_FORWARD(ret, name, params, args) \
  inline ret name params { return impl::name args; }
ATTNSEQ_KERNEL_LIST(ATTNSEQ_FORWARD)
#undef ATTNSEQ_FORWARD
}  // namespace kernels

}  // namespace attnseq
