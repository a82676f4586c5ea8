// Attention scores (dot, general, additive) and the context vector. Source-only work (the general
// and additive keys) is done once per source by the encoder; here only the query side remains.
#include <cstring>

#include "kernels/kernels.hpp"
#include "nn/layers.hpp"

namespace attnseq::nn {

void attention_scores(const AttentionWeights& a, const float* Q, std::size_t B, std::size_t Hd, const float* keys,
                      std::size_t T, float* scores, float* scratch) {
  if (a.score != Score::Additive) {
    // dot: <s, h_i>; general: <s, W_a h_i> with W_a h_i precomputed as keys.
    kernels::gemm_nt(Q, Hd, keys, scores, T, B, T, Hd, false);
    return;
  }
  // additive: v^T tanh(W_q s + b_q + W_k h_i); W_k h_i precomputed as keys (T, A); b_q optional.
  const std::size_t A = a.attn_dim;
  float* qp = scratch;           // (B, A)
  float* tmp = scratch + B * A;  // (T, A)
  a.query(Q, Hd, qp, A, B, A, Hd);
  for (std::size_t b = 0; b < B; ++b) {
    std::memcpy(tmp, keys, T * A * sizeof(float));
    for (std::size_t t = 0; t < T; ++t) kernels::add(qp + b * A, tmp + t * A, A);
    kernels::tanh(tmp, T * A);
    kernels::gemv(tmp, a.v, scores + b * T, T, A, false);
  }
}

void attention_context(const float* weights, std::size_t B, const float* memory, std::size_t T, std::size_t Ho,
                       float* context) {
  for (std::size_t b = 0; b < B; ++b) {
    std::memset(context + b * Ho, 0, Ho * sizeof(float));
    kernels::gemv_t(memory, weights + b * T, context + b * Ho, T, Ho);
  }
}

}  // namespace attnseq::nn
