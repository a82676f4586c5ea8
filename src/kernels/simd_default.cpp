// The kernels for the one instruction set this build targets (WebAssembly SIMD, xsimd's emulated
// arch in scalar wasm, or whatever -march=native gives). x86-64 builds with run-time choice compile
// src/kernels/x86/ instead.
#include <xsimd/xsimd.hpp>

#define ATTNSEQ_SIMD_ARCH xsimd::default_arch
#define ATTNSEQ_SIMD_NS native
#define ATTNSEQ_SIMD_DEFINE_PUBLIC 1  // the only arch: attnseq::simd calls it directly
#include "kernels/simd_impl.inc"
