// The kernels for xsimd::fma3<xsimd::avx2>, compiled with -mavx2 -mfma (CMakeLists.txt); chosen at run time by
// src/kernels/dispatch.cpp only on a CPU that runs them.
#include <xsimd/xsimd.hpp>

#define ATTNSEQ_SIMD_ARCH xsimd::fma3<xsimd::avx2>
#define ATTNSEQ_SIMD_NS avx2
#include "kernels/simd_impl.inc"
