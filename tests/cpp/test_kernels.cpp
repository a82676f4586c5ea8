// SIMD kernels against the reference loops on the sizes where vector bodies and scalar tails meet.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/dispatch.hpp"
#include "kernels/kernels.hpp"
#include "test_util.hpp"

#ifndef ATTNSEQ_EXPECT_ARCH
#define ATTNSEQ_EXPECT_ARCH ""
#endif

using namespace attnseq;

namespace {
const std::size_t kSizes[] = {1, 3, 4, 5, 15, 16, 17, 33, 257};

using test::rnd;

void check_close(const std::vector<float>& a, const std::vector<float>& b, float tol) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("index ", i);
    CHECK(std::abs(a[i] - b[i]) <= tol * (1.f + std::abs(b[i])));
  }
}
}  // namespace

TEST_CASE("kernels: arch is the intended one") {
  const std::string arch =
      std::string("xsimd arch: ") + simd::arch_name() + (kernels::uses_reference ? " (reference routing)" : "");
  MESSAGE(arch);
  const std::string expect = ATTNSEQ_EXPECT_ARCH;  // set per build in CMakeLists.txt
  const std::string name = simd::arch_name();
  const char* forced = std::getenv("ATTNSEQ_ARCH");
  if (expect == "best") {
    // Run-time choice: the first runnable table is the best this CPU runs; ATTNSEQ_ARCH may lower it.
    const auto& tables = simd::runnable_tables();
    REQUIRE_FALSE(tables.empty());
    CHECK(std::string(tables.back()->name) == "sse2");
    if (forced && *forced)
      CHECK(simd::arch_matches(simd::active(), forced));
    else
      CHECK(name == tables.front()->name);
  } else if (!expect.empty()) {
    CHECK(name.rfind(expect, 0) == 0);
  } else {
    CHECK(name != "sse2");  // -march=native on any x86-64 CPU of the last decade
  }
#ifdef ATTNSEQ_REFERENCE_KERNELS
  CHECK(kernels::uses_reference);
#else
  CHECK_FALSE(kernels::uses_reference);
#endif
}

TEST_CASE("kernels: dot, axpy, add, mul match reference, on every arch") {
  for (const simd::KernelTable* tp : simd::runnable_tables()) {  // every arch this CPU runs
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t n : kSizes) {
      CAPTURE(n);
      auto a = rnd(n, 1), b = rnd(n, 2);
      CHECK(t.dot(a.data(), b.data(), n) == doctest::Approx(ref::dot(a.data(), b.data(), n)).epsilon(1e-5));
      auto y1 = b, y2 = b;
      t.axpy(0.7f, a.data(), y1.data(), n);
      ref::axpy(0.7f, a.data(), y2.data(), n);
      check_close(y1, y2, 1e-6f);
      y1 = b, y2 = b;
      t.add(a.data(), y1.data(), n);
      ref::add(a.data(), y2.data(), n);
      check_close(y1, y2, 0.f);
      t.mul(a.data(), b.data(), y1.data(), n);
      ref::mul(a.data(), b.data(), y2.data(), n);
      check_close(y1, y2, 0.f);
    }
  }
}

