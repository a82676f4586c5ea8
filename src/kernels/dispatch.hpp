// Run-time choice of the instruction set. Every SIMD build of the kernels (src/kernels/simd_impl.inc)
// yields one KernelTable; natively on x86-64 there are three (SSE2, AVX2+FMA, AVX-512), chosen once at
// start-up: the best this CPU runs, or a lower one named by the environment variable ATTNSEQ_ARCH.
// WebAssembly and -march=native builds have exactly one table.
#pragma once
#include <string>
#include <vector>

#include "kernels/isa.hpp"
#include "kernels/kernels.hpp"

namespace attnseq::simd {

struct KernelTable {
  const char* name;        // xsimd's name of the arch: "sse2", "fma3+avx2", "avx512f", "wasm", "emulated"
  Isa isa;                 // the set it was built for (Scalar for xsimd's emulated arch)
  std::size_t pack_width;  // floats per vector: the column chunk of the packed layout
#define ATTNSEQ_TABLE_FIELD(ret, fn, params, args) ret(*fn) params;
  ATTNSEQ_KERNEL_LIST(ATTNSEQ_TABLE_FIELD)
#undef ATTNSEQ_TABLE_FIELD
};

// The int8 kernels of one instruction set (src/kernels/q8_impl.inc): "sse2", "avx2", "avx512vnni"
// (AVX-512 BW + VNNI), "wasm", "scalar".
struct Q8Table {
  const char* name;
  Isa isa;
#define ATTNSEQ_TABLE_FIELD(ret, fn, params, args) ret(*fn) params;
  ATTNSEQ_Q8_KERNEL_LIST(ATTNSEQ_TABLE_FIELD)
#undef ATTNSEQ_TABLE_FIELD
};

// Every table built into this binary that this CPU can run, best first.
const std::vector<const KernelTable*>& runnable_tables();
// The table in use (chosen on first use; see the file header).
const KernelTable& active();
// Every int8 table built into this binary that this CPU can run, best first (VNNI only where the CPU
// reports AVX-512 BW and VNNI).
const std::vector<const Q8Table*>& runnable_q8_tables();
// The int8 table in use: the one of the float table's level (active()), AVX-512 VNNI for avx512f when
// the CPU has it, else AVX2 there.
const Q8Table& active_q8();
// Short names ATTNSEQ_ARCH accepts for a table ("sse2", "avx2", "avx512"), or its full name.
bool arch_matches(const KernelTable& t, const std::string& wanted);

#if defined(__EMSCRIPTEN__)
// The relaxed-SIMD products (src/kernels/relaxed/products.cpp, a module of its own that the package
// loads beside the engine where the engine runs relaxed SIMD: wasm/relaxed.js), given as pointers
// into the engine's function table. They are first run against this module's own products on fixed
// inputs of every shape class (one row and several, ragged panels, with and without a bias, and
// accumulating): each output within relaxed_bound() of the plain one, and each row of a batch the
// same bits as alone. Only then do they replace the plain ones. Returns "" when they do, else why not
// (and nothing changes).
using GemmPackedFn = decltype(KernelTable::gemm_packed);
using GemmPackedAccFn = decltype(KernelTable::gemm_packed_acc);
// The int8 product (gemm_q8r, the 7-bit layout of kernels.hpp) must give ref::gemm_q8r's bits on
// every shape class and on the extremes of its operands; then it becomes kernels::q8r_product(), and
// the int8 models loaded from then on are packed for it.
// gemm_acc's tiles (the backward products of training): C (rows, 4 nv) += A (rows, K) Bm (K, 4 nv),
// A(r, k) = A[r rsa + k csa], for rows 1 to 4 and nv 1 or 2, each element adding its K terms in order
// from its value in C. The engine's gemm_acc keeps its blocking and its copies into panels and calls
// this for each tile; checked as gemm_acc, both of its paths, within relaxed_bound of the plain one.
using AccTileFn = void (*)(std::size_t rows, std::size_t nv, const float* A, std::size_t rsa, std::size_t csa,
                           const float* Bm, std::size_t ldb, float* C, std::size_t ldc, std::size_t K);
// The tile function in use, or null (the plain tiles).
extern AccTileFn relaxed_acc_tile;
std::string use_relaxed_products(GemmPackedFn gemm_packed, GemmPackedAccFn gemm_packed_acc, GemmQ8RFn gemm_q8r,
                                 AccTileFn gemm_acc_tile);
// Back to this module's own products (int8 models packed for the relaxed one keep that layout, and
// ref::gemm_q8r's bits).
void use_plain_products();
// Whether the relaxed products are in use.
bool relaxed_products();
// How far a relaxed product's output may be from the plain one: relaxed_madd may round once (fused)
// where the plain path rounds twice, so each of the N terms may differ by half an ulp of itself, and
// every partial sum by half an ulp of itself: N + 1 ulps of the largest partial sum in magnitude,
// bounded by the sum of |terms| (with the start).
float relaxed_bound(float sum_of_magnitudes, std::size_t N);
#endif

// 1.0f, in a variable the compiler cannot see the value of from another file: simd_impl.inc's opaque().
extern float kOpaqueOne;

}  // namespace attnseq::simd
