// The kernels for xsimd::sse2, compiled with no -m flag (the x86-64 baseline) (CMakeLists.txt); chosen at run time by
// src/kernels/dispatch.cpp only on a CPU that runs them.
#include <xsimd/xsimd.hpp>

#define ATTNSEQ_SIMD_ARCH xsimd::sse2
#define ATTNSEQ_SIMD_NS sse2
#include "kernels/simd_impl.inc"
