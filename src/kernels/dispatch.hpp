// Run-time choice of the instruction set. Every SIMD build of the kernels (src/kernels/simd_impl.inc)
// yields one KernelTable; natively on x86-64 there are three (SSE2, AVX2+FMA, AVX-512), chosen once at
// start-up: the best this CPU runs, or a lower one named by the environment variable ATTNSEQ_ARCH.
// WebAssembly and -march=native builds have exactly one table.
#pragma once
#include <string>
#include <vector>

#include "kernels/kernels.hpp"

namespace attnseq::simd {

struct KernelTable {
  const char* name;        // xsimd's name of the arch: "sse2", "fma3+avx2", "avx512f", "wasm", "emulated"
  std::size_t pack_width;  // floats per vector: the column chunk of the packed layout
#define ATTNSEQ_TABLE_FIELD(ret, fn, params, args) ret(*fn) params;
  ATTNSEQ_KERNEL_LIST(ATTNSEQ_TABLE_FIELD)
#undef ATTNSEQ_TABLE_FIELD
};

// Every table built into this binary that this CPU can run, best first.
const std::vector<const KernelTable*>& runnable_tables();
// The table in use (chosen on first use; see the file header).
const KernelTable& active();
// Short names ATTNSEQ_ARCH accepts for a table ("sse2", "avx2", "avx512"), or its full name.
bool arch_matches(const KernelTable& t, const std::string& wanted);

}  // namespace attnseq::simd
