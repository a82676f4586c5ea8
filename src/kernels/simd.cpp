// xsimd kernels: each is a functor over xsimd::batch<float, Arch> with a vector body and a scalar
// tail, instantiated for the arch this translation unit is compiled for (SSE2/AVX/AVX-512 natively,
// WebAssembly SIMD with -msimd128, xsimd's emulated<128> in a scalar wasm build).
// Results match the reference loops up to float reassociation.
#include <algorithm>
#include <cmath>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.hpp"

namespace attnseq::simd {
namespace {

using Arch = xsimd::default_arch;

template <class A>
using V = xsimd::batch<float, A>;

template <class A>
inline V<A> load(const float* p) { return V<A>::load_unaligned(p); }

// Runs body(i) for every full batch starting at i, then tail(i) for each leftover element.
template <class A, class Body, class Tail>
inline void for_batches(std::size_t n, Body&& body, Tail&& tail) {
  constexpr std::size_t W = V<A>::size;
  std::size_t i = 0;
  for (; i + W <= n; i += W) body(i);
  for (; i < n; ++i) tail(i);
}

// Applies f to every element, vector or scalar alike (f is generic over batch and float).
template <class A, class F>
inline void map_inplace(float* x, std::size_t n, F&& f) {
  for_batches<A>(n, [&](std::size_t i) { f(load<A>(x + i)).store_unaligned(x + i); },
                 [&](std::size_t i) { x[i] = f(x[i]); });
}

struct Dot {
  template <class A>
  float operator()(A, const float* a, const float* b, std::size_t n) const {
    constexpr std::size_t W = V<A>::size;
    // Four independent accumulators hide the latency of the multiply-add chain.
    V<A> s0(0.f), s1(0.f), s2(0.f), s3(0.f);
    std::size_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
      s0 = xsimd::fma(load<A>(a + i), load<A>(b + i), s0);
      s1 = xsimd::fma(load<A>(a + i + W), load<A>(b + i + W), s1);
      s2 = xsimd::fma(load<A>(a + i + 2 * W), load<A>(b + i + 2 * W), s2);
      s3 = xsimd::fma(load<A>(a + i + 3 * W), load<A>(b + i + 3 * W), s3);
    }
    for (; i + W <= n; i += W) s0 = xsimd::fma(load<A>(a + i), load<A>(b + i), s0);
    float s = xsimd::reduce_add((s0 + s1) + (s2 + s3));
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
  }
};

// out[r] = <w_r, x> for four rows at once: x is loaded once per four rows.
struct Dot4 {
  template <class A>
  void operator()(A, const float* w0, const float* w1, const float* w2, const float* w3,
                  const float* x, std::size_t n, float* out) const {
    constexpr std::size_t W = V<A>::size;
    V<A> a0(0.f), a1(0.f), a2(0.f), a3(0.f), b0(0.f), b1(0.f), b2(0.f), b3(0.f);
    std::size_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      const V<A> x0 = load<A>(x + i), x1 = load<A>(x + i + W);
      a0 = xsimd::fma(load<A>(w0 + i), x0, a0);
      a1 = xsimd::fma(load<A>(w1 + i), x0, a1);
      a2 = xsimd::fma(load<A>(w2 + i), x0, a2);
      a3 = xsimd::fma(load<A>(w3 + i), x0, a3);
      b0 = xsimd::fma(load<A>(w0 + i + W), x1, b0);
      b1 = xsimd::fma(load<A>(w1 + i + W), x1, b1);
      b2 = xsimd::fma(load<A>(w2 + i + W), x1, b2);
      b3 = xsimd::fma(load<A>(w3 + i + W), x1, b3);
    }
    for (; i + W <= n; i += W) {
      const V<A> x0 = load<A>(x + i);
      a0 = xsimd::fma(load<A>(w0 + i), x0, a0);
      a1 = xsimd::fma(load<A>(w1 + i), x0, a1);
      a2 = xsimd::fma(load<A>(w2 + i), x0, a2);
      a3 = xsimd::fma(load<A>(w3 + i), x0, a3);
    }
    float r0 = xsimd::reduce_add(a0 + b0), r1 = xsimd::reduce_add(a1 + b1);
    float r2 = xsimd::reduce_add(a2 + b2), r3 = xsimd::reduce_add(a3 + b3);
    for (; i < n; ++i) {
      r0 += w0[i] * x[i];
      r1 += w1[i] * x[i];
      r2 += w2[i] * x[i];
      r3 += w3[i] * x[i];
    }
    out[0] = r0, out[1] = r1, out[2] = r2, out[3] = r3;
  }
};

