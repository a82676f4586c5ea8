// The int8 kernels (src/kernels/kernels.hpp, the q8 section): every SIMD version this machine runs
// gives the reference's bits (integer sums are exact, and the scaling is done in the same order),
// the packed layout and the int32 sums are checked against a plain int64 computation of their own,
// and quantisation stays within its rounding bounds.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/dispatch.hpp"
#include "kernels/kernels.hpp"
#include "test_util.hpp"

using namespace attnseq;

namespace {

using test::rnd;

std::vector<std::int8_t> rnd_q(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-127, 127);
  std::vector<std::int8_t> v(n);
  for (auto& x : v) x = std::int8_t(d(g));
  return v;
}

// Quantised activation rows (B, ld) with every value in [-qmax, qmax] and the pad column zero.
std::vector<std::int16_t> rnd_x(std::size_t B, std::size_t N, std::size_t ld, std::int32_t qmax, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-qmax, qmax);
  std::vector<std::int16_t> v(B * ld, 0);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t n = 0; n < N; ++n) v[b * ld + n] = std::int16_t(d(g));
  return v;
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Bit equality (NaN included), element by element.
void check_same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("index " << i << ": " << a[i] << " vs " << b[i]);
    CHECK(bits(a[i]) == bits(b[i]));
  }
}

std::size_t even(std::size_t n) { return (n + 1) / 2 * 2; }

const std::size_t kSizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 257};

}  // namespace

TEST_CASE("q8: every int8 arch this machine runs is listed, and the one in use follows the float arch") {
  const auto& tables = simd::runnable_q8_tables();
  REQUIRE_FALSE(tables.empty());
  std::string names;
  for (const auto* t : tables) names += std::string(names.empty() ? "" : ", ") + t->name;
  const std::string f = simd::arch_name(), q = simd::q8_arch_name();
  MESSAGE("int8 kernels: " << names << "; in use: " << q << " (float: " << f << ")");
#if defined(ATTNSEQ_DISPATCH_X86)
  CHECK(std::string(tables.back()->name) == "sse2");
  if (f == "sse2") CHECK(q == "sse2");
  if (f == "fma3+avx2") CHECK(q == "avx2");
  if (f == "avx512f") CHECK((q == "avx512vnni" || q == "avx2"));
  // VNNI is used exactly when this CPU has it (cpuid, checked at run time).
  bool vnni = false;
  for (const auto* t : tables) vnni = vnni || std::string(t->name) == "avx512vnni";
  if (f == "avx512f") CHECK((q == "avx512vnni") == vnni);
  // Each table's instruction set is the one its name says, and the pairing is by level.
  const std::pair<const char*, simd::Isa> isas[] = {{"sse2", simd::Isa::Sse2},
                                                    {"fma3+avx2", simd::Isa::Avx2},
                                                    {"avx512f", simd::Isa::Avx512},
                                                    {"avx2", simd::Isa::Avx2},
                                                    {"avx512vnni", simd::Isa::Avx512Vnni}};
  for (const auto* t : simd::runnable_tables())
    for (const auto& [n, isa] : isas)
      if (std::string(t->name) == n) CHECK(t->isa == isa);
  for (const auto* t : tables)
    for (const auto& [n, isa] : isas)
      if (std::string(t->name) == n) CHECK(t->isa == isa);
  CHECK(simd::x86_level(simd::active_q8().isa) <= simd::x86_level(simd::active().isa));
#elif defined(__wasm_simd128__)
  CHECK(q == "wasm");
#elif defined(__EMSCRIPTEN__)
  CHECK(q == "scalar");
#endif
}