TEST_CASE("kernels: gemv, gemv_t, gemm_nt, gemm_acc match reference") {
  for (const simd::KernelTable* tp : simd::runnable_tables()) {  // every arch this CPU runs
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t M : kSizes)
      for (std::size_t N : {std::size_t(1), std::size_t(5), std::size_t(17), std::size_t(33), M}) {
        CAPTURE(M);
        CAPTURE(N);
        auto W = rnd(M * N, 3), x = rnd(N, 4), y0 = rnd(M, 5);
        for (bool acc : {false, true}) {
          auto y1 = y0, y2 = y0;
          t.gemv(W.data(), x.data(), y1.data(), M, N, acc);
          ref::gemv(W.data(), x.data(), y2.data(), M, N, acc);
          check_close(y1, y2, 1e-5f);
        }
        auto xm = rnd(M, 6), z1 = rnd(N, 7), z2 = z1;
        t.gemv_t(W.data(), xm.data(), z1.data(), M, N);
        ref::gemv_t(W.data(), xm.data(), z2.data(), M, N);
        check_close(z1, z2, 1e-5f);
        for (std::size_t B : {std::size_t(1), std::size_t(3), std::size_t(5)}) {
          const std::size_t ldx = N + 2, ldc = M + 1;  // strided rows, as the decoder uses them
          auto X = rnd(B * ldx, 8), C1 = rnd(B * ldc, 9), C2 = C1;
          t.gemm_nt(X.data(), ldx, W.data(), C1.data(), ldc, B, M, N, true);
          ref::gemm_nt(X.data(), ldx, W.data(), C2.data(), ldc, B, M, N, true);
          check_close(C1, C2, 1e-5f);
          // dW += dY^T X: A = dY (B, M) read transposed, Bm = X (B, N) with a stride; C (M, N)
          auto A = rnd(B * M, 10), G = rnd(B * ldx, 11), D1 = rnd(M * N, 12), D2 = D1;
          t.gemm_acc(A.data(), 1, M, G.data(), ldx, D1.data(), N, M, N, B);
          ref::gemm_acc(A.data(), 1, M, G.data(), ldx, D2.data(), N, M, N, B);
          check_close(D1, D2, 1e-5f);
          // dX += dY W: A = dY (B, M) with a row stride, Bm = W (M, N); C (B, N) strided
          auto Y = rnd(B * ldc, 13), E1 = rnd(B * ldx, 14), E2 = E1;
          t.gemm_acc(Y.data(), ldc, 1, W.data(), N, E1.data(), ldx, B, N, M);
          ref::gemm_acc(Y.data(), ldc, 1, W.data(), N, E2.data(), ldx, B, N, M);
          check_close(E1, E2, 1e-5f);
        }
      }
  }
}

TEST_CASE("kernels: sigmoid, tanh, softmax, logsumexp, max match reference") {
  for (const simd::KernelTable* tp : simd::runnable_tables()) {  // every arch this CPU runs
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t n : kSizes) {
      CAPTURE(n);
      auto x = rnd(n, 13, 12.f);
      x[0] = n > 1 ? 40.f : -40.f;  // saturating inputs too
      auto a = x, b = x;
      t.sigmoid(a.data(), n);
      ref::sigmoid(b.data(), n);
      check_close(a, b, 2e-6f);
      a = x, b = x;
      t.tanh(a.data(), n);
      ref::tanh(b.data(), n);
      check_close(a, b, 2e-6f);
      CHECK(t.max(x.data(), n) == ref::max(x.data(), n));
      CHECK(t.logsumexp(x.data(), n) == doctest::Approx(ref::logsumexp(x.data(), n)).epsilon(1e-6));
      for (std::size_t valid : {std::size_t(1), (n + 1) / 2, n}) {
        a = x, b = x;
        t.masked_softmax(a.data(), n, valid);
        ref::masked_softmax(b.data(), n, valid);
        check_close(a, b, 2e-6f);
        float s = 0;
        for (std::size_t i = 0; i < n; ++i) s += a[i];
        CHECK(s == doctest::Approx(1.f).epsilon(1e-5));
        for (std::size_t i = valid; i < n; ++i) CHECK(a[i] == 0.f);
      }
    }
  }
}

TEST_CASE("kernels: softmax and logsumexp hold over a vocabulary's whole range, -inf and NaN included") {
  // The vector exp meets x - max(x) <= 0 only; far below the maximum (under -80) it gives 0 for a
  // value under 2e-35, which no float sum of a row that holds the maximum's exp(0) = 1 can see.
  for (const simd::KernelTable* tp : simd::runnable_tables()) {
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t n : {std::size_t(7), std::size_t(64), std::size_t(1000), std::size_t(1003)}) {
      CAPTURE(n);
      auto x = rnd(n, 21, 1.f);
      for (std::size_t i = 0; i < n; ++i) x[i] = 20.f - 170.f * (0.5f + 0.5f * x[i]);  // [-150, 20]
      x[n / 2] = 20.f;
      x[1] = -INFINITY;
      x[n - 1] = -1e30f;
      CHECK(t.logsumexp(x.data(), n) == doctest::Approx(ref::logsumexp(x.data(), n)).epsilon(1e-6));
      auto a = x, b = x;
      t.masked_softmax(a.data(), n, n);
      ref::masked_softmax(b.data(), n, n);
      for (std::size_t i = 0; i < n; ++i) {
        INFO("index ", i, " x ", x[i]);
        if (b[i] > 1e-30f)
          CHECK(std::abs(a[i] - b[i]) <= 4e-7f * b[i]);  // a few float roundings
        else
          CHECK(a[i] <= 1e-30f);
      }
      CHECK(a[1] == 0.f);
      auto nan = x;
      nan[n / 3] = NAN;
      CHECK(std::isnan(t.logsumexp(nan.data(), n)));
    }
  }
}

