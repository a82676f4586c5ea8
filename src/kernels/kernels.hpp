// The numeric primitives every layer is built from, in two implementations with one signature:
// `attnseq::ref` (plain loops, the specification) and `attnseq::simd` (xsimd, the fast path).
// `attnseq::kernels` routes to one of them at compile time (ATTNSEQ_REFERENCE_KERNELS selects ref);
// `simd` itself forwards to the instruction set chosen at run time (kernels/dispatch.hpp).
// Matrices are row-major. Legend: M rows, N columns, B batch rows, n vector length.
#pragma once
#include <cstddef>
#include <cstdint>

#define ATTNSEQ_KERNEL_LIST(X)                                                                                      \
  /* <a, b> */                                                                                                      \
  X(float, dot, (const float* a, const float* b, std::size_t n), (a, b, n))                                         \
  /* y += alpha * x */                                                                                              \
  X(void, axpy, (float alpha, const float* x, float* y, std::size_t n), (alpha, x, y, n))                           \
  /* y = W x (+ y if accumulate). W (M, N), x (N), y (M) */                                                         \
  X(void, gemv, (const float* W, const float* x, float* y, std::size_t M, std::size_t N, bool accumulate),          \
    (W, x, y, M, N, accumulate))                                                                                    \
  /* y += W^T x. W (M, N), x (M), y (N) */                                                                          \
  X(void, gemv_t, (const float* W, const float* x, float* y, std::size_t M, std::size_t N), (W, x, y, M, N))        \
  /* C = X W^T (+ C). X (B, N) with row stride ldx, W (M, N), C (B, M) with row stride ldc */                       \
  X(void, gemm_nt,                                                                                                  \
    (const float* X, std::size_t ldx, const float* W, float* C, std::size_t ldc, std::size_t B, std::size_t M,      \
     std::size_t N, bool accumulate),                                                                               \
    (X, ldx, W, C, ldc, B, M, N, accumulate))                                                                       \
  /* C (M, N) += A (M, K) Bm (K, N). A(i, k) = A[i rsa + k csa], so A may be read transposed;                       \
     Bm and C row-major with strides ldb, ldc. The backward products of a linear layer:                             \
     dX += dY W (A = dY) and dW += dY^T X (A = dY read transposed, Bm = X). */                                      \
  X(void, gemm_acc,                                                                                                 \
    (const float* A, std::size_t rsa, std::size_t csa, const float* Bm, std::size_t ldb, float* C, std::size_t ldc, \
     std::size_t M, std::size_t N, std::size_t K),                                                                  \
    (A, rsa, csa, Bm, ldb, C, ldc, M, N, K))                                                                        \
  /* y += x */                                                                                                      \
  X(void, add, (const float* x, float* y, std::size_t n), (x, y, n))                                                \
  /* y = a * b (elementwise) */                                                                                     \
  X(void, mul, (const float* a, const float* b, float* y, std::size_t n), (a, b, y, n))                             \
  /* x = sigmoid(x) */                                                                                              \
  X(void, sigmoid, (float* x, std::size_t n), (x, n))                                                               \
  /* x = tanh(x) */                                                                                                 \
  X(void, tanh, (float* x, std::size_t n), (x, n))                                                                  \
  /* x[0..valid) = softmax(x[0..valid)), x[valid..n) = 0 */                                                         \
  X(void, masked_softmax, (float* x, std::size_t n, std::size_t valid), (x, n, valid))                              \
  /* max over x[0..n) */                                                                                            \
  X(float, max, (const float* x, std::size_t n), (x, n))                                                            \
  /* log sum exp over x[0..n) */                                                                                    \
  X(float, logsumexp, (const float* x, std::size_t n), (x, n))                                                      \
  /* floats needed to hold an (M, N) matrix in the packed layout */                                                 \
  X(std::size_t, packed_size, (std::size_t M, std::size_t N), (M, N))                                               \
  /* P = W (M, N) repacked: blocks of 4 rows, columns interleaved in chunks of pack_width(), so                     \
     the product reads one sequential stream. Padding is zero. */                                                   \
  X(void, pack, (const float* W, std::size_t M, std::size_t N, float* P), (W, M, N, P))                             \
  /* C = X W^T (+ bias) with W given packed. X (B, N) stride ldx, C (B, M) stride ldc */                            \
  X(void, gemm_packed,                                                                                              \
    (const float* X, std::size_t ldx, const float* P, const float* bias, float* C, std::size_t ldc, std::size_t B,  \
     std::size_t M, std::size_t N),                                                                                 \
    (X, ldx, P, bias, C, ldc, B, M, N))                                                                             \
  /* C += X W^T with W given packed: each sum starts from C's element and adds n = 0, 1, ... in order,              \
     as gemm_acc does (training's dX += dY W, given W^T packed). X (B, N) stride ldx, C (B, M) stride ldc */        \
  X(void, gemm_packed_acc,                                                                                          \
    (const float* X, std::size_t ldx, const float* P, float* C, std::size_t ldc, std::size_t B, std::size_t M,      \
     std::size_t N),                                                                                                \
    (X, ldx, P, C, ldc, B, M, N))                                                                                   \
  /* index of the largest element (first on ties); n >= 1 */                                                        \
  X(std::size_t, argmax, (const float* x, std::size_t n), (x, n))                                                   \
  /* k largest elements, descending (ties: lower index first); k <= n */                                            \
  X(void, topk, (const float* x, std::size_t n, std::size_t k, std::int32_t* idx, float* val), (x, n, k, idx, val))

