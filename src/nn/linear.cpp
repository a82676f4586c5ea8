// Linear (f32, packed f32 or int8 weights) and embedding forward passes.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/kernels.hpp"
#include "nn/layers.hpp"

namespace attnseq::nn {

void linear_forward(const float* X, std::size_t ldx, const float* W, const float* b, float* Y, std::size_t ldy,
                    std::size_t B, std::size_t M, std::size_t N) {
  if (b) {
    // Start from the bias and accumulate: one pass over Y instead of two.
    for (std::size_t r = 0; r < B; ++r) std::memcpy(Y + r * ldy, b, M * sizeof(float));
    kernels::gemm_nt(X, ldx, W, Y, ldy, B, M, N, true);
  } else {
    kernels::gemm_nt(X, ldx, W, Y, ldy, B, M, N, false);
  }
}

namespace {
// linear_q8's quantised rows and their scales, per thread (decoding may run on several threads).
struct Q8Scratch {
  std::vector<std::int16_t> q;
  std::vector<float> scale;
  std::vector<std::uint8_t> u;  // the 7-bit product's offset rows
};
Q8Scratch& q8_scratch() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  static Q8Scratch s;  // one thread, and wasm-ld refuses thread_local storage without atomics
#else
  thread_local Q8Scratch s;
#endif
  return s;
}
std::size_t even(std::size_t n) { return (n + 1) / 2 * 2; }
std::size_t quad(std::size_t n) { return (n + 3) / 4 * 4; }
}  // namespace

void q8_reserve(std::size_t rows, std::size_t cols) {
  Q8Scratch& s = q8_scratch();
  if (s.q.size() < rows * even(cols)) s.q.resize(rows * even(cols));
  if (s.scale.size() < rows) s.scale.resize(rows);
  if (s.u.size() < rows * quad(cols)) s.u.resize(rows * quad(cols));
}

void linear_q8(const float* X, std::size_t ldx, const Q8Weights& Q, const float* b, float* Y, std::size_t ldy,
               std::size_t B, std::size_t M, std::size_t N) {
  q8_reserve(B, N);
  Q8Scratch& s = q8_scratch();
  if (Q.corr) {
    const std::size_t ldu = quad(N);
    for (std::size_t r = 0; r < B; ++r) {
      s.scale[r] = kernels::quantize_i16(X + r * ldx, N, kQ8RActMax, s.q.data());
      q8r_offset(s.q.data(), N, s.u.data() + r * ldu);
    }
    const GemmQ8RFn f = kernels::q8r_product();
    (f ? f : &ref::gemm_q8r)(s.u.data(), ldu, s.scale.data(), Q.packed, Q.corr, Q.scale, b, Y, ldy, B, M, N);
    return;
  }
  const std::size_t ld = even(N);
  const std::int32_t qmax = q8_act_max(N);
  for (std::size_t r = 0; r < B; ++r) {
    std::int16_t* q = s.q.data() + r * ld;
    s.scale[r] = kernels::quantize_i16(X + r * ldx, N, qmax, q);
    if (ld > N) q[N] = 0;  // the column pair's second half, against zero padding
  }
  kernels::gemm_q8(s.q.data(), ld, s.scale.data(), Q.packed, Q.scale, b, Y, ldy, B, M, N);
}

void embedding_forward(const float* table, std::size_t D, const std::int32_t* ids, std::size_t B, float* out,
                       std::size_t ldo) {
  for (std::size_t r = 0; r < B; ++r) std::memcpy(out + r * ldo, table + std::size_t(ids[r]) * D, D * sizeof(float));
}

}  // namespace attnseq::nn