TEST_CASE("kernels: tanh and sigmoid stay within a few float roundings of the true value everywhere") {
  // Dense over [-20, 20] (both sides of the polynomial's edge at |x| = 0.625), tiny and huge values,
  // signed zeros, infinities and NaN; the true value from double precision.
  std::vector<float> x;
  for (int i = -200000; i <= 200000; ++i) x.push_back(float(i) * 1e-4f);
  for (float v : {0.625f, std::nextafter(0.625f, 0.f), 1e-30f, 1e-40f, 50.f, 100.f, 1e30f, INFINITY}) {
    x.push_back(v);
    x.push_back(-v);
  }
  x.push_back(-0.f);
  for (const simd::KernelTable* tp : simd::runnable_tables()) {
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    auto th = x, sg = x;
    t.tanh(th.data(), th.size());
    t.sigmoid(sg.data(), sg.size());
    double worst_t = 0, worst_s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double want_t = std::tanh(double(x[i])), want_s = 1.0 / (1.0 + std::exp(-double(x[i])));
      if (want_t != 0)
        worst_t = std::max(worst_t, std::abs(th[i] - want_t) / std::abs(want_t));
      else
        CHECK(th[i] == 0.f);
      worst_s = std::max(worst_s, std::abs(sg[i] - want_s));  // sigmoid: absolute, it is (1 + tanh(x/2)) / 2
      CHECK(std::signbit(th[i]) == std::signbit(x[i]));
    }
    CHECK(worst_t < 3e-7);
    CHECK(worst_s < 1.2e-7);
    float nan[4] = {NAN, NAN, NAN, NAN};
    t.tanh(nan, 4);
    CHECK(std::isnan(nan[0]));
    t.sigmoid(nan + 1, 3);
    CHECK(std::isnan(nan[1]));
  }
}

TEST_CASE("kernels: argmax and topk agree with reference, ties to the lower index") {
  for (const simd::KernelTable* tp : simd::runnable_tables()) {  // every arch this CPU runs
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t n : kSizes) {
      CAPTURE(n);
      auto x = rnd(n, 14);
      for (std::size_t i = 0; i < n; i += 3) x[i] = 0.5f;  // ties
      CHECK(t.argmax(x.data(), n) == ref::argmax(x.data(), n));
      for (std::size_t k : {std::size_t(1), std::min<std::size_t>(4, n), n}) {
        std::vector<std::int32_t> i1(k), i2(k);
        std::vector<float> v1(k), v2(k);
        t.topk(x.data(), n, k, i1.data(), v1.data());
        ref::topk(x.data(), n, k, i2.data(), v2.data());
        CHECK(i1 == i2);
        CHECK(v1 == v2);
        // Rising values: every block holds a new top value, so the vector kernel looks each one over.
        std::vector<float> up(n);
        for (std::size_t i = 0; i < n; ++i) up[i] = float(i % 7) + 0.01f * float(i);
        t.topk(up.data(), n, k, i1.data(), v1.data());
        ref::topk(up.data(), n, k, i2.data(), v2.data());
        CHECK(i1 == i2);
        CHECK(v1 == v2);
      }
    }
  }
}

