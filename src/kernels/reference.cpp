// Reference kernels: the plainest correct loops. They define what every SIMD kernel must compute
// and are the whole kernel set when ATTNSEQ_REFERENCE_KERNELS is on.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/q8_detail.hpp"

namespace attnseq::ref {

float dot(const float* a, const float* b, std::size_t n) {
  float s = 0.f;
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

void axpy(float alpha, const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

void gemv(const float* W, const float* x, float* y, std::size_t M, std::size_t N, bool accumulate) {
  for (std::size_t m = 0; m < M; ++m) {
    float s = dot(W + m * N, x, N);
    y[m] = accumulate ? y[m] + s : s;
  }
}

void gemv_t(const float* W, const float* x, float* y, std::size_t M, std::size_t N) {
  for (std::size_t m = 0; m < M; ++m) axpy(x[m], W + m * N, y, N);
}

void gemm_nt(const float* X, std::size_t ldx, const float* W, float* C, std::size_t ldc, std::size_t B, std::size_t M,
             std::size_t N, bool accumulate) {
  for (std::size_t b = 0; b < B; ++b) gemv(W, X + b * ldx, C + b * ldc, M, N, accumulate);
}

void gemm_acc(const float* A, std::size_t rsa, std::size_t csa, const float* Bm, std::size_t ldb, float* C,
              std::size_t ldc, std::size_t M, std::size_t N, std::size_t K) {
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t k = 0; k < K; ++k) axpy(A[i * rsa + k * csa], Bm + k * ldb, C + i * ldc, N);
}

void add(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] += x[i];
}

void mul(const float* a, const float* b, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

void sigmoid(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = 1.f / (1.f + std::exp(-x[i]));
}

void tanh(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
}

float max(const float* x, std::size_t n) {
  float m = -INFINITY;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

void masked_softmax(float* x, std::size_t n, std::size_t valid) {
  valid = std::min(valid, n);
  if (valid > 0) {
    const float m = max(x, valid);
    float s = 0.f;
    for (std::size_t i = 0; i < valid; ++i) s += (x[i] = std::exp(x[i] - m));
    const float inv = 1.f / s;
    for (std::size_t i = 0; i < valid; ++i) x[i] *= inv;
  }
  for (std::size_t i = valid; i < n; ++i) x[i] = 0.f;
}

float logsumexp(const float* x, std::size_t n) {
  const float m = max(x, n);
  if (!std::isfinite(m)) return m;
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) s += std::exp(double(x[i] - m));
  return m + float(std::log(s));
}

// Packed layout: column panels of R = 4 * simd::pack_width() rows. Panel k holds rows
// [k R, (k + 1) R) column by column: element (m, n) is at k R N + n R + (m - k R). Padding rows are 0.
std::size_t packed_size_panels(std::size_t M, std::size_t N, std::size_t R) { return (M + R - 1) / R * R * N; }

void pack_panels(const float* W, std::size_t M, std::size_t N, float* P, std::size_t R) {
  // 64 columns at a time: the panel's R rows are read along, and the R x 64 block written stays in L1
  // (one column at a time, every element read was a new cache line: training packs its weights every
  // batch, and this was 2.7 % of a translation-size step).
  constexpr std::size_t kCols = 64;
  for (std::size_t k = 0; k < (M + R - 1) / R; ++k)
    for (std::size_t n0 = 0; n0 < N; n0 += kCols) {
      const std::size_t n1 = std::min(N, n0 + kCols);
      float* dst = P + k * R * N;
      for (std::size_t r = 0; r < R; ++r) {
        const std::size_t m = k * R + r;
        if (m < M)
          for (std::size_t n = n0; n < n1; ++n) dst[n * R + r] = W[m * N + n];
        else
          for (std::size_t n = n0; n < n1; ++n) dst[n * R + r] = 0.f;
      }
    }
}

void pack_panels_transposed(const float* W, std::size_t M, std::size_t N, float* P, std::size_t R) {
  // W^T's panel k, column j, is W's row j from column kR on: R floats in a row, copied as they are.
  for (std::size_t k = 0; k < (N + R - 1) / R; ++k) {
    const std::size_t n0 = k * R, w = std::min(R, N - n0);
    float* dst = P + k * R * M;
    for (std::size_t j = 0; j < M; ++j, dst += R) {
      std::copy_n(W + j * N + n0, w, dst);
      std::fill(dst + w, dst + R, 0.f);
    }
  }
}

std::size_t packed_size(std::size_t M, std::size_t N) { return packed_size_panels(M, N, 4 * simd::pack_width()); }

void pack(const float* W, std::size_t M, std::size_t N, float* P) { pack_panels(W, M, N, P, 4 * simd::pack_width()); }

void gemm_packed(const float* X, std::size_t ldx, const float* P, const float* bias, float* C, std::size_t ldc,
                 std::size_t B, std::size_t M, std::size_t N) {
  const std::size_t R = 4 * simd::pack_width();
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t m = 0; m < M; ++m) {
      const std::size_t k = m / R, r = m % R;
      float s = 0.f;
      for (std::size_t n = 0; n < N; ++n) s += P[k * R * N + n * R + r] * X[b * ldx + n];
      C[b * ldc + m] = bias ? s + bias[m] : s;
    }
}

void gemm_packed_acc(const float* X, std::size_t ldx, const float* P, float* C, std::size_t ldc, std::size_t B,
                     std::size_t M, std::size_t N) {
  const std::size_t R = 4 * simd::pack_width();
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t m = 0; m < M; ++m) {
      const std::size_t k = m / R, r = m % R;
      float s = C[b * ldc + m];
      for (std::size_t n = 0; n < N; ++n) s += P[k * R * N + n * R + r] * X[b * ldx + n];
      C[b * ldc + m] = s;
    }
}