struct Axpy {
  template <class A>
  void operator()(A, float alpha, const float* x, float* y, std::size_t n) const {
    const V<A> va(alpha);
    for_batches<A>(n, [&](std::size_t i) { xsimd::fma(va, load<A>(x + i), load<A>(y + i)).store_unaligned(y + i); },
                   [&](std::size_t i) { y[i] += alpha * x[i]; });
  }
};

// y += a0 x0 + a1 x1 + a2 x2 + a3 x3: one pass over y for four rows.
struct Axpy4 {
  template <class A>
  void operator()(A, const float* a, const float* x0, const float* x1, const float* x2,
                  const float* x3, float* y, std::size_t n) const {
    const V<A> v0(a[0]), v1(a[1]), v2(a[2]), v3(a[3]);
    for_batches<A>(n,
        [&](std::size_t i) {
          V<A> acc = xsimd::fma(v0, load<A>(x0 + i), load<A>(y + i));
          acc = xsimd::fma(v1, load<A>(x1 + i), acc);
          acc = xsimd::fma(v2, load<A>(x2 + i), acc);
          xsimd::fma(v3, load<A>(x3 + i), acc).store_unaligned(y + i);
        },
        [&](std::size_t i) { y[i] += a[0] * x0[i] + a[1] * x1[i] + a[2] * x2[i] + a[3] * x3[i]; });
  }
};

// One row block of C = X W^T: rows [m, m+4) of W against every row of X.
inline void gemm_rows(const float* X, std::size_t ldx, const float* W, float* C, std::size_t ldc,
                      std::size_t B, std::size_t M, std::size_t N, bool accumulate) {
  std::size_t m = 0;
  float r[4];
  for (; m + 4 <= M; m += 4) {
    const float* w = W + m * N;
    for (std::size_t b = 0; b < B; ++b) {
      Dot4{}(Arch{}, w, w + N, w + 2 * N, w + 3 * N, X + b * ldx, N, r);
      float* c = C + b * ldc + m;
      for (int k = 0; k < 4; ++k) c[k] = accumulate ? c[k] + r[k] : r[k];
    }
  }
  for (; m < M; ++m)
    for (std::size_t b = 0; b < B; ++b) {
      const float s = Dot{}(Arch{}, W + m * N, X + b * ldx, N);
      float* c = C + b * ldc + m;
      *c = accumulate ? *c + s : s;
    }
}

}  // namespace

const char* arch_name() { return Arch::name(); }

std::size_t pack_width() { return V<Arch>::size; }

std::size_t packed_size(std::size_t M, std::size_t N) { return ref::packed_size(M, N); }

void pack(const float* W, std::size_t M, std::size_t N, float* P) { ref::pack(W, M, N, P); }

namespace {
// Packed panels hold 4L rows column-major (reference.cpp). Two panels are multiplied at once: two
// independent sequential weight streams share each broadcast x[n], four accumulators each. In V8
// this ran 25-35% faster than one 8L-row panel (more loads in flight), and has no horizontal sums.
struct TwoPanels {
  template <class A>
  void operator()(A, const float* p, const float* p2, const float* x, std::size_t N, const float* init,
                  const float* init2, float* y, float* y2) const {
    constexpr std::size_t L = V<A>::size;
    V<A> a0 = init ? load<A>(init) : V<A>(0.f), a1 = init ? load<A>(init + L) : V<A>(0.f);
    V<A> a2 = init ? load<A>(init + 2 * L) : V<A>(0.f), a3 = init ? load<A>(init + 3 * L) : V<A>(0.f);
    V<A> b0 = init2 ? load<A>(init2) : V<A>(0.f), b1 = init2 ? load<A>(init2 + L) : V<A>(0.f);
    V<A> b2 = init2 ? load<A>(init2 + 2 * L) : V<A>(0.f), b3 = init2 ? load<A>(init2 + 3 * L) : V<A>(0.f);
    for (std::size_t n = 0; n < N; ++n, p += 4 * L, p2 += 4 * L) {
      const V<A> xn(x[n]);
      a0 = xsimd::fma(load<A>(p), xn, a0);
      a1 = xsimd::fma(load<A>(p + L), xn, a1);
      a2 = xsimd::fma(load<A>(p + 2 * L), xn, a2);
      a3 = xsimd::fma(load<A>(p + 3 * L), xn, a3);
      b0 = xsimd::fma(load<A>(p2), xn, b0);
      b1 = xsimd::fma(load<A>(p2 + L), xn, b1);
      b2 = xsimd::fma(load<A>(p2 + 2 * L), xn, b2);
      b3 = xsimd::fma(load<A>(p2 + 3 * L), xn, b3);
    }
    a0.store_unaligned(y), a1.store_unaligned(y + L), a2.store_unaligned(y + 2 * L), a3.store_unaligned(y + 3 * L);
    b0.store_unaligned(y2), b1.store_unaligned(y2 + L), b2.store_unaligned(y2 + 2 * L), b3.store_unaligned(y2 + 3 * L);
  }
};

struct OnePanel {
  template <class A>
  void operator()(A, const float* p, const float* x, std::size_t N, const float* init, float* y) const {
    constexpr std::size_t L = V<A>::size;
    V<A> a0 = init ? load<A>(init) : V<A>(0.f), a1 = init ? load<A>(init + L) : V<A>(0.f);
    V<A> a2 = init ? load<A>(init + 2 * L) : V<A>(0.f), a3 = init ? load<A>(init + 3 * L) : V<A>(0.f);
    for (std::size_t n = 0; n < N; ++n, p += 4 * L) {
      const V<A> xn(x[n]);
      a0 = xsimd::fma(load<A>(p), xn, a0);
      a1 = xsimd::fma(load<A>(p + L), xn, a1);
      a2 = xsimd::fma(load<A>(p + 2 * L), xn, a2);
      a3 = xsimd::fma(load<A>(p + 3 * L), xn, a3);
    }
    a0.store_unaligned(y), a1.store_unaligned(y + L), a2.store_unaligned(y + 2 * L), a3.store_unaligned(y + 3 * L);
  }
};
}  // namespace