TEST_CASE("q8: q8_act_max keeps N 127 qmax within int32, and is 32767 up to 516 columns") {
  CHECK(q8_act_max(1) == 32767);
  CHECK(q8_act_max(516) == 32767);
  CHECK(q8_act_max(517) < 32767);
  for (std::size_t N : {std::size_t(1), std::size_t(517), std::size_t(1024), std::size_t(1) << 17}) {
    CAPTURE(N);
    const std::int64_t q = q8_act_max(N);
    CHECK(q >= 1);
    CHECK(std::int64_t(N) * 127 * q <= std::int64_t(std::numeric_limits<std::int32_t>::max()));
    if (q < 32767) CHECK(std::int64_t(N) * 127 * (q + 1) > std::int64_t(std::numeric_limits<std::int32_t>::max()));
  }
}

TEST_CASE("q8: the packed layout puts (m, n) where kernels.hpp says, padding zero") {
  for (std::size_t M : {std::size_t(1), std::size_t(31), std::size_t(32), std::size_t(45)})
    for (std::size_t N : {std::size_t(1), std::size_t(4), std::size_t(7)}) {
      CAPTURE(M);
      CAPTURE(N);
      const auto Q = rnd_q(M * N, unsigned(M * 100 + N));
      const std::size_t R = kQ8Panel, panels = (M + R - 1) / R;
      CHECK(q8_packed_size(M, N) == panels * R * even(N));
      std::vector<std::int8_t> P(q8_packed_size(M, N), 99);
      q8_pack(Q.data(), M, N, P.data());
      for (std::size_t m = 0; m < panels * R; ++m)
        for (std::size_t n = 0; n < even(N); ++n) {
          const std::size_t at = (m / R) * R * even(N) + (n / 2) * 2 * R + (m % R) * 2 + n % 2;
          const std::int8_t want = m < M && n < N ? Q[m * N + n] : 0;
          if (P[at] != want)
            FAIL_CHECK("(" << m << ", " << n << ") at " << at << ": " << int(P[at]) << " != " << int(want));
        }
    }
}

TEST_CASE("q8: int32 sums equal an int64 sum of the row-major matrix, on every arch, up to the int32 bound") {
  // With unit scales and no bias the output is float(sum): equal to float of the exact sum, so the
  // packed layout, the pairing of columns and the accumulation are checked without the reference.
  for (const simd::Q8Table* t : simd::runnable_q8_tables()) {
    CAPTURE(t->name);
    for (std::size_t M : {std::size_t(1), std::size_t(33), std::size_t(70)})
      for (std::size_t N : {std::size_t(1), std::size_t(3), std::size_t(64), std::size_t(517), std::size_t(1031)})
        for (bool extreme : {false, true}) {
          CAPTURE(M);
          CAPTURE(N);
          CAPTURE(extreme);
          const std::int32_t qmax = q8_act_max(N);
          const std::size_t B = 5, ld = even(N) + 2, ldc = M + 3;
          auto Q = rnd_q(M * N, 7);
          auto X = rnd_x(B, N, ld, qmax, 8);
          if (extreme) {  // the largest magnitudes allowed, all one sign: the sum closest to 2^31
            for (auto& q : Q) q = 127;
            for (std::size_t b = 0; b < B; ++b)
              for (std::size_t n = 0; n < N; ++n) X[b * ld + n] = std::int16_t(b % 2 ? -qmax : qmax);
          }
          std::vector<std::int8_t> P(q8_packed_size(M, N));
          q8_pack(Q.data(), M, N, P.data());
          const std::vector<float> ones(std::max(M, B), 1.f);
          std::vector<float> C(B * ldc, -1.f);
          t->gemm_q8(X.data(), ld, ones.data(), P.data(), ones.data(), nullptr, C.data(), ldc, B, M, N);
          for (std::size_t b = 0; b < B; ++b)
            for (std::size_t m = 0; m < M; ++m) {
              std::int64_t s = 0;
              for (std::size_t n = 0; n < N; ++n) s += std::int64_t(Q[m * N + n]) * X[b * ld + n];
              REQUIRE(std::llabs(s) <= std::numeric_limits<std::int32_t>::max());
              if (C[b * ldc + m] != float(s))
                FAIL_CHECK("row " << b << ", output " << m << ": " << C[b * ldc + m] << " != " << s);
            }
          for (std::size_t b = 0; b < B; ++b)  // nothing past M in a row of C
            for (std::size_t m = M; m < ldc; ++m) CHECK(C[b * ldc + m] == -1.f);
        }
  }
}

