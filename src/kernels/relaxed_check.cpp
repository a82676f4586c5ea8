// WebAssembly only: the relaxed-SIMD products (src/kernels/relaxed/products.cpp) are held to this
// module's own before they replace them (kernels/dispatch.hpp, use_relaxed_products).
#include "kernels/dispatch.hpp"

#if defined(__EMSCRIPTEN__)
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/rng.hpp"

namespace attnseq::simd {

extern KernelTable external_kernels;  // simd_impl.inc, the one-arch build's forwarders
namespace native {
const KernelTable& table();
}

AccTileFn relaxed_acc_tile = nullptr;

float relaxed_bound(float sum_of_magnitudes, std::size_t N) {
  return float(N + 1) * sum_of_magnitudes * std::ldexp(1.f, -23) + 1e-30f;
}

namespace {

std::vector<float> random_floats(Rng& rng, std::size_t n) {
  std::vector<float> v(n);
  for (auto& x : v) x = 2.f * rng.uniform() - 1.f;
  return v;
}

std::string shape(std::size_t B, std::size_t M, std::size_t N) {
  return std::to_string(B) + " x " + std::to_string(N) + " rows by a " + std::to_string(M) + " x " + std::to_string(N) +
         " matrix";
}

// One shape, one way (with a bias, without, or accumulating): "" or what went wrong.
std::string check_one(const KernelTable& own, GemmPackedFn gp, GemmPackedAccFn gpa, Rng& rng, std::size_t B,
                      std::size_t M, std::size_t N, int way) {
  const std::size_t ldx = N + 3, ldc = M + 2;  // strides wider than the rows: nothing past M is written
  const std::vector<float> W = random_floats(rng, M * N), X = random_floats(rng, B * ldx), bias = random_floats(rng, M);
  std::vector<float> P(own.packed_size(M, N));
  own.pack(W.data(), M, N, P.data());
  const std::vector<float> C0 = random_floats(rng, B * ldc);
  std::vector<float> plain = C0, relaxed = C0;
  const float* b = way == 0 ? bias.data() : nullptr;
  if (way == 2) {
    own.gemm_packed_acc(X.data(), ldx, P.data(), plain.data(), ldc, B, M, N);
    gpa(X.data(), ldx, P.data(), relaxed.data(), ldc, B, M, N);
  } else {
    own.gemm_packed(X.data(), ldx, P.data(), b, plain.data(), ldc, B, M, N);
    gp(X.data(), ldx, P.data(), b, relaxed.data(), ldc, B, M, N);
  }
  const char* name = way == 2 ? "gemm_packed_acc" : way == 0 ? "gemm_packed with a bias" : "gemm_packed";
  for (std::size_t r = 0; r < B; ++r)
    for (std::size_t m = 0; m < ldc; ++m) {
      const float got = relaxed[r * ldc + m], want = plain[r * ldc + m];
      if (m >= M) {
        if (std::memcmp(&got, &C0[r * ldc + m], sizeof got) != 0)
          return std::string(name) + " wrote past its " + std::to_string(M) + " outputs (" + shape(B, M, N) + ")";
        continue;
      }
      float mag = way == 2 ? std::fabs(C0[r * ldc + m]) : b ? std::fabs(b[m]) : 0.f;
      for (std::size_t n = 0; n < N; ++n) mag += std::fabs(W[m * N + n] * X[r * ldx + n]);
      if (!(std::fabs(got - want) <= relaxed_bound(mag, N)))
        return std::string(name) + ": output " + std::to_string(m) + " of row " + std::to_string(r) + " is " +
               std::to_string(got) + ", the plain product's " + std::to_string(want) + ", beyond the bound " +
               std::to_string(relaxed_bound(mag, N)) + " (" + shape(B, M, N) + ")";
    }
  // Each row of the batch has the bits it has alone.
  if (B > 1)
    for (std::size_t r = 0; r < B; ++r) {
      std::vector<float> alone(C0.begin() + std::ptrdiff_t(r * ldc), C0.begin() + std::ptrdiff_t((r + 1) * ldc));
      if (way == 2)
        gpa(X.data() + r * ldx, ldx, P.data(), alone.data(), ldc, 1, M, N);
      else
        gp(X.data() + r * ldx, ldx, P.data(), b, alone.data(), ldc, 1, M, N);
      if (std::memcmp(alone.data(), relaxed.data() + r * ldc, M * sizeof(float)) != 0)
        return std::string(name) + ": row " + std::to_string(r) + " of a batch differs from the same row alone (" +
               shape(B, M, N) + ")";
    }
  return "";
}

// The 7-bit int8 product against ref::gemm_q8r, to the bit (integer sums are exact): "" or what differs.
std::string check_q8r(GemmQ8RFn f, Rng& rng, std::size_t B, std::size_t M, std::size_t N, bool bias, bool extreme) {
  const std::size_t ldu = (N + 3) / 4 * 4 + 4, ldc = M + 2;
  std::vector<std::int8_t> Q(M * N);
  for (std::size_t i = 0; i < Q.size(); ++i)
    Q[i] = extreme ? std::int8_t(i % 2 ? -127 : 127) : std::int8_t(int(rng.uniform() * 255.f) - 127);
  std::vector<std::int8_t> P(q8r_packed_size(M, N));
  std::vector<std::int32_t> corr(M);
  q8r_pack(Q.data(), M, N, P.data(), corr.data());
  std::vector<std::uint8_t> U(B * ldu, 0);  // 7-bit activations, the whole range [0, 127]
  for (std::size_t i = 0; i < U.size(); ++i)
    U[i] = extreme ? std::uint8_t(i % 3 ? 127 : 0) : std::uint8_t(rng.uniform() * 128.f) & 127;
  std::vector<float> xs = random_floats(rng, B), ws = random_floats(rng, M), b = random_floats(rng, M);
  const std::vector<float> C0 = random_floats(rng, B * ldc);
  std::vector<float> want = C0, got = C0;
  ref::gemm_q8r(U.data(), ldu, xs.data(), P.data(), corr.data(), ws.data(), bias ? b.data() : nullptr, want.data(), ldc,
                B, M, N);
  f(U.data(), ldu, xs.data(), P.data(), corr.data(), ws.data(), bias ? b.data() : nullptr, got.data(), ldc, B, M, N);
  if (std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0) return "";
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0)
      return "gemm_q8r: output " + std::to_string(i % ldc) + " of row " + std::to_string(i / ldc) + " is " +
             std::to_string(got[i]) + ", the reference's " + std::to_string(want[i]) + " (" + shape(B, M, N) +
             (extreme ? ", extreme values" : "") + ")";
  return "";
}

// gemm_acc with the tiles `tile` against the plain tiles, C (M, N) += A (M, K) Bm (K, N), A read
// transposed (dW += dY^T X: the path that copies A into panels where M >= 16) or not (dX += dY W):
// each output within relaxed_bound of the plain one (its start and its K terms), nothing past N
// written. "" or what went wrong.
std::string check_acc(const KernelTable& own, AccTileFn tile, Rng& rng, std::size_t M, std::size_t N, std::size_t K,
                      bool transposed) {
  const std::size_t lda = (transposed ? M : K) + 3, ldb = N + 1, ldc = N + 2;
  const std::vector<float> A = random_floats(rng, (transposed ? K : M) * lda), Bm = random_floats(rng, K * ldb),
                           C0 = random_floats(rng, M * ldc);
  const std::size_t rsa = transposed ? 1 : lda, csa = transposed ? lda : 1;
  std::vector<float> plain = C0, relaxed = C0;
  relaxed_acc_tile = nullptr;
  own.gemm_acc(A.data(), rsa, csa, Bm.data(), ldb, plain.data(), ldc, M, N, K);
  relaxed_acc_tile = tile;
  own.gemm_acc(A.data(), rsa, csa, Bm.data(), ldb, relaxed.data(), ldc, M, N, K);
  relaxed_acc_tile = nullptr;
  const std::string where = std::string(transposed ? "dW += dY^T X" : "dX += dY W") + " with C " + std::to_string(M) +
                            " x " + std::to_string(N) + ", K " + std::to_string(K);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < ldc; ++j) {
      const float got = relaxed[i * ldc + j], want = plain[i * ldc + j];
      if (j >= N) {
        if (std::memcmp(&got, &C0[i * ldc + j], sizeof got) != 0)
          return "gemm_acc_tile wrote past the " + std::to_string(N) + " columns (" + where + ")";
        continue;
      }
      float mag = std::fabs(C0[i * ldc + j]);
      for (std::size_t k = 0; k < K; ++k) mag += std::fabs(A[i * rsa + k * csa] * Bm[k * ldb + j]);
      if (!(std::fabs(got - want) <= relaxed_bound(mag, K)))
        return "gemm_acc_tile: output (" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
               std::to_string(got) + ", the plain product's " + std::to_string(want) + ", beyond the bound " +
               std::to_string(relaxed_bound(mag, K)) + " (" + where + ")";
    }
  return "";
}

}  // namespace