std::size_t argmax(const float* x, std::size_t n) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

void topk(const float* x, std::size_t n, std::size_t k, std::int32_t* idx, float* val) {
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return x[a] > x[b]; });
  for (std::size_t i = 0; i < k; ++i) {
    idx[i] = order[i];
    val[i] = x[order[i]];
  }
}

// ---- int8 (kernels.hpp: the q8 section) -----------------------------------------------------

float quantize_i16(const float* x, std::size_t n, std::int32_t qmax, std::int16_t* q) {
  float a = 0.f;
  bool finite = true;
  for (std::size_t i = 0; i < n; ++i) {
    finite = finite && std::isfinite(x[i]);
    a = std::max(a, std::fabs(x[i]));
  }
  if (!finite || !(a >= kQ8MinAbs)) {
    std::fill(q, q + n, std::int16_t(0));
    return finite ? 0.f : NAN;
  }
  const float inv = float(qmax) / a, lim = float(qmax);
  for (std::size_t i = 0; i < n; ++i) {
    const float r = std::nearbyint(x[i] * inv);  // the default rounding mode: half to even
    q[i] = std::int16_t(std::min(std::max(r, -lim), lim));
  }
  return a / float(qmax);
}

namespace {
// An int8 product's output from its exact sum: float(s) * (xs * ws), rounded before the bias is added.
float q8_scaled(std::int32_t s, float xs, float ws, const float* bias) {
  float y = float(s) * (xs * ws);
  q8_no_fuse(y);
  return bias ? y + *bias : y;
}
}  // namespace

void gemm_q8(const std::int16_t* Xq, std::size_t ldq, const float* xscale, const std::int8_t* P, const float* wscale,
             const float* bias, float* C, std::size_t ldc, std::size_t B, std::size_t M, std::size_t N) {
  const std::size_t R = kQ8Panel, pairs = (N + 1) / 2;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t m = 0; m < M; ++m) {
      const std::int8_t* p = P + (m / R) * R * 2 * pairs + (m % R) * 2;
      const std::int16_t* x = Xq + b * ldq;
      std::int32_t s = 0;
      for (std::size_t k = 0; k < pairs; ++k, p += 2 * R) s += p[0] * x[2 * k] + p[1] * x[2 * k + 1];
      C[b * ldc + m] = q8_scaled(s, xscale[b], wscale[m], bias ? bias + m : nullptr);
    }
}