// ---- int8 weights (Model::quantize; the file format is in docs/checkpoint-format.md) -------------
// A matrix W (M, N) is held as int8 q (M, N) in [-127, 127] with one f32 scale per row (output):
// W[m][n] ~ scale[m] q[m][n], scale[m] = max_n |W[m][n]| / 127 (0 for a row of zeros). A product
// quantises each activation row x (N) on the fly to int16 with its own scale (quantize_i16), sums
// q_w q_x in int32 (exact: q8_act_max(N) keeps N 127 qmax below 2^31, so any order gives the same
// sum) and scales back: y[m] = float(sum) * (xscale * scale[m]), rounded, then + bias[m].
// Activations are int16, not int8: WebAssembly SIMD's only integer dot product multiplies int16
// (i32x4.dot_i16x8_s), so int8 activations would be widened anyway and gain nothing there; on x86,
// int8 x int8 through maddubs saturates (which exactness against the reference rules out); and
// int16 makes the activations' rounding negligible (1/32767 of a row's range, not 1/127), leaving
// the weights' as the one error, for the same weight bytes.
#define ATTNSEQ_Q8_KERNEL_LIST(X)                                                                              \
  /* q (n) = x quantised to int16 in [-qmax, qmax]: q[i] = round-half-even(x[i] * (qmax / a)),                 \
     a = max |x|; returns the scale a / qmax. Returns 0 with q = 0 when a < kQ8MinAbs (the row                 \
     is zero to float precision), and NaN with q = 0 when x holds inf or NaN. */                               \
  X(float, quantize_i16, (const float* x, std::size_t n, std::int32_t qmax, std::int16_t* q), (x, n, qmax, q)) \
  /* C (B, M) = X W^T (+ bias) with W int8 in the q8 packed layout (q8_pack) and wscale (M) its                \
     row scales; X given quantised: Xq (B, ldq) from quantize_i16 with xscale (B). A row of Xq is              \
     read up to N rounded up to even (that element multiplies zero padding). |Xq| <= q8_act_max(N).            \
     C[b][m] = float(sum_n Xq[b][n] q[m][n]) * (xscale[b] * wscale[m]) (+ bias[m]): the product                \
     is rounded before the bias is added, never fused. */                                                      \
  X(void, gemm_q8,                                                                                             \
    (const std::int16_t* Xq, std::size_t ldq, const float* xscale, const std::int8_t* P, const float* wscale,  \
     const float* bias, float* C, std::size_t ldc, std::size_t B, std::size_t M, std::size_t N),               \
    (Xq, ldq, xscale, P, wscale, bias, C, ldc, B, M, N))