void gemm_packed(const float* X, std::size_t ldx, const float* P, const float* bias, float* C,
                 std::size_t ldc, std::size_t B, std::size_t M, std::size_t N) {
  constexpr std::size_t R = 4 * V<Arch>::size;
  const std::size_t panels = (M + R - 1) / R, Mp = panels * R;
  // Outputs go to C directly when the panel lies inside it; the ragged last panel goes through a
  // scratch row (and its bias through a zero-padded copy).
  alignas(64) float tail_y[R], tail_b[R];
  const bool ragged = Mp != M;
  if (ragged && bias) {
    std::fill(tail_b, tail_b + R, 0.f);
    std::copy(bias + (panels - 1) * R, bias + M, tail_b);
  }
  auto init_of = [&](std::size_t k) -> const float* {
    if (!bias) return nullptr;
    return (ragged && k == panels - 1) ? tail_b : bias + k * R;
  };
  for (std::size_t b = 0; b < B; ++b) {
    const float* x = X + b * ldx;
    float* c = C + b * ldc;
    auto out_of = [&](std::size_t k) { return (ragged && k == panels - 1) ? tail_y : c + k * R; };
    std::size_t k = 0;
    for (; k + 2 <= panels; k += 2)
      TwoPanels{}(Arch{}, P + k * R * N, P + (k + 1) * R * N, x, N, init_of(k), init_of(k + 1), out_of(k), out_of(k + 1));
    if (k < panels) OnePanel{}(Arch{}, P + k * R * N, x, N, init_of(k), out_of(k));
    if (ragged) std::copy(tail_y, tail_y + (M - (panels - 1) * R), c + (panels - 1) * R);
  }
}

float dot(const float* a, const float* b, std::size_t n) { return Dot{}(Arch{}, a, b, n); }

void axpy(float alpha, const float* x, float* y, std::size_t n) { Axpy{}(Arch{}, alpha, x, y, n); }

void gemv(const float* W, const float* x, float* y, std::size_t M, std::size_t N, bool accumulate) {
  gemm_rows(x, N, W, y, M, 1, M, N, accumulate);
}

void gemv_t(const float* W, const float* x, float* y, std::size_t M, std::size_t N) {
  std::size_t m = 0;
  for (; m + 4 <= M; m += 4)
    Axpy4{}(Arch{}, x + m, W + m * N, W + (m + 1) * N, W + (m + 2) * N, W + (m + 3) * N, y, N);
  for (; m < M; ++m) axpy(x[m], W + m * N, y, N);
}

void gemm_nt(const float* X, std::size_t ldx, const float* W, float* C, std::size_t ldc,
             std::size_t B, std::size_t M, std::size_t N, bool accumulate) {
  gemm_rows(X, ldx, W, C, ldc, B, M, N, accumulate);
}

void gemm_tn_acc(const float* A, const float* G, float* C, std::size_t B, std::size_t M,
                 std::size_t N) {
  // Row m of C gathers A[b, m] * G[b, :] over the batch; C's row stays in cache across b.
  for (std::size_t m = 0; m < M; ++m) {
    float* c = C + m * N;
    std::size_t b = 0;
    for (; b + 4 <= B; b += 4) {
      const float a[4] = {A[b * M + m], A[(b + 1) * M + m], A[(b + 2) * M + m], A[(b + 3) * M + m]};
      Axpy4{}(Arch{}, a, G + b * N, G + (b + 1) * N, G + (b + 2) * N, G + (b + 3) * N, c, N);
    }
    for (; b < B; ++b) axpy(A[b * M + m], G + b * N, c, N);
  }
}