TEST_CASE("q8: gemm_q8 gives the reference's bits on every arch, any rows, strides, scales and bias") {
  for (const simd::Q8Table* t : simd::runnable_q8_tables()) {
    CAPTURE(t->name);
    for (std::size_t M : kSizes)
      for (std::size_t N :
           {std::size_t(1), std::size_t(2), std::size_t(5), std::size_t(16), std::size_t(33), std::size_t(130)}) {
        CAPTURE(M);
        CAPTURE(N);
        const std::int32_t qmax = q8_act_max(N);
        auto Q = rnd_q(M * N, 11);
        std::vector<std::int8_t> P(q8_packed_size(M, N));
        q8_pack(Q.data(), M, N, P.data());
        auto ws = rnd(M, 12, 0.01f), bias = rnd(M, 13);
        for (auto& w : ws) w = std::fabs(w);
        ws[M / 2] = 0.f;  // a zero row
        for (std::size_t B :
             {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(4), std::size_t(5), std::size_t(9),
              std::size_t(37)}) {  // 37: two blocks of rows that share a panel's read, then a ragged one
          CAPTURE(B);
          const std::size_t ld = even(N) + 4, ldc = M + 1;
          auto X = rnd_x(B, N, ld, qmax, 14);
          auto xs = rnd(B, 15, 1e-3f);
          for (auto& x : xs) x = std::fabs(x);
          for (const float* b : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
            std::vector<float> got(B * ldc, 7.f), want(B * ldc, 7.f);
            t->gemm_q8(X.data(), ld, xs.data(), P.data(), ws.data(), b, got.data(), ldc, B, M, N);
            ref::gemm_q8(X.data(), ld, xs.data(), P.data(), ws.data(), b, want.data(), ldc, B, M, N);
            check_same_bits(got, want);
          }
        }
      }
  }
}

TEST_CASE("q8: a NaN activation scale (a row holding inf or NaN) gives NaN outputs on every arch, as the reference") {
  for (const simd::Q8Table* t : simd::runnable_q8_tables()) {
    CAPTURE(t->name);
    const std::size_t M = 40, N = 10;
    auto Q = rnd_q(M * N, 21);
    std::vector<std::int8_t> P(q8_packed_size(M, N));
    q8_pack(Q.data(), M, N, P.data());
    std::vector<float> ws(M, 0.01f), bias = rnd(M, 22);
    std::vector<std::int16_t> X(2 * N, 0);
    const float xs[2] = {NAN, 0.5f};
    std::vector<float> got(2 * M), want(2 * M);
    t->gemm_q8(X.data(), N, xs, P.data(), ws.data(), bias.data(), got.data(), M, 2, M, N);
    ref::gemm_q8(X.data(), N, xs, P.data(), ws.data(), bias.data(), want.data(), M, 2, M, N);
    for (std::size_t m = 0; m < M; ++m) CHECK(std::isnan(got[m]));
    for (std::size_t m = 0; m < M; ++m) CHECK(got[M + m] == bias[m]);  // q = 0: the bias alone
    check_same_bits(got, want);
  }
}

