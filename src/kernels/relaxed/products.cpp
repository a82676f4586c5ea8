// The relaxed-SIMD products: a WebAssembly module of its own (not part of the engine's emcc link,
// whose binaryen refuses relaxed opcodes: docs/toolchain.md), built by clang-19 and wasm-ld-19
// (wasm/CMakeLists.txt), that imports the engine's memory and exports functions with the signatures of
// the engine's kernels. wasm/relaxed.js loads it, puts its functions into the engine's function table,
// and the engine checks them against its own before it uses them (src/kernels/dispatch.cpp).
//
// Freestanding: no library, no data, no stack. The module shares the engine's memory but not its
// stack or allocator, so every function is a leaf that touches only the arrays it is given; the
// build checks that the module has no data segment and never moves a stack pointer.
//
// gemm_packed / gemm_packed_acc: C = X W^T (+ bias), or C += X W^T, with W packed in panels of
// 16 rows stored column by column (kernels.hpp, `pack`; the engine's wasm pack_width is 4). Each
// output starts from its bias (or its value in C, or 0) and adds column n = 0, 1, ... in order with
// f32x4.relaxed_madd, so a row's result does not depend on the other rows of the call: a source in a
// batch gets the bits it gets alone, on this path. relaxed_madd may round once (fused) or twice; the
// engine's check bounds the difference from its plain product.
//
// gemm_q8r: the int8 product with i32x4.relaxed_dot_i8x16_i7x16_add_s, in the 7-bit layout of
// kernels.hpp (q8r_pack: panels of 32 rows, each column quad's 32 rows of four int8 in order): the
// weights are the signed operand, the activations, offset into [1, 127], the 7-bit one, so every
// engine gives the same integers. C = float(sum - corr) * (xscale * wscale) (+ bias), the product
// rounded before the bias is added, as ref::gemm_q8r: its bits, in any grouping of rows.
//
// gemm_acc_tile: one tile of the engine's gemm_acc (the backward products of training, dX += dY W and
// dW += dY^T X): C (rows, 4 nv) += A (rows, K) Bm (K, 4 nv), rows 1 to 4 and nv 1 or 2 (the tiles the
// engine's blocking makes; it keeps its own copies into panels), each element adding its K terms in
// the order k = 0, 1, ... from its value in C, as the plain tile does, with f32x4.relaxed_madd.
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