TEST_CASE("kernels: gemm_acc covers every tile shape (rows 1-9, columns around the vector widths)") {
  for (const simd::KernelTable* tp : simd::runnable_tables()) {
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t M = 1; M <= 9; ++M)
      for (std::size_t N : {1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100})
        for (std::size_t K : {1, 2, 13}) {
          CAPTURE(M);
          CAPTURE(N);
          CAPTURE(K);
          auto A = rnd(M * K, 31), Bm = rnd(K * N, 32), C1 = rnd(M * N, 33), C2 = C1;
          t.gemm_acc(A.data(), K, 1, Bm.data(), N, C1.data(), N, M, N, K);
          ref::gemm_acc(A.data(), K, 1, Bm.data(), N, C2.data(), N, M, N, K);
          check_close(C1, C2, 1e-5f);
        }
  }
}

TEST_CASE("kernels: gemm_acc with A read transposed (dW, copied into panels) gives the bits of A read by rows") {
  // dW += dY^T X reads dY a whole row apart per k; gemm_acc copies it into panels first. The sums must
  // be the same operations in the same order as for the same matrix stored the other way round.
  for (const simd::KernelTable* tp : simd::runnable_tables()) {
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t M : {16, 17, 18, 19, 23, 64, 130})
      for (std::size_t N : {8, 16, 31, 64, 65, 100, 130, 1030})  // 1030: k runs in several chunks (K 300)
        for (std::size_t K : {1, 5, 37, 300}) {
          CAPTURE(M);
          CAPTURE(N);
          CAPTURE(K);
          const std::size_t ld = M + 3;                  // dY's row stride
          auto Y = rnd(K * ld, 41), X = rnd(K * N, 42);  // dY (K, ld), X (K, N)
          std::vector<float> At(M * K);                  // the same A (M, K), stored by rows
          for (std::size_t i = 0; i < M; ++i)
            for (std::size_t k = 0; k < K; ++k) At[i * K + k] = Y[k * ld + i];
          auto C1 = rnd(M * N, 43), C2 = C1;
          t.gemm_acc(Y.data(), 1, ld, X.data(), N, C1.data(), N, M, N, K);
          t.gemm_acc(At.data(), K, 1, X.data(), N, C2.data(), N, M, N, K);
          CHECK(std::memcmp(C1.data(), C2.data(), C1.size() * sizeof(float)) == 0);
        }
  }
}

TEST_CASE("kernels: packed gemm with accumulation (training's dX += dY W) gives gemm_acc's bits") {
  // Backward multiplies by W through W^T packed (nn::linear_backward): each sum must start from C and
  // add the same products in the same order as gemm_acc, for one row, a few, and blocks of rows, for
  // panels cut short, and for sums longer than a slice of columns. Widths are whole vectors of every
  // arch (gemm_acc's last columns narrower than a vector are a scalar loop); other widths are held to
  // the reference loops.
  for (const simd::KernelTable* tp : simd::runnable_tables()) {
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t out : {1, 5, 16, 48, 64, 80, 144, 150})
      for (std::size_t K : {1, 19, 300})
        for (std::size_t B : {1, 2, 5, 21, 37, 150}) {  // 150: two blocks of 64 rows and a ragged one
          CAPTURE(out);
          CAPTURE(K);
          CAPTURE(B);
          const std::size_t ldy = K + 2, ldc = out + 3;
          auto W = rnd(K * out, 61), dY = rnd(B * ldy, 62), C1 = rnd(B * ldc, 63), C2 = C1, C3 = C1;
          std::vector<float> Wt(out * K);  // W^T (out, K)
          for (std::size_t k = 0; k < K; ++k)
            for (std::size_t j = 0; j < out; ++j) Wt[j * K + k] = W[k * out + j];
          std::vector<float> P(t.packed_size(out, K));
          t.pack(Wt.data(), out, K, P.data());
          t.gemm_packed_acc(dY.data(), ldy, P.data(), C1.data(), ldc, B, out, K);
          t.gemm_acc(dY.data(), ldy, 1, W.data(), out, C2.data(), ldc, B, out, K);
          ref::gemm_acc(dY.data(), ldy, 1, W.data(), out, C3.data(), ldc, B, out, K);
          if (out % 16 == 0) CHECK(std::memcmp(C1.data(), C2.data(), C1.size() * sizeof(float)) == 0);
          check_close(C1, C3, 1e-5f);
          // again: the panel order alternates from call to call, and changes nothing
          auto again = C2;
          t.gemm_acc(dY.data(), ldy, 1, W.data(), out, C2.data(), ldc, B, out, K);
          t.gemm_packed_acc(dY.data(), ldy, P.data(), again.data(), ldc, B, out, K);
          if (out % 16 == 0) CHECK(std::memcmp(again.data(), C2.data(), C2.size() * sizeof(float)) == 0);
          // the reference's own packed product, on the active arch's layout
          if (t.pack_width == simd::pack_width()) {
            auto C4 = C3, C5 = C3;
            ref::gemm_packed_acc(dY.data(), ldy, P.data(), C4.data(), ldc, B, out, K);
            ref::gemm_acc(dY.data(), ldy, 1, W.data(), out, C5.data(), ldc, B, out, K);
            check_close(C4, C5, 1e-5f);
          }
        }
  }
}