void add(const float* x, float* y, std::size_t n) {
  for_batches<Arch>(n, [&](std::size_t i) { (load<Arch>(y + i) + load<Arch>(x + i)).store_unaligned(y + i); },
                    [&](std::size_t i) { y[i] += x[i]; });
}

void mul(const float* a, const float* b, float* y, std::size_t n) {
  for_batches<Arch>(n, [&](std::size_t i) { (load<Arch>(a + i) * load<Arch>(b + i)).store_unaligned(y + i); },
                    [&](std::size_t i) { y[i] = a[i] * b[i]; });
}

void sigmoid(float* x, std::size_t n) {
  map_inplace<Arch>(x, n, [](auto v) {
    using T = decltype(v);
    // sigma(x) = (1 + tanh(x / 2)) / 2: one transcendental and no division (measured 2-3.5x cheaper).
    if constexpr (std::is_same_v<T, float>) return 0.5f * std::tanh(0.5f * v) + 0.5f;
    else return xsimd::fma(T(0.5f), xsimd::tanh(T(0.5f) * v), T(0.5f));
  });
}

void tanh(float* x, std::size_t n) {
  map_inplace<Arch>(x, n, [](auto v) {
    if constexpr (std::is_same_v<decltype(v), float>) return std::tanh(v);
    else return xsimd::tanh(v);
  });
}

float max(const float* x, std::size_t n) {
  constexpr std::size_t W = V<Arch>::size;
  float m = -INFINITY;
  std::size_t i = 0;
  if (n >= W) {
    V<Arch> acc = load<Arch>(x);
    for (i = W; i + W <= n; i += W) acc = xsimd::max(acc, load<Arch>(x + i));
    m = xsimd::reduce_max(acc);
  }
  for (; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

void masked_softmax(float* x, std::size_t n, std::size_t valid) {
  valid = std::min(valid, n);
  if (valid > 0) {
    const float m = max(x, valid);
    const V<Arch> vm(m);
    V<Arch> vs(0.f);
    float s = 0.f;
    for_batches<Arch>(valid,
        [&](std::size_t i) {
          const V<Arch> e = xsimd::exp(load<Arch>(x + i) - vm);
          e.store_unaligned(x + i);
          vs += e;
        },
        [&](std::size_t i) { s += (x[i] = std::exp(x[i] - m)); });
    s += xsimd::reduce_add(vs);
    const float inv = 1.f / s;
    const V<Arch> vi(inv);
    for_batches<Arch>(valid, [&](std::size_t i) { (load<Arch>(x + i) * vi).store_unaligned(x + i); },
                      [&](std::size_t i) { x[i] *= inv; });
  }
  std::fill(x + valid, x + n, 0.f);
}

float logsumexp(const float* x, std::size_t n) {
  const float m = max(x, n);
  if (!std::isfinite(m)) return m;
  const V<Arch> vm(m);
  V<Arch> vs(0.f);
  float s = 0.f;
  for_batches<Arch>(n, [&](std::size_t i) { vs += xsimd::exp(load<Arch>(x + i) - vm); },
                    [&](std::size_t i) { s += std::exp(x[i] - m); });
  return m + std::log(s + xsimd::reduce_add(vs));
}

std::size_t argmax(const float* x, std::size_t n) {
  // Vector max first, then the first index holding it: same answer as the scalar scan.
  const float m = max(x, n);
  for (std::size_t i = 0; i < n; ++i)
    if (x[i] == m) return i;
  return ref::argmax(x, n);  // only reached when x holds NaN
}

void topk(const float* x, std::size_t n, std::size_t k, std::int32_t* idx, float* val) {
  // Insertion into a sorted list of k: O(n) for the usual k << n. Strict '>' keeps the lower index
  // first on ties, matching the reference's stable sort.
  if (k == 0) return;
  std::size_t filled = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    if (filled == k && !(v > val[k - 1])) continue;
    std::size_t pos = filled < k ? filled : k - 1;
    while (pos > 0 && v > val[pos - 1]) {
      val[pos] = val[pos - 1];
      idx[pos] = idx[pos - 1];
      --pos;
    }
    val[pos] = v;
    idx[pos] = std::int32_t(i);
    if (filled < k) ++filled;
  }
  for (std::size_t i = filled; i < k; ++i) {  // NaN-only input: fall back to index order
    idx[i] = std::int32_t(i);
    val[i] = x[i];
  }
}

}  // namespace attnseq::simd
