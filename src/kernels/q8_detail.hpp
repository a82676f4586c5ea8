// What the reference int8 kernels (reference.cpp) and their SIMD versions (q8_impl.inc) must do
// alike to give the same bits: the scaled product is rounded before the bias is added, never fused
// into one multiply-add (GCC fuses a * b + c, even written with intrinsics, whenever FMA is enabled).
#pragma once

namespace attnseq {

// An empty asm statement the value must pass through: the compiler cannot see the multiply behind
// it, so it cannot fuse it with the add that follows. Emits no instruction.
template <class T>
inline void q8_no_fuse(T& v) {
#if defined(__x86_64__) || defined(__i386__)
#if defined(__AVX512F__)
  __asm__("" : "+v"(v));
#else
  __asm__("" : "+x"(v));
#endif
#elif defined(__wasm__)
  (void)v;  // WebAssembly has no fused multiply-add (without relaxed SIMD): nothing to prevent
#else
  volatile T t = v;
  v = t;
#endif
}

}  // namespace attnseq
