// The int8 kernels with AVX-512 BW + VNNI (vpmovsxbw zmm + vpdpwssd), compiled with -mavx512f
// -mavx512bw -mavx512vnni (CMakeLists.txt); chosen at run time by src/kernels/dispatch.cpp only on
// a CPU whose cpuid reports both, when the float kernels are AVX-512.
#include "kernels/isa.hpp"
#define ATTNSEQ_Q8_ISA ATTNSEQ_ISA_AVX512VNNI
#define ATTNSEQ_Q8_NS q8_avx512vnni
#define ATTNSEQ_Q8_NAME "avx512vnni"
#include "kernels/q8_impl.inc"
