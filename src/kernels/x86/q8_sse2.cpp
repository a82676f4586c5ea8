// The int8 kernels with SSE2 (the x86-64 baseline, no -m flag); chosen at run time by
// src/kernels/dispatch.cpp when the float kernels are SSE2.
#include "kernels/isa.hpp"
#define ATTNSEQ_Q8_ISA ATTNSEQ_ISA_SSE2
#define ATTNSEQ_Q8_NS q8_sse2
#define ATTNSEQ_Q8_NAME "sse2"
#include "kernels/q8_impl.inc"
