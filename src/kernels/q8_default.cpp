// The int8 kernels for the one instruction set this build targets: WebAssembly SIMD, plain integers
// in scalar wasm, or the best x86 set -march=native enables. x86-64 builds with run-time choice
// compile src/kernels/x86/q8_*.cpp instead.
#include "kernels/isa.hpp"

#if defined(__wasm_simd128__)
#define ATTNSEQ_Q8_ISA ATTNSEQ_ISA_WASM
#define ATTNSEQ_Q8_NAME "wasm"
#elif defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define ATTNSEQ_Q8_ISA ATTNSEQ_ISA_AVX512VNNI
#define ATTNSEQ_Q8_NAME "avx512vnni"
#elif defined(__AVX2__)
#define ATTNSEQ_Q8_ISA ATTNSEQ_ISA_AVX2
#define ATTNSEQ_Q8_NAME "avx2"
#elif defined(__SSE2__)
#define ATTNSEQ_Q8_ISA ATTNSEQ_ISA_SSE2
#define ATTNSEQ_Q8_NAME "sse2"
#else
#define ATTNSEQ_Q8_ISA ATTNSEQ_ISA_SCALAR
#define ATTNSEQ_Q8_NAME "scalar"
#endif
#define ATTNSEQ_Q8_NS q8_native
#include "kernels/q8_impl.inc"

// The only int8 arch: attnseq::simd calls it directly.
namespace attnseq::simd {
#define ATTNSEQ_FORWARD_DIRECT(ret, name, params, args) \
  ret name params { return q8_native::q8_table().name args; }
ATTNSEQ_Q8_KERNEL_LIST(ATTNSEQ_FORWARD_DIRECT)
#undef ATTNSEQ_FORWARD_DIRECT
const char* q8_arch_name() { return q8_native::q8_table().name; }
}  // namespace attnseq::simd