TEST_CASE("kernels: pack_transposed gives pack of the transpose, padding included") {
  // Training packs W^T every batch for backward's dY W; it reads W directly, with no transpose made.
  // The layout's panel height is the active arch's (R = 4 x pack_width): M and N around it and ragged.
  const std::size_t R = 4 * simd::pack_width();
  for (std::size_t M : {std::size_t(1), std::size_t(3), R - 1, R, 2 * R + 5})
    for (std::size_t N : {std::size_t(1), std::size_t(7), R, R + 1, 3 * R - 2, std::size_t(130)}) {
      CAPTURE(M);
      CAPTURE(N);
      auto W = rnd(M * N, 51);
      std::vector<float> Wt(N * M);
      for (std::size_t m = 0; m < M; ++m)
        for (std::size_t n = 0; n < N; ++n) Wt[n * M + m] = W[m * N + n];
      std::vector<float> want(kernels::packed_size(N, M), -1.f), got(want.size(), -2.f);
      kernels::pack(Wt.data(), N, M, want.data());
      kernels::pack_transposed(W.data(), M, N, got.data());
      CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
      // and pack itself, blocked by columns, against the layout's definition
      std::vector<float> P(kernels::packed_size(M, N), -3.f);
      kernels::pack(W.data(), M, N, P.data());
      bool same = true;
      for (std::size_t k = 0; k < (M + R - 1) / R; ++k)
        for (std::size_t n = 0; n < N; ++n)
          for (std::size_t r = 0; r < R; ++r) {
            const std::size_t m = k * R + r;
            same = same && P[k * R * N + n * R + r] == (m < M ? W[m * N + n] : 0.f);
          }
      CHECK(same);
    }
}

TEST_CASE("kernels: packed gemm gives a row the same bits whatever the rows multiplied with it") {
  // Beam search and batches multiply several rows at once; a hypothesis must score the same as alone.
  for (const simd::KernelTable* tp : simd::runnable_tables()) {
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    // N = 700: longer than a slice of columns of every arch (96 to 384), cut unevenly.
    for (std::size_t M : {std::size_t(5), std::size_t(64), std::size_t(70)})
      for (std::size_t N : {std::size_t(3), std::size_t(40), std::size_t(700)}) {
        auto W = rnd(M * N, 41), bias = rnd(M, 42);
        std::vector<float> P(t.packed_size(M, N));
        t.pack(W.data(), M, N, P.data());
        // 7 rows: groups and a leftover; 37: two whole groups of 16 (the ragged last panel's scratch rows)
        // then a ragged one; 150: two whole blocks of 64 rows sharing a panel read, then a ragged one.
        for (std::size_t B : {std::size_t(7), std::size_t(37), std::size_t(150)}) {
          CAPTURE(B);
          const std::size_t ldx = N + 3, ldc = M + 1;
          auto X = rnd(B * ldx, 43);
          std::vector<float> all(B * ldc, 0.f), one(ldc, 0.f);
          t.gemm_packed(X.data(), ldx, P.data(), bias.data(), all.data(), ldc, B, M, N);
          for (std::size_t b = 0; b < B; ++b) {
            t.gemm_packed(X.data() + b * ldx, ldx, P.data(), bias.data(), one.data(), ldc, 1, M, N);
            CAPTURE(b);
            CHECK(std::equal(one.begin(), one.begin() + M, all.begin() + b * ldc));
          }
        }
      }
  }
}