namespace attnseq {

// The int8 layout and the choices that are the same on every arch (reference.cpp).
constexpr std::size_t kQ8Panel = 32;  // rows per packed panel: 2 AVX-512, 4 AVX2, 8 SSE2/wasm vectors
// Activation rows that share one read of a weight panel from memory in gemm_q8 (panels outside,
// blocks of rows inside): their inputs stay in cache while the panel is reused. gemm_packed takes
// kPackedRowBlock (simd_impl.inc) and keeps this many for its ragged last panel's scratch rows.
constexpr std::size_t kRowBlock = 16;
constexpr float kQ8MinAbs = 1e-30f;  // activation rows with max |x| below this quantise to zero
// The largest activation magnitude for rows of N columns: min(32767, (2^31 - 1) / (127 N)).
std::int32_t q8_act_max(std::size_t N);
// Bytes of an (M, N) int8 matrix in the packed layout: panels of kQ8Panel rows; within a panel,
// for each column pair (n, n + 1), the panel's rows in order, each as its two int8. Zero padded
// (rows to a whole panel, N to even).
std::size_t q8_packed_size(std::size_t M, std::size_t N);
void q8_pack(const std::int8_t* Q, std::size_t M, std::size_t N, std::int8_t* P);
// Per-row quantisation of a finite W (M, N) (the caller checks): scale[m] = max |W[m]| / 127 and
// Q[m][n] = round-half-even(W[m][n] / scale[m]), clamped to [-127, 127]; a row whose scale is 0
// (all zeros, or under float's range) gets Q = 0, scale 0.
void q8_quantize_rows(const float* W, std::size_t M, std::size_t N, std::int8_t* Q, float* scale);

// ---- int8 with 7-bit activations: the layout of relaxed SIMD's 8-bit dot product -----------------
// WebAssembly's i32x4.relaxed_dot_i8x16_i7x16_add_s sums four int8 x int8 products per lane, and its
// answer is the same on every engine only when the second operand's top bit is clear ("7-bit"). So
// the product that uses it (src/kernels/relaxed/products.cpp) takes activations quantised as for
// gemm_q8 with qmax = kQ8RActMax (63), stored offset by kQ8ROffset as uint8 in [1, 127]:
// sum_n q[m][n] (u[n] - 64) = sum_n q[m][n] u[n] - corr[m], corr[m] = 64 sum_n q[m][n], which the
// layout carries. Every sum is exact in int32 (N <= kQ8RMaxCols), so C[b][m] =
// float(sum) * (xscale[b] * wscale[m]) (+ bias[m]) has the bits gemm_q8 gives the same activations
// quantised with qmax 63, whatever the order of the sums: in a batch or alone, on any engine.
constexpr std::int32_t kQ8RActMax = 63;
constexpr std::int32_t kQ8ROffset = 64;
constexpr std::size_t kQ8RMaxCols = std::size_t(INT32_MAX) / (127u * 127u);
// Bytes of an (M, N) int8 matrix in the 7-bit product's layout: panels of kQ8Panel rows; within a
// panel, for each column quad (4c .. 4c + 3), the panel's rows in order, each as its four int8. Zero
// padded (rows to a whole panel, N to a multiple of 4). corr (M) gets each row's 64 sum_n Q[m][n].
std::size_t q8r_packed_size(std::size_t M, std::size_t N);
void q8r_pack(const std::int8_t* Q, std::size_t M, std::size_t N, std::int8_t* P, std::int32_t* corr);
// u[i] = q[i] + 64 for i < n (|q[i]| <= 63), and 64 up to n rounded up to a multiple of 4.
void q8r_offset(const std::int16_t* q, std::size_t n, std::uint8_t* u);

#define ATTNSEQ_DECLARE(ret, name, params, args) ret name params;
namespace ref {
ATTNSEQ_KERNEL_LIST(ATTNSEQ_DECLARE)
ATTNSEQ_Q8_KERNEL_LIST(ATTNSEQ_DECLARE)
// The packed layout for an explicit panel height R (4 x the vector width of the arch that reads it).
std::size_t packed_size_panels(std::size_t M, std::size_t N, std::size_t R);
void pack_panels(const float* W, std::size_t M, std::size_t N, float* P, std::size_t R);
// P = W^T (N, M) in that layout, read from W (M, N) itself: pack_panels of the transpose, without one.
void pack_panels_transposed(const float* W, std::size_t M, std::size_t N, float* P, std::size_t R);
// C (B, M) = X W^T (+ bias) with W in the 7-bit product's layout (q8r_pack, its corr and row scales
// wscale) and X given as q8r_offset's uint8 rows Xu (B, ldu) with scales xscale (B).
void gemm_q8r(const std::uint8_t* Xu, std::size_t ldu, const float* xscale, const std::int8_t* P,
              const std::int32_t* corr, const float* wscale, const float* bias, float* C, std::size_t ldc,
              std::size_t B, std::size_t M, std::size_t N);
}  // namespace ref
using GemmQ8RFn = decltype(&ref::gemm_q8r);
namespace simd {
ATTNSEQ_KERNEL_LIST(ATTNSEQ_DECLARE)
ATTNSEQ_Q8_KERNEL_LIST(ATTNSEQ_DECLARE)
// Name of the int8 kernels in use ("sse2", "avx2", "avx512vnni", "wasm", "scalar"): they follow the
// float arch (kernels/dispatch.hpp), with AVX-512 VNNI where the CPU has it.
const char* q8_arch_name();
// Name of the instruction set in use (e.g. "sse2", "fma3+avx2", "avx512f", "wasm", "emulated").
const char* arch_name();
// Floats per vector of that arch: the column chunk of the packed layout (both namespaces use it).
std::size_t pack_width();
}  // namespace simd
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
ATTNSEQ_Q8_KERNEL_LIST(ATTNSEQ_FORWARD)
#undef ATTNSEQ_FORWARD
// The 7-bit int8 product (kQ8RActMax) new int8 packs use, or null: gemm_q8's layout, as natively.
// WebAssembly sets it where the relaxed-SIMD module passed its checks (simd::use_relaxed_products);
// a test may set ref::gemm_q8r. A model keeps the layout it was packed in: a q8r pack whose product
// is unset again is multiplied by ref::gemm_q8r, which gives the same bits.
GemmQ8RFn q8r_product();
void set_q8r_product(GemmQ8RFn f);
// P = W^T (N, M) packed, as pack() packs it (packed_size(N, M) floats), from W (M, N) directly.
inline void pack_transposed(const float* W, std::size_t M, std::size_t N, float* P) {
  ref::pack_panels_transposed(W, M, N, P, 4 * simd::pack_width());
}
}  // namespace kernels

}  // namespace attnseq