TEST_CASE("q8: quantize_i16 gives the reference's integers and scale on every arch, edge rows included") {
  for (const simd::Q8Table* t : simd::runnable_q8_tables()) {
    CAPTURE(t->name);
    for (std::size_t n : kSizes)
      for (std::int32_t qmax : {std::int32_t(32767), q8_act_max(1024), std::int32_t(129), std::int32_t(1)}) {
        CAPTURE(n);
        CAPTURE(qmax);
        std::vector<std::vector<float>> rows = {rnd(n, 31), rnd(n, 32, 1e-20f), rnd(n, 33, 3e4f),
                                                std::vector<float>(n, 0.f)};
        // Halfway cases: x * (qmax / a) lands on k + 0.5 when a = qmax and x = k + 0.5.
        std::vector<float> half(n);
        for (std::size_t i = 0; i < n; ++i) half[i] = float(int(i % 7) - 3) + 0.5f;
        half[0] = float(qmax);
        rows.push_back(half);
        rows.push_back(std::vector<float>(n, 1e-31f));  // below kQ8MinAbs: zero
        auto with = [&](float v) {
          auto r = rnd(n, 34);
          r[n / 2] = v;
          return r;
        };
        rows.push_back(with(INFINITY));
        rows.push_back(with(-INFINITY));
        rows.push_back(with(NAN));
        for (std::size_t k = 0; k < rows.size(); ++k) {
          CAPTURE(k);
          std::vector<std::int16_t> a(n, 5), b(n, 6);
          const float sa = t->quantize_i16(rows[k].data(), n, qmax, a.data());
          const float sb = ref::quantize_i16(rows[k].data(), n, qmax, b.data());
          CHECK(bits(sa) == bits(sb));
          CHECK(a == b);
          for (auto q : a) CHECK(std::abs(int(q)) <= qmax);
        }
        std::vector<std::int16_t> q(n, 5);
        CHECK(t->quantize_i16(rows[3].data(), n, qmax, q.data()) == 0.f);  // zeros
        CHECK(q == std::vector<std::int16_t>(n, 0));
        CHECK(t->quantize_i16(rows[5].data(), n, qmax, q.data()) == 0.f);       // under kQ8MinAbs
        CHECK(std::isnan(t->quantize_i16(rows[6].data(), n, qmax, q.data())));  // inf
        CHECK(q == std::vector<std::int16_t>(n, 0));
        CHECK(std::isnan(t->quantize_i16(rows[8].data(), n, qmax, q.data())));  // NaN
      }
  }
}

TEST_CASE("q8: quantize_i16 round trip: |x - q s| <= s / 2, the largest |x| maps to qmax, halfway rounds to even") {
  for (std::size_t n : kSizes) {
    CAPTURE(n);
    for (float scale : {1e-6f, 1.f, 1e6f}) {
      const auto x = rnd(n, 41, scale);
      const std::int32_t qmax = 32767;
      std::vector<std::int16_t> q(n);
      const float s = kernels::quantize_i16(x.data(), n, qmax, q.data());
      float a = 0.f;
      for (float v : x) a = std::max(a, std::fabs(v));
      CHECK(s == a / float(qmax));
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(std::fabs(x[i] - float(q[i]) * s) <= 0.5001f * s + 1e-6f * std::fabs(x[i]));
        if (std::fabs(x[i]) == a) CHECK(std::abs(int(q[i])) == qmax);
      }
    }
  }
  // x = k + 0.5 with a = qmax: the scale is 1 and halfway values go to the even neighbour.
  const float x[4] = {32767.f, 2.5f, 3.5f, -2.5f};
  std::int16_t q[4];
  CHECK(kernels::quantize_i16(x, 4, 32767, q) == 1.f);
  CHECK(q[1] == 2);
  CHECK(q[2] == 4);
  CHECK(q[3] == -2);
}

