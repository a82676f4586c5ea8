// The instruction sets attnseq has kernels for, named once. The enum says which set a kernel table
// (float or int8) was built for, and dispatch.cpp picks the int8 table of the float table's level by
// it. The ATTNSEQ_ISA_* numbers are the same values for the preprocessor: the int8 kernels' one body
// (q8_impl.inc) chooses its intrinsics with #if, which an enum cannot drive.
#pragma once

#define ATTNSEQ_ISA_SCALAR 1
#define ATTNSEQ_ISA_SSE2 2
#define ATTNSEQ_ISA_AVX2 3        // float kernels: AVX2 with FMA
#define ATTNSEQ_ISA_AVX512 4      // float kernels: AVX-512 F
#define ATTNSEQ_ISA_AVX512VNNI 5  // int8 kernels: AVX-512 BW with VNNI
#define ATTNSEQ_ISA_WASM 6        // WebAssembly SIMD (simd128)

namespace attnseq::simd {

enum class Isa : int {
  Scalar = ATTNSEQ_ISA_SCALAR,
  Sse2 = ATTNSEQ_ISA_SSE2,
  Avx2 = ATTNSEQ_ISA_AVX2,
  Avx512 = ATTNSEQ_ISA_AVX512,
  Avx512Vnni = ATTNSEQ_ISA_AVX512VNNI,
  Wasm = ATTNSEQ_ISA_WASM,
};

// The x86 level of a set, for pairing tables: SSE2 1, AVX2 2, AVX-512 (with or without VNNI) 3; 0
// for the others.
constexpr int x86_level(Isa isa) {
  switch (isa) {
    case Isa::Sse2: return 1;
    case Isa::Avx2: return 2;
    case Isa::Avx512:
    case Isa::Avx512Vnni: return 3;
    default: return 0;
  }
}

}  // namespace attnseq::simd
