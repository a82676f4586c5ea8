// WebAssembly builds: the check the relaxed-SIMD products pass before the engine uses them
// (kernels/dispatch.hpp, use_relaxed_products). Stand-ins for the relaxed module's functions (a
// function pointer is an index into the function table in wasm32, as the module's are) call the
// engine's own product and then spoil its answer in one way each: the check must refuse each spoilt
// one, naming what is wrong, and leave the plain products; and accept answers within the bound.
// tests/js/relaxed.test.mjs runs the real module in Node, tests/browser/relaxed.test.mjs in Chromium.
#include <doctest/doctest.h>

#if defined(__EMSCRIPTEN__)
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/dispatch.hpp"
#include "kernels/kernels.hpp"

namespace attnseq::simd::native {
const KernelTable& table();
}

namespace {

using namespace attnseq;
enum class Spoil { None, Ulp, Far, PastM, BatchRow };
Spoil spoil = Spoil::None;

void spoilt(float* C, std::size_t ldc, std::size_t B, std::size_t M) {
  switch (spoil) {
    case Spoil::None: break;
    case Spoil::Ulp:  // one ulp in each row's first output: within any bound, and the same alone
      for (std::size_t r = 0; r < B; ++r) C[r * ldc] = std::nextafter(C[r * ldc], 1e30f);
      break;
    case Spoil::Far: C[0] += 0.01f; break;
    case Spoil::PastM:
      if (ldc > M) C[M] = 42.f;
      break;
    case Spoil::BatchRow:  // the last row of a batch of several, by a part in ten million
      if (B > 1) C[(B - 1) * ldc] *= 1.f + 1e-7f;
      break;
  }
}
void gp(const float* X, std::size_t ldx, const float* P, const float* bias, float* C, std::size_t ldc, std::size_t B,
        std::size_t M, std::size_t N) {
  simd::native::table().gemm_packed(X, ldx, P, bias, C, ldc, B, M, N);
  spoilt(C, ldc, B, M);
}
void gpa(const float* X, std::size_t ldx, const float* P, float* C, std::size_t ldc, std::size_t B, std::size_t M,
         std::size_t N) {
  simd::native::table().gemm_packed_acc(X, ldx, P, C, ldc, B, M, N);
  spoilt(C, ldc, B, M);
}

}  // namespace

TEST_CASE("relaxed products: the check accepts answers within the bound and refuses spoilt ones, by name") {
  for (Spoil s : {Spoil::None, Spoil::Ulp}) {
    spoil = s;
    const std::string why = simd::use_relaxed_products(&gp, &gpa);
    CHECK_MESSAGE(why.empty(), why);
    CHECK(simd::relaxed_products());
    // In use: the engine's products are these now (one ulp off in C[0]).
    const float W[4] = {1.f, 2.f, 3.f, 4.f}, x[2] = {0.5f, 0.25f};
    float P[256] = {}, y[2];
    REQUIRE(kernels::packed_size(2, 2) <= 256);
    kernels::pack(W, 2, 2, P);
    kernels::gemm_packed(x, 2, P, nullptr, y, 2, 1, 2, 2);
    CHECK(y[0] == (s == Spoil::Ulp ? std::nextafter(1.f, 2.f) : 1.f));
    CHECK(y[1] == 2.5f);
    simd::use_plain_products();
    CHECK_FALSE(simd::relaxed_products());
  }
  const std::pair<Spoil, const char*> refused[] = {
      {Spoil::Far, "gemm_packed with a bias: output 0 of row 0 is"},
      {Spoil::PastM, "gemm_packed with a bias wrote past its 1 outputs (1 x 1 rows by a 1 x 1 matrix)"},
      {Spoil::BatchRow, "gemm_packed with a bias: row 1 of a batch differs from the same row alone (2 x 1 rows"},
  };
  for (const auto& [s, why] : refused) {
    spoil = s;
    const std::string got = simd::use_relaxed_products(&gp, &gpa);
    CHECK_MESSAGE(got.find(why) != std::string::npos, got);
    CHECK_FALSE(simd::relaxed_products());
  }
  spoil = Spoil::None;
  CHECK(simd::use_relaxed_products(nullptr, &gpa) == "no function was given");
}

TEST_CASE("relaxed products: the bound is N + 1 ulps of the sum of magnitudes") {
  CHECK(simd::relaxed_bound(1.f, 1) == doctest::Approx(2 * std::ldexp(1.f, -23)));
  CHECK(simd::relaxed_bound(4.f, 99) == doctest::Approx(400 * std::ldexp(1.f, -23)));
  CHECK(simd::relaxed_bound(0.f, 10) > 0.f);  // never 0: subnormal sums may round differently
}
#endif
