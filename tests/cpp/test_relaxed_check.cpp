// WebAssembly builds: the check the relaxed-SIMD products pass before the engine uses them
// (kernels/dispatch.hpp, use_relaxed_products). Stand-ins for the relaxed module's functions (a
// function pointer is an index into the function table in wasm32, as the module's are) call the
// engine's own product and then spoil its answer in one way each: the check must refuse each spoilt
// one, naming what is wrong, and leave the plain products; and accept answers within the bound (the
// int8 product: only the reference's bits).
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

// The int8 product must give the reference's bits: one ulp off in its first output is refused.
bool spoil_q8r = false;
void q8r(const std::uint8_t* Xu, std::size_t ldu, const float* xs, const std::int8_t* P, const std::int32_t* corr,
         const float* ws, const float* bias, float* C, std::size_t ldc, std::size_t B, std::size_t M, std::size_t N) {
  ref::gemm_q8r(Xu, ldu, xs, P, corr, ws, bias, C, ldc, B, M, N);
  if (spoil_q8r) C[0] = std::nextafter(C[0], 1e30f);
}

// gemm_acc's tile: the plain tile's operations in its order (a multiply, then an add), then spoilt.
enum class TileSpoil { None, Ulp, Far, PastN };
TileSpoil spoil_tile = TileSpoil::None;
void tile(std::size_t rows, std::size_t nv, const float* A, std::size_t rsa, std::size_t csa, const float* Bm,
          std::size_t ldb, float* C, std::size_t ldc, std::size_t K) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < 4 * nv; ++j)
      for (std::size_t k = 0; k < K; ++k) C[r * ldc + j] += A[r * rsa + k * csa] * Bm[k * ldb + j];
  switch (spoil_tile) {
    case TileSpoil::None: break;
    case TileSpoil::Ulp: C[0] = std::nextafter(C[0], 1e30f); break;
    case TileSpoil::Far: C[0] += 0.01f; break;
    case TileSpoil::PastN: C[4 * nv] = 42.f; break;
  }
}

}  // namespace

TEST_CASE("relaxed products: the check accepts answers within the bound and refuses spoilt ones, by name") {
  for (Spoil s : {Spoil::None, Spoil::Ulp}) {
    spoil = s;
    const std::string why = simd::use_relaxed_products(&gp, &gpa, &q8r, &tile);
    CHECK_MESSAGE(why.empty(), why);
    CHECK(simd::relaxed_products());
    CHECK((kernels::q8r_product() == &q8r));  // int8 models loaded from now on are packed for it
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
    CHECK((kernels::q8r_product() == nullptr));
  }
  const std::pair<Spoil, const char*> refused[] = {
      {Spoil::Far, "gemm_packed with a bias: output 0 of row 0 is"},
      {Spoil::PastM, "gemm_packed with a bias wrote past its 1 outputs (1 x 1 rows by a 1 x 1 matrix)"},
      {Spoil::BatchRow, "gemm_packed with a bias: row 1 of a batch differs from the same row alone (2 x 1 rows"},
  };
  for (const auto& [s, why] : refused) {
    spoil = s;
    const std::string got = simd::use_relaxed_products(&gp, &gpa, &q8r, &tile);
    CHECK_MESSAGE(got.find(why) != std::string::npos, got);
    CHECK_FALSE(simd::relaxed_products());
  }
  spoil = Spoil::None;
  spoil_q8r = true;
  const std::string got = simd::use_relaxed_products(&gp, &gpa, &q8r, &tile);
  CHECK_MESSAGE(got.find("gemm_q8r: output 0 of row 0 is") != std::string::npos, got);
  CHECK_FALSE(simd::relaxed_products());
  CHECK((kernels::q8r_product() == nullptr));
  spoil_q8r = false;
  CHECK(simd::use_relaxed_products(nullptr, &gpa, &q8r, &tile) == "no function was given");
  CHECK(simd::use_relaxed_products(&gp, &gpa, nullptr, &tile) == "no function was given");
  CHECK(simd::use_relaxed_products(&gp, &gpa, &q8r, nullptr) == "no function was given");
}

TEST_CASE("relaxed products: gemm_acc's tiles (training's backward products) are checked on both paths") {
  // One ulp in each tile's first output: accepted, and then in use by gemm_acc.
  spoil_tile = TileSpoil::Ulp;
  std::string why = simd::use_relaxed_products(&gp, &gpa, &q8r, &tile);
  CHECK_MESSAGE(why.empty(), why);
  CHECK((simd::relaxed_acc_tile == &tile));
  const float A[4] = {1.f, 2.f, 3.f, 4.f}, Bm[4] = {1.f, 1.f, 1.f, 1.f};  // C (1, 4) += A (1, 1) Bm (1, 4)
  float C[4] = {0.f, 0.f, 0.f, 0.f};
  kernels::gemm_acc(A, 1, 1, Bm, 4, C, 4, 1, 4, 1);
  CHECK(C[0] == std::nextafter(1.f, 2.f));
  CHECK(C[1] == 1.f);
  simd::use_plain_products();
  CHECK((simd::relaxed_acc_tile == nullptr));
  C[0] = 0.f;
  kernels::gemm_acc(A, 1, 1, Bm, 4, C, 4, 1, 4, 1);
  CHECK(C[0] == 1.f);
  // Refused, by name, leaving every plain product.
  const std::pair<TileSpoil, const char*> refused[] = {
      {TileSpoil::Far, "gemm_acc_tile: output (0, 0) is"},
      {TileSpoil::PastN, "gemm_acc_tile wrote past the 4 columns (dX += dY W with C 1 x 4, K 1)"},
  };
  for (const auto& [s, want] : refused) {
    spoil_tile = s;
    why = simd::use_relaxed_products(&gp, &gpa, &q8r, &tile);
    CHECK_MESSAGE(why.find(want) != std::string::npos, why);
    CHECK_FALSE(simd::relaxed_products());
    CHECK((simd::relaxed_acc_tile == nullptr));
    CHECK((kernels::q8r_product() == nullptr));
  }
  spoil_tile = TileSpoil::None;
}

TEST_CASE("relaxed products: the bound is N + 1 ulps of the sum of magnitudes") {
  CHECK(simd::relaxed_bound(1.f, 1) == doctest::Approx(2 * std::ldexp(1.f, -23)));
  CHECK(simd::relaxed_bound(4.f, 99) == doctest::Approx(400 * std::ldexp(1.f, -23)));
  CHECK(simd::relaxed_bound(0.f, 10) > 0.f);  // never 0: subnormal sums may round differently
}
#endif
