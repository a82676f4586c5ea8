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

// 1.0f, in a variable the compiler cannot see the value of from another file: simd_impl.inc's opaque().
extern float kOpaqueOne;

}  // namespace attnseq::simd