std::string use_relaxed_products(GemmPackedFn gp, GemmPackedAccFn gpa, GemmQ8RFn q8r, AccTileFn acc_tile) {
  if (!gp || !gpa || !q8r || !acc_tile) return "no function was given";
  const KernelTable& own = native::table();
  Rng rng(20261206);
  // Panels of 16 rows: one row, part of a panel, a panel, a panel and a row, two and a half; one
  // column and several; one row of X and batches that pair their rows or leave one over.
  for (std::size_t M : {1, 5, 16, 17, 40})
    for (std::size_t N : {1, 7, 32, 75})
      for (std::size_t B : {1, 2, 3, 5})
        for (int way = 0; way < 3; ++way)
          if (auto why = check_one(own, gp, gpa, rng, B, M, N, way); !why.empty()) return why;
  // Panels of 32 rows: one row, part of one, a panel, a panel and a row, two and a bit; quads whole
  // and ragged; each grouping of rows the module has (4, 2, 1) and their mixtures.
  for (std::size_t M : {1, 5, 32, 33, 70})
    for (std::size_t N : {1, 3, 4, 5, 64, 130})
      for (std::size_t B : {1, 2, 3, 4, 5, 7})
        for (bool bias : {false, true})
          for (bool extreme : {false, true})
            if (auto why = check_q8r(q8r, rng, B, M, N, bias, extreme); !why.empty()) return why;
  // Tiles of 4 rows and fewer, 2 vectors wide and 1, columns past the last whole vector; both paths
  // of gemm_acc (the transposed one copies A into panels from 16 rows and 8 columns on).
  for (bool transposed : {false, true})
    for (std::size_t M : {1, 3, 4, 7, 16, 21, 70})
      for (std::size_t N : {4, 8, 13, 40})
        for (std::size_t K : {1, 5, 33})
          if (auto why = check_acc(own, acc_tile, rng, M, N, K, transposed); !why.empty()) return why;
  external_kernels.gemm_packed = gp;
  external_kernels.gemm_packed_acc = gpa;
  kernels::set_q8r_product(q8r);
  relaxed_acc_tile = acc_tile;
  return "";
}

void use_plain_products() {
  external_kernels.gemm_packed = nullptr;
  external_kernels.gemm_packed_acc = nullptr;
  kernels::set_q8r_product(nullptr);
  relaxed_acc_tile = nullptr;
}

bool relaxed_products() { return external_kernels.gemm_packed != nullptr; }

}  // namespace attnseq::simd
#endif