TEST_CASE("q8: weight rows quantise within half a step, the largest to +-127, a zero row to scale 0") {
  const std::size_t M = 6, N = 37;
  auto W = rnd(M * N, 51);
  for (std::size_t n = 0; n < N; ++n) W[2 * N + n] = 0.f;      // a row of zeros
  for (std::size_t n = 0; n < N; ++n) W[3 * N + n] *= 1e-30f;  // tiny, still representable
  W[4 * N + 5] = 1e30f;                                        // one huge weight beside small ones
  for (std::size_t n = 0; n < N; ++n) W[5 * N + n] = 1e-44f;   // subnormal: scale underflows to 0
  std::vector<std::int8_t> Q(M * N);
  std::vector<float> s(M);
  q8_quantize_rows(W.data(), M, N, Q.data(), s.data());
  for (std::size_t m = 0; m < M; ++m) {
    CAPTURE(m);
    float a = 0.f;
    for (std::size_t n = 0; n < N; ++n) a = std::max(a, std::fabs(W[m * N + n]));
    CHECK(s[m] == a / 127.f);
    bool hit = false;
    for (std::size_t n = 0; n < N; ++n) {
      const float w = W[m * N + n];
      CHECK(Q[m * N + n] >= -127);
      if (s[m] == 0.f) {
        CHECK(Q[m * N + n] == 0);
        continue;
      }
      CHECK(std::fabs(w - float(Q[m * N + n]) * s[m]) <= 0.5001f * s[m]);
      hit = hit || std::abs(int(Q[m * N + n])) == 127;
    }
    if (s[m] > 0.f) CHECK(hit);
  }
  CHECK(s[2] == 0.f);
  CHECK(s[5] == 0.f);
}

TEST_CASE("q8: an int8 product stays within the bound its two roundings allow of the f32 product") {
  // |y - y8| <= sum_n |w_n| dx + |x_n| dw_m + dw_m dx, with dw_m = s_m / 2 and dx = s_x / 2,
  // plus float rounding of the f32 product itself.
  const std::size_t M = 50, N = 300, B = 3;
  const auto W = rnd(M * N, 61, 0.2f), X = rnd(B * N, 62, 3.f), bias = rnd(M, 63);
  std::vector<std::int8_t> Q(M * N), P(q8_packed_size(M, N));
  std::vector<float> ws(M);
  q8_quantize_rows(W.data(), M, N, Q.data(), ws.data());
  q8_pack(Q.data(), M, N, P.data());
  std::vector<std::int16_t> Xq(B * N);
  std::vector<float> xs(B);
  for (std::size_t b = 0; b < B; ++b)
    xs[b] = kernels::quantize_i16(X.data() + b * N, N, q8_act_max(N), Xq.data() + b * N);
  std::vector<float> y8(B * M);
  kernels::gemm_q8(Xq.data(), N, xs.data(), P.data(), ws.data(), bias.data(), y8.data(), M, B, M, N);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t m = 0; m < M; ++m) {
      double y = bias[m], bound = 1e-5 * (1 + std::fabs(bias[m]));
      for (std::size_t n = 0; n < N; ++n) {
        const double w = W[m * N + n], x = X[b * N + n];
        y += w * x;
        bound += std::fabs(w) * xs[b] / 2 + std::fabs(x) * ws[m] / 2 + ws[m] * xs[b] / 4 + 1e-6 * std::fabs(w * x);
      }
      CHECK(std::fabs(y8[b * M + m] - y) <= bound);
    }
}

// ---- the 7-bit product's layout and reference (relaxed SIMD's int8 dot: kernels.hpp) ----------

