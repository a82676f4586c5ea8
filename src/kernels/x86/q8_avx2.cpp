// The int8 kernels with AVX2 (vpmovsxbw + vpmaddwd), compiled with -mavx2 (CMakeLists.txt); chosen
// at run time by src/kernels/dispatch.cpp on an AVX2 CPU whose float kernels are AVX2 or AVX-512
// without VNNI.
#include "kernels/isa.hpp"
#define ATTNSEQ_Q8_ISA ATTNSEQ_ISA_AVX2
#define ATTNSEQ_Q8_NS q8_avx2
#define ATTNSEQ_Q8_NAME "avx2"
#include "kernels/q8_impl.inc"