namespace {

constexpr size_t kR = 16;  // rows per panel: 4 vectors of 4

// 4 floats of a row from position m: those at or past M (the ragged last panel) read as 0.
inline v128_t load4(const float* row, size_t m, size_t M) {
  if (m + 4 <= M) return wasm_v128_load(row + m);
  return wasm_f32x4_make(m < M ? row[m] : 0.f, m + 1 < M ? row[m + 1] : 0.f, m + 2 < M ? row[m + 2] : 0.f,
                         m + 3 < M ? row[m + 3] : 0.f);
}
// Stores the lanes of v that fall before M.
inline void store4(float* row, size_t m, size_t M, v128_t v) {
  if (m + 4 <= M) {
    wasm_v128_store(row + m, v);
    return;
  }
  if (m < M) row[m] = wasm_f32x4_extract_lane(v, 0);
  if (m + 1 < M) row[m + 1] = wasm_f32x4_extract_lane(v, 1);
  if (m + 2 < M) row[m + 2] = wasm_f32x4_extract_lane(v, 2);
}
// Where row b's sums of panel rows [m0, m0 + 16) start: its bias, its value in C, or 0.
inline v128_t start(const float* init, size_t m, size_t M) { return init ? load4(init, m, M) : wasm_f32x4_splat(0.f); }

// Sixteen outputs of one row, panel rows [m0, m0 + 16): their accumulators.
struct Acc16 {
  v128_t a0, a1, a2, a3;
};
inline Acc16 start16(const float* init, size_t m0, size_t M) {
  return {start(init, m0, M), start(init, m0 + 4, M), start(init, m0 + 8, M), start(init, m0 + 12, M)};
}
inline void store16(float* c, size_t m0, size_t M, const Acc16& a) {
  store4(c, m0, M, a.a0), store4(c, m0 + 4, M, a.a1), store4(c, m0 + 8, M, a.a2), store4(c, m0 + 12, M, a.a3);
}
inline void madd16(Acc16& a, const float* p, v128_t x) {
  a.a0 = wasm_f32x4_relaxed_madd(wasm_v128_load(p), x, a.a0);
  a.a1 = wasm_f32x4_relaxed_madd(wasm_v128_load(p + 4), x, a.a1);
  a.a2 = wasm_f32x4_relaxed_madd(wasm_v128_load(p + 8), x, a.a2);
  a.a3 = wasm_f32x4_relaxed_madd(wasm_v128_load(p + 12), x, a.a3);
}

// Two rows of X against one panel: 8 accumulators, the panel's 4 vectors read once for both rows,
// 2 broadcasts (x86-64 has 16 vector registers, which V8 maps wasm's vectors to).
inline void two_rows(const float* pk, const float* x0, const float* x1, size_t N, const float* i0, const float* i1,
                     float* c0, float* c1, size_t m0, size_t M) {
  Acc16 a = start16(i0, m0, M), d = start16(i1, m0, M);
  for (size_t n = 0; n < N; ++n, pk += kR) {
    const v128_t p0 = wasm_v128_load(pk), p1 = wasm_v128_load(pk + 4), p2 = wasm_v128_load(pk + 8),
                 p3 = wasm_v128_load(pk + 12);
    const v128_t u = wasm_f32x4_splat(x0[n]), w = wasm_f32x4_splat(x1[n]);
    a.a0 = wasm_f32x4_relaxed_madd(p0, u, a.a0);
    a.a1 = wasm_f32x4_relaxed_madd(p1, u, a.a1);
    a.a2 = wasm_f32x4_relaxed_madd(p2, u, a.a2);
    a.a3 = wasm_f32x4_relaxed_madd(p3, u, a.a3);
    d.a0 = wasm_f32x4_relaxed_madd(p0, w, d.a0);
    d.a1 = wasm_f32x4_relaxed_madd(p1, w, d.a1);
    d.a2 = wasm_f32x4_relaxed_madd(p2, w, d.a2);
    d.a3 = wasm_f32x4_relaxed_madd(p3, w, d.a3);
  }
  store16(c0, m0, M, a);
  store16(c1, m0, M, d);
}

// One row against two panels (k and k + 1): 8 independent accumulators and two weight streams in
// flight, where one panel alone would leave each fused multiply-add waiting on the one before it.
inline void two_panels(const float* pk, const float* x, size_t N, const float* init, float* c, size_t m0, size_t M) {
  const float* pk2 = pk + kR * N;
  Acc16 a = start16(init, m0, M), d = start16(init, m0 + kR, M);
  for (size_t n = 0; n < N; ++n, pk += kR, pk2 += kR) {
    const v128_t u = wasm_f32x4_splat(x[n]);
    madd16(a, pk, u);
    madd16(d, pk2, u);
  }
  store16(c, m0, M, a);
  store16(c, m0 + kR, M, d);
}

inline void one_panel(const float* pk, const float* x, size_t N, const float* init, float* c, size_t m0, size_t M) {
  Acc16 a = start16(init, m0, M);
  for (size_t n = 0; n < N; ++n, pk += kR) madd16(a, pk, wasm_f32x4_splat(x[n]));
  store16(c, m0, M, a);
}

// Every output adds its N terms in the order n = 0, 1, ... from its start, whichever of the paths
// above computes it: so a row gets the same bits in a batch (two_rows) as alone (two_panels).
void product(const float* X, size_t ldx, const float* P, const float* bias, float* C, size_t ldc, size_t B, size_t M,
             size_t N, bool acc) {
  const size_t panels = (M + kR - 1) / kR;
  size_t b = 0;
  for (; b + 2 <= B; b += 2) {
    const float *x0 = X + b * ldx, *x1 = x0 + ldx;
    float *c0 = C + b * ldc, *c1 = c0 + ldc;
    for (size_t k = 0; k < panels; ++k)
      two_rows(P + k * kR * N, x0, x1, N, acc ? c0 : bias, acc ? c1 : bias, c0, c1, k * kR, M);
  }
  if (b < B) {
    const float* x = X + b * ldx;
    float* c = C + b * ldc;
    const float* init = acc ? c : bias;
    size_t k = 0;
    for (; k + 2 <= panels; k += 2) two_panels(P + k * kR * N, x, N, init, c, k * kR, M);
    if (k < panels) one_panel(P + k * kR * N, x, N, init, c, k * kR, M);
  }
}

// ---- int8 x 7-bit -------------------------------------------------------------------------------

constexpr size_t kQ8Panel = 32;  // rows per panel (kernels.hpp): 8 vectors of 4 rows

// Four int32 of a per-row array from position m: those at or past M read as 0.
inline v128_t load4i(const int32_t* a, size_t m, size_t M) {
  if (m + 4 <= M) return wasm_v128_load(a + m);
  return wasm_i32x4_make(m < M ? a[m] : 0, m + 1 < M ? a[m + 1] : 0, m + 2 < M ? a[m + 2] : 0, 0);
}

// Outputs m .. m + 3 of one row from their sums: float(s - corr) * (xs * ws) (+ bias), rounded as
// ref::gemm_q8r rounds them (the module is built with -ffp-contract=off: nothing is fused).
inline void finish4(v128_t s, const int32_t* corr, const float* ws, const float* bias, float xs, float* c, size_t m,
                    size_t M) {
  const v128_t f = wasm_f32x4_convert_i32x4(wasm_i32x4_sub(s, load4i(corr, m, M)));
  v128_t y = wasm_f32x4_mul(f, wasm_f32x4_mul(wasm_f32x4_splat(xs), load4(ws, m, M)));
  if (bias) y = wasm_f32x4_add(y, load4(bias, m, M));
  store4(c, m, M, y);
}

// Rows b0 .. b0 + R - 1 against vectors v0 .. v0 + V - 1 of one panel (4 rows of it each): R V
// accumulators, each weight vector read once for the R rows.
template <int R, int V>
inline void q8r_block(const uint8_t* Xu, size_t ldu, const float* xscale, const int8_t* pk, size_t quads,
                      const int32_t* corr, const float* ws, const float* bias, float* C, size_t ldc, size_t b0,
                      size_t m0, size_t M, int v0) {
  v128_t acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = wasm_i32x4_splat(0);
  const uint8_t* x = Xu + b0 * ldu;
  const int8_t* p = pk + 16 * v0;
  for (size_t q = 0; q < quads; ++q, p += 4 * kQ8Panel) {
    v128_t xv[R];
    for (int r = 0; r < R; ++r) xv[r] = wasm_v128_load32_splat(x + r * ldu + 4 * q);
    for (int v = 0; v < V; ++v) {
      const v128_t w = wasm_v128_load(p + 16 * v);
      for (int r = 0; r < R; ++r) acc[r][v] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w, xv[r], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) {
      const size_t m = m0 + 4 * size_t(v0 + v);
      if (m < M) finish4(acc[r][v], corr, ws, bias, xscale[b0 + r], C + (b0 + r) * ldc, m, M);
    }
}

void product_q8r(const uint8_t* Xu, size_t ldu, const float* xscale, const int8_t* P, const int32_t* corr,
                 const float* ws, const float* bias, float* C, size_t ldc, size_t B, size_t M, size_t N) {
  const size_t quads = (N + 3) / 4, panels = (M + kQ8Panel - 1) / kQ8Panel;
  for (size_t k = 0; k < panels; ++k) {
    const int8_t* pk = P + k * kQ8Panel * 4 * quads;
    const size_t m0 = k * kQ8Panel;
    size_t b = 0;
    for (; b + 4 <= B; b += 4)  // four rows share each weight vector: 8 accumulators per pass
      for (int v0 = 0; v0 < 8; v0 += 2)
        q8r_block<4, 2>(Xu, ldu, xscale, pk, quads, corr, ws, bias, C, ldc, b, m0, M, v0);
    for (; b + 2 <= B; b += 2)
      for (int v0 = 0; v0 < 8; v0 += 4)
        q8r_block<2, 4>(Xu, ldu, xscale, pk, quads, corr, ws, bias, C, ldc, b, m0, M, v0);
    if (b < B) q8r_block<1, 8>(Xu, ldu, xscale, pk, quads, corr, ws, bias, C, ldc, b, m0, M, 0);
  }
}

// ---- the backward products' tiles ---------------------------------------------------------------

template <int MR, int NV>
inline void acc_tile(const float* A, size_t rsa, size_t csa, const float* Bm, size_t ldb, float* C, size_t ldc,
                     size_t K) {
  v128_t acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = wasm_v128_load(C + r * ldc + 4 * v);
  for (size_t k = 0; k < K; ++k) {
    const float* b = Bm + k * ldb;
    v128_t bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = wasm_v128_load(b + 4 * v);
    for (int r = 0; r < MR; ++r) {
      const v128_t a = wasm_f32x4_splat(A[r * rsa + k * csa]);
      for (int v = 0; v < NV; ++v) acc[r][v] = wasm_f32x4_relaxed_madd(a, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) wasm_v128_store(C + r * ldc + 4 * v, acc[r][v]);
}

template <int NV>
inline void acc_rows(size_t rows, const float* A, size_t rsa, size_t csa, const float* Bm, size_t ldb, float* C,
                     size_t ldc, size_t K) {
  switch (rows) {
    case 4: acc_tile<4, NV>(A, rsa, csa, Bm, ldb, C, ldc, K); break;
    case 3: acc_tile<3, NV>(A, rsa, csa, Bm, ldb, C, ldc, K); break;
    case 2: acc_tile<2, NV>(A, rsa, csa, Bm, ldb, C, ldc, K); break;
    case 1: acc_tile<1, NV>(A, rsa, csa, Bm, ldb, C, ldc, K); break;
    default: break;
  }
}

}  // namespace

extern "C" {

__attribute__((export_name("gemm_packed"))) void gemm_packed(const float* X, size_t ldx, const float* P,
                                                             const float* bias, float* C, size_t ldc, size_t B,
                                                             size_t M, size_t N) {
  product(X, ldx, P, bias, C, ldc, B, M, N, false);
}

__attribute__((export_name("gemm_packed_acc"))) void gemm_packed_acc(const float* X, size_t ldx, const float* P,
                                                                     float* C, size_t ldc, size_t B, size_t M,
                                                                     size_t N) {
  product(X, ldx, P, nullptr, C, ldc, B, M, N, true);
}

__attribute__((export_name("gemm_q8r"))) void gemm_q8r(const uint8_t* Xu, size_t ldu, const float* xscale,
                                                       const int8_t* P, const int32_t* corr, const float* wscale,
                                                       const float* bias, float* C, size_t ldc, size_t B, size_t M,
                                                       size_t N) {
  product_q8r(Xu, ldu, xscale, P, corr, wscale, bias, C, ldc, B, M, N);
}

__attribute__((export_name("gemm_acc_tile"))) void gemm_acc_tile(size_t rows, size_t nv, const float* A, size_t rsa,
                                                                 size_t csa, const float* Bm, size_t ldb, float* C,
                                                                 size_t ldc, size_t K) {
  if (nv == 2)
    acc_rows<2>(rows, A, rsa, csa, Bm, ldb, C, ldc, K);
  else if (nv == 1)
    acc_rows<1>(rows, A, rsa, csa, Bm, ldb, C, ldc, K);
}

}  // extern "C"