TEST_CASE("q8r: the 7-bit layout puts (m, n) where kernels.hpp says, padding zero, corr 64 times each row's sum") {
  for (std::size_t M : {std::size_t(1), std::size_t(31), std::size_t(32), std::size_t(45)})
    for (std::size_t N : {std::size_t(1), std::size_t(4), std::size_t(7), std::size_t(9)}) {
      CAPTURE(M);
      CAPTURE(N);
      const auto Q = rnd_q(M * N, unsigned(M * 100 + N + 1));
      const std::size_t R = kQ8Panel, panels = (M + R - 1) / R, N4 = (N + 3) / 4 * 4;
      CHECK(q8r_packed_size(M, N) == panels * R * N4);
      std::vector<std::int8_t> P(q8r_packed_size(M, N), 99);
      std::vector<std::int32_t> corr(M, 12345);
      q8r_pack(Q.data(), M, N, P.data(), corr.data());
      for (std::size_t m = 0; m < panels * R; ++m)
        for (std::size_t n = 0; n < N4; ++n) {
          const std::size_t at = (m / R) * R * N4 + (n / 4) * 4 * R + (m % R) * 4 + n % 4;
          const std::int8_t want = m < M && n < N ? Q[m * N + n] : 0;
          if (P[at] != want)
            FAIL_CHECK("(" << m << ", " << n << ") at " << at << ": " << int(P[at]) << " != " << int(want));
        }
      for (std::size_t m = 0; m < M; ++m) {
        std::int32_t s = 0;
        for (std::size_t n = 0; n < N; ++n) s += Q[m * N + n];
        CHECK(corr[m] == 64 * s);
      }
    }
  // The offset rows: q + 64, then 64 up to a whole quad.
  const std::int16_t q[5] = {-63, 0, 63, 1, -1};
  std::uint8_t u[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  q8r_offset(q, 5, u);
  const std::uint8_t want[8] = {1, 64, 127, 65, 63, 64, 64, 64};
  CHECK(std::memcmp(u, want, 8) == 0);
  CHECK(kQ8RMaxCols * 127 * 127 <= std::size_t(INT32_MAX));
}

TEST_CASE("q8r: ref::gemm_q8r on offset activations gives gemm_q8's bits for the same activations at qmax 63") {
  // Sum over n of q (u - 64) is sum of q x: the correction is exact, so the two layouts give the same
  // float from the same integer, with every magnitude at its bound too.
  for (std::size_t M : kSizes)
    for (std::size_t N : {std::size_t(1), std::size_t(3), std::size_t(4), std::size_t(5), std::size_t(33),
                          std::size_t(130), std::size_t(1031)})
      for (bool extreme : {false, true}) {
        CAPTURE(M);
        CAPTURE(N);
        CAPTURE(extreme);
        const std::size_t B = 5, ld = even(N) + 2, ldu = (N + 3) / 4 * 4 + 4, ldc = M + 1;
        auto Q = rnd_q(M * N, 21);
        auto X = rnd_x(B, N, ld, kQ8RActMax, 22);
        if (extreme) {
          for (std::size_t i = 0; i < Q.size(); ++i) Q[i] = std::int8_t(i % 3 ? 127 : -127);
          for (std::size_t b = 0; b < B; ++b)
            for (std::size_t n = 0; n < N; ++n) X[b * ld + n] = std::int16_t(b % 2 ? -63 : 63);
        }
        std::vector<std::int8_t> P(q8_packed_size(M, N)), PR(q8r_packed_size(M, N));
        std::vector<std::int32_t> corr(M);
        q8_pack(Q.data(), M, N, P.data());
        q8r_pack(Q.data(), M, N, PR.data(), corr.data());
        std::vector<std::uint8_t> U(B * ldu, 200);
        for (std::size_t b = 0; b < B; ++b) q8r_offset(X.data() + b * ld, N, U.data() + b * ldu);
        auto ws = rnd(M, 23, 0.01f), bias = rnd(M, 24), xs = rnd(B, 25, 1e-3f);
        for (auto& w : ws) w = std::fabs(w);
        for (auto& x : xs) x = std::fabs(x);
        ws[M / 2] = 0.f;                                      // a zero row
        xs[B - 1] = std::numeric_limits<float>::quiet_NaN();  // a row that held inf or NaN
        for (const float* b : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
          std::vector<float> got(B * ldc, 7.f), want(B * ldc, 7.f);
          ref::gemm_q8r(U.data(), ldu, xs.data(), PR.data(), corr.data(), ws.data(), b, got.data(), ldc, B, M, N);
          ref::gemm_q8(X.data(), ld, xs.data(), P.data(), ws.data(), b, want.data(), ldc, B, M, N);
          check_same_bits(got, want);
        }
      }
}
