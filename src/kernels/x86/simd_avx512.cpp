// The kernels for xsimd::avx512f, compiled with -mavx512f -mavx2 -mfma (CMakeLists.txt); chosen at run time by
// src/kernels/dispatch.cpp only on a CPU that runs them.
#include <xsimd/xsimd.hpp>

#define ATTNSEQ_SIMD_ARCH xsimd::avx512f
#define ATTNSEQ_SIMD_NS avx512
#include "kernels/simd_impl.inc"