TEST_CASE("kernels: packed gemm gives the same bits on consecutive calls (their panel order alternates)") {
  // gemm_packed sweeps the panels forwards on one call and backwards on the next (so that a matrix
  // larger than the cache starts each pass where the last one ended): the order must change nothing.
  for (const simd::KernelTable* tp : simd::runnable_tables()) {
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    const std::size_t R = 4 * t.pack_width;  // rows per panel
    for (std::size_t M : {std::size_t(3), R, 2 * R, 3 * R, 3 * R + 5, 4 * R - 1})
      for (std::size_t B : {std::size_t(1), std::size_t(2), std::size_t(5), std::size_t(21)}) {
        CAPTURE(M);
        CAPTURE(B);
        const std::size_t N = 19;
        auto W = rnd(M * N, 51), bias = rnd(M, 52), X = rnd(B * N, 53);
        std::vector<float> P(t.packed_size(M, N));
        t.pack(W.data(), M, N, P.data());
        std::vector<float> first(B * M), again(B * M), plain(B * M);
        t.gemm_packed(X.data(), N, P.data(), bias.data(), first.data(), M, B, M, N);
        for (int call = 0; call < 3; ++call) {
          std::fill(again.begin(), again.end(), -1.f);
          t.gemm_packed(X.data(), N, P.data(), bias.data(), again.data(), M, B, M, N);
          CHECK(again == first);
        }
        ref::gemm_nt(X.data(), N, W.data(), plain.data(), M, B, M, N, false);
        for (std::size_t b = 0; b < B; ++b)
          for (std::size_t m = 0; m < M; ++m) plain[b * M + m] += bias[m];
        check_close(first, plain, 1e-5f);
      }
  }
}

TEST_CASE("kernels: packed gemm matches the plain product, with and without bias") {
  for (const simd::KernelTable* tp : simd::runnable_tables()) {  // every arch this CPU runs
    const simd::KernelTable& t = *tp;
    CAPTURE(t.name);
    for (std::size_t M : kSizes)
      for (std::size_t N : kSizes) {
        CAPTURE(M);
        CAPTURE(N);
        auto W = rnd(M * N, 21), bias = rnd(M, 22);
        std::vector<float> P1(t.packed_size(M, N)), P2(ref::packed_size(M, N));
        t.pack(W.data(), M, N, P1.data());
        ref::pack(W.data(), M, N, P2.data());
        if (t.pack_width == simd::pack_width()) CHECK(P1 == P2);  // the reference reads the active arch's layout
        for (std::size_t B : {std::size_t(1), std::size_t(3), std::size_t(6)}) {
          const std::size_t ldx = N + 1, ldc = M + 2;
          auto X = rnd(B * ldx, 23);
          std::vector<float> want(B * ldc, 0.f), got(B * ldc, 0.f), got_ref(B * ldc, 0.f);
          for (std::size_t b = 0; b < B; ++b) std::copy(bias.begin(), bias.end(), want.begin() + b * ldc);
          ref::gemm_nt(X.data(), ldx, W.data(), want.data(), ldc, B, M, N, true);
          t.gemm_packed(X.data(), ldx, P1.data(), bias.data(), got.data(), ldc, B, M, N);
          ref::gemm_packed(X.data(), ldx, P2.data(), bias.data(), got_ref.data(), ldc, B, M, N);  // active layout
          check_close(got, want, 1e-5f);
          check_close(got_ref, want, 1e-5f);
          t.gemm_packed(X.data(), ldx, P1.data(), nullptr, got.data(), ldc, B, M, N);
          ref::gemm_nt(X.data(), ldx, W.data(), want.data(), ldc, B, M, N, false);
          check_close(got, want, 1e-5f);
        }
      }
  }
}