void gemm_q8r(const std::uint8_t* Xu, std::size_t ldu, const float* xscale, const std::int8_t* P,
              const std::int32_t* corr, const float* wscale, const float* bias, float* C, std::size_t ldc,
              std::size_t B, std::size_t M, std::size_t N) {
  const std::size_t R = kQ8Panel, quads = (N + 3) / 4;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t m = 0; m < M; ++m) {
      const std::int8_t* p = P + (m / R) * R * 4 * quads + (m % R) * 4;
      const std::uint8_t* x = Xu + b * ldu;
      std::int32_t s = 0;
      for (std::size_t k = 0; k < quads; ++k, p += 4 * R)
        for (std::size_t j = 0; j < 4; ++j) s += p[j] * std::int32_t(x[4 * k + j]);
      C[b * ldc + m] = q8_scaled(s - corr[m], xscale[b], wscale[m], bias ? bias + m : nullptr);
    }
}

}  // namespace attnseq::ref

namespace attnseq {

std::size_t q8r_packed_size(std::size_t M, std::size_t N) {
  return (M + kQ8Panel - 1) / kQ8Panel * kQ8Panel * ((N + 3) / 4 * 4);
}

void q8r_pack(const std::int8_t* Q, std::size_t M, std::size_t N, std::int8_t* P, std::int32_t* corr) {
  const std::size_t R = kQ8Panel, quads = (N + 3) / 4;
  for (std::size_t k = 0; k < (M + R - 1) / R; ++k)
    for (std::size_t c = 0; c < quads; ++c)
      for (std::size_t r = 0; r < R; ++r)
        for (std::size_t j = 0; j < 4; ++j) {
          const std::size_t m = k * R + r, n = 4 * c + j;
          *P++ = m < M && n < N ? Q[m * N + n] : std::int8_t(0);
        }
  for (std::size_t m = 0; m < M; ++m) {
    std::int32_t s = 0;
    for (std::size_t n = 0; n < N; ++n) s += Q[m * N + n];
    corr[m] = kQ8ROffset * s;
  }
}

void q8r_offset(const std::int16_t* q, std::size_t n, std::uint8_t* u) {
  for (std::size_t i = 0; i < n; ++i) u[i] = std::uint8_t(q[i] + kQ8ROffset);
  for (std::size_t i = n; i < (n + 3) / 4 * 4; ++i) u[i] = std::uint8_t(kQ8ROffset);
}

namespace {
GemmQ8RFn q8r_fn = nullptr;
}
GemmQ8RFn kernels::q8r_product() { return q8r_fn; }
void kernels::set_q8r_product(GemmQ8RFn f) { q8r_fn = f; }

std::int32_t q8_act_max(std::size_t N) {
  const std::uint64_t lim = std::uint64_t(INT32_MAX) / (127u * std::max<std::uint64_t>(N, 1));
  return std::int32_t(std::min<std::uint64_t>(lim, 32767));
}

std::size_t q8_packed_size(std::size_t M, std::size_t N) {
  return (M + kQ8Panel - 1) / kQ8Panel * kQ8Panel * ((N + 1) / 2 * 2);
}

void q8_pack(const std::int8_t* Q, std::size_t M, std::size_t N, std::int8_t* P) {
  const std::size_t R = kQ8Panel, pairs = (N + 1) / 2;
  for (std::size_t k = 0; k < (M + R - 1) / R; ++k)
    for (std::size_t c = 0; c < pairs; ++c)
      for (std::size_t r = 0; r < R; ++r)
        for (std::size_t j = 0; j < 2; ++j) {
          const std::size_t m = k * R + r, n = 2 * c + j;
          *P++ = m < M && n < N ? Q[m * N + n] : std::int8_t(0);
        }
}

void q8_quantize_rows(const float* W, std::size_t M, std::size_t N, std::int8_t* Q, float* scale) {
  for (std::size_t m = 0; m < M; ++m) {
    const float* w = W + m * N;
    float a = 0.f;
    for (std::size_t n = 0; n < N; ++n) a = std::max(a, std::fabs(w[n]));
    const float s = a / 127.f;
    scale[m] = s;
    for (std::size_t n = 0; n < N; ++n)
      Q[m * N + n] = s > 0.f ? std::int8_t(std::min(std::max(std::nearbyint(w[n] / s), -127.f), 127.f)) : 0;
  }
}

}  // namespace attnseq
