// Backward passes of the layers in layers.hpp: linear, GRU and LSTM cells, attention.
// Each adds into its gradient buffers; finite-difference checks in tests/cpp/test_gradients.cpp.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/kernels.hpp"
#include "nn/layers.hpp"

namespace attnseq::nn {

void linear_backward(const float* X, std::size_t ldx, const float* W, const float* dY, std::size_t ldy, float* dX,
                     float* dW, float* db, std::size_t B, std::size_t M, std::size_t N, const float* Wt_packed) {
  if (dX && Wt_packed)
    kernels::gemm_packed_acc(dY, ldy, Wt_packed, dX, ldx, B, N, M);  // dX (B, N) += dY (B, M) (W^T (N, M))^T
  else if (dX)
    kernels::gemm_acc(dY, ldy, 1, W, N, dX, ldx, B, N, M);        // dX (B, N) += dY (B, M) W (M, N)
  if (dW) kernels::gemm_acc(dY, 1, ldy, X, ldx, dW, N, M, N, B);  // dW (M, N) += dY^T (M, B) X (B, N)
  if (db)
    for (std::size_t r = 0; r < B; ++r) kernels::add(dY + r * ldy, db, M);
}

void gru_cell_backward(const RnnWeights& w, const float* gates, const float* gh, const float* h_prev, float* dh,
                       float* dgi, float* dW_hh, float* db_hh, float* dgh, std::size_t B, const float* w_hh_t_packed) {
  const std::size_t H = w.hidden, G = 3 * H;
  for (std::size_t b = 0; b < B; ++b) {
    const float* r = gates + b * G;
    const float* z = r + H;
    const float* n = r + 2 * H;
    const float* ghn = gh + b * G + 2 * H;
    const float* hp = h_prev + b * H;
    float* d = dh + b * H;
    float* gi = dgi + b * G;
    float* gg = dgh + b * G;
    for (std::size_t i = 0; i < H; ++i) {
      const float dn = d[i] * (1.f - z[i]);
      const float dz = d[i] * (hp[i] - n[i]);
      const float dan = dn * (1.f - n[i] * n[i]);
      const float dr = dan * ghn[i];
      const float daz = dz * z[i] * (1.f - z[i]);
      const float dar = dr * r[i] * (1.f - r[i]);
      gi[i] = dar, gi[H + i] = daz, gi[2 * H + i] = dan;
      gg[i] = dar, gg[H + i] = daz, gg[2 * H + i] = dan * r[i];
      d[i] = d[i] * z[i];  // the direct path h' = ... + z h
    }
  }
  // gh = h W_hh^T + b_hh
  linear_backward(h_prev, H, w.hh.w, dgh, G, dh, dW_hh, db_hh, B, G, H, w_hh_t_packed);
}

void lstm_cell_backward(const RnnWeights& w, const float* gates, const float* h_prev, const float* c_prev,
                        const float* c_new, float* dh, float* dc, float* dgi, float* dW_hh, float* db_hh, std::size_t B,
                        const float* w_hh_t_packed) {
  const std::size_t H = w.hidden, G = 4 * H;
  for (std::size_t b = 0; b < B; ++b) {
    const float* ig = gates + b * G;
    const float* fg = ig + H;
    const float* gg = ig + 2 * H;
    const float* og = ig + 3 * H;
    const float* cp = c_prev + b * H;
    const float* cn = c_new + b * H;
    float* d = dh + b * H;
    float* dcb = dc + b * H;
    float* out = dgi + b * G;
    for (std::size_t i = 0; i < H; ++i) {
      const float tc = std::tanh(cn[i]);
      const float dout = d[i] * tc;
      const float dcn = dcb[i] + d[i] * og[i] * (1.f - tc * tc);
      const float di = dcn * gg[i], df = dcn * cp[i], dg = dcn * ig[i];
      out[i] = di * ig[i] * (1.f - ig[i]);
      out[H + i] = df * fg[i] * (1.f - fg[i]);
      out[2 * H + i] = dg * (1.f - gg[i] * gg[i]);
      out[3 * H + i] = dout * og[i] * (1.f - og[i]);
      dcb[i] = dcn * fg[i];
      d[i] = 0.f;  // h_prev's gradient comes only through W_hh below
    }
  }
  linear_backward(h_prev, H, w.hh.w, dgi, G, dh, dW_hh, db_hh, B, G, H, w_hh_t_packed);
}

void attention_backward(const AttentionWeights& a, const float* q, std::size_t Hd, const float* keys, std::size_t Kd,
                        const float* values, std::size_t Ho, const float* weights, const float* u, std::size_t T,
                        std::size_t valid, const float* dcontext, const float* dweights_extra, float* dvalues,
                        float* dkeys, float* dq, float* dW_q, float* db_q, float* dv, float* scratch) {
  float* dw = scratch;      // (T) gradient w.r.t. the weights
  float* ds = scratch + T;  // (T) gradient w.r.t. the scores
  // c = sum_t w_t v_t
  for (std::size_t t = 0; t < valid; ++t) {
    dw[t] = kernels::dot(dcontext, values + t * Ho, Ho) + (dweights_extra ? dweights_extra[t] : 0.f);
    kernels::axpy(weights[t], dcontext, dvalues + t * Ho, Ho);
  }
  // w = softmax(s) over the valid positions
  float wdw = 0.f;
  for (std::size_t t = 0; t < valid; ++t) wdw += weights[t] * dw[t];
  for (std::size_t t = 0; t < valid; ++t) ds[t] = weights[t] * (dw[t] - wdw);
  if (a.score != Score::Additive) {
    // s_t = <q, k_t>
    for (std::size_t t = 0; t < valid; ++t) {
      kernels::axpy(ds[t], keys + t * Kd, dq, Hd);
      kernels::axpy(ds[t], q, dkeys + t * Kd, Kd);
    }
    return;
  }
  // s_t = v^T u_t, u_t = tanh(W_q q + k_t): du_t = ds_t v (1 - u_t^2); dk_t += du_t; sum_t du_t feeds W_q q.
  const std::size_t A = a.attn_dim;
  float* dqp = scratch + 2 * T;  // (A)
  std::memset(dqp, 0, A * sizeof(float));
  for (std::size_t t = 0; t < valid; ++t) {
    const float* ut = u + t * A;
    kernels::axpy(ds[t], ut, dv, A);
    float* dk = dkeys + t * A;
    for (std::size_t j = 0; j < A; ++j) {
      const float du = ds[t] * a.v[j] * (1.f - ut[j] * ut[j]);
      dk[j] += du;
      dqp[j] += du;
    }
  }
  linear_backward(q, Hd, a.query.w, dqp, A, dq, dW_q, db_q, 1, A, Hd);
}

}  // namespace attnseq::nn
