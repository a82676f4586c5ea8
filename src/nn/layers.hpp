// The layers a seq2seq is made of, for a batch of B rows at a time: linear, embedding lookup, GRU and
// LSTM cells (PyTorch gate layouts), attention scores. Their forward passes are declared first
// (src/nn/linear.cpp, rnn_cell.cpp, attention.cpp), their backward passes (training) below them
// (src/nn/backward.cpp).
// Legend: B batch rows, T source positions, E embedding, H hidden, G gates (3 GRU, 4 LSTM),
// Ho encoder output size, A additive attention size, V vocabulary.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/enums.hpp"
#include "kernels/kernels.hpp"

namespace attnseq::nn {

// Y (B, M) = X (B, N) W^T + b. W (M, N), b (M) or nullptr. Row strides ldx, ldy.
void linear_forward(const float* X, std::size_t ldx, const float* W, const float* b, float* Y, std::size_t ldy,
                    std::size_t B, std::size_t M, std::size_t N);

// A matrix (M, N) held as int8 for inference (Model::quantize): its q8_pack layout and row scales.
struct Q8Weights {
  const std::int8_t* packed = nullptr;
  const float* scale = nullptr;        // (M)
  const std::int32_t* corr = nullptr;  // (M) set: packed is in the 7-bit product's layout (q8r_pack)
};

// Y (B, M) = X W^T + b through the int8 copy: each row of X is quantised to int16 on the fly
// (kernels::quantize_i16) into this thread's scratch, then kernels::gemm_q8; or, for a copy in the
// 7-bit layout (Q.corr), to [-63, 63] offset into uint8 (kernels::q8r_offset), then
// kernels::q8r_product() (ref::gemm_q8r where none is set).
void linear_q8(const float* X, std::size_t ldx, const Q8Weights& Q, const float* b, float* Y, std::size_t ldy,
               std::size_t B, std::size_t M, std::size_t N);
// Grows this thread's linear_q8 scratch to rows x cols, so that products within that size allocate
// nothing (Model::start reserves what its steps need).
void q8_reserve(std::size_t rows, std::size_t cols);

// One weight matrix W (M, N) with its bias, as a value: Y (B, M) = X W^T + b through whichever copy
// of W is present, its int8 copy q (a quantised model), else its packed copy p (kernels::pack: the
// inference copies Model::prepare makes, or training's per-call ones), else W itself.
struct Linear {
  const float* w = nullptr;  // (M, N), or null: no such matrix
  const float* p = nullptr;
  const float* b = nullptr;  // (M), or null: no bias
  Q8Weights q;
  void operator()(const float* X, std::size_t ldx, float* Y, std::size_t ldy, std::size_t B, std::size_t M,
                  std::size_t N) const {
    if (q.packed)
      linear_q8(X, ldx, q, b, Y, ldy, B, M, N);
    else if (p)
      kernels::gemm_packed(X, ldx, p, b, Y, ldy, B, M, N);
    else
      linear_forward(X, ldx, w, b, Y, ldy, B, M, N);
  }
};

// out (B, D) = table[ids] (V, D) rows. ids must be in range (callers validate).
void embedding_forward(const float* table, std::size_t D, const std::int32_t* ids, std::size_t B, float* out,
                       std::size_t ldo);

// One recurrent layer's weights, PyTorch layout: ih = (W_ih (G H, in), b_ih (G H)), hh = (W_hh (G H, H),
// b_hh (G H)), each with its packed or int8 copy when there is one.
struct RnnWeights {
  Linear ih, hh;
  int in = 0, hidden = 0;
  Cell cell = Cell::GRU;
  int gates() const { return cell == Cell::GRU ? 3 : 4; }
};

// One cell step for B rows. gi (B, G H) holds x W_ih^T + b_ih on entry and the gate activations on
// exit ([r; z; n] for GRU, [i; f; g; o] for LSTM). gh (B, G H) is scratch (GRU keeps W_hn h + b_hn in
// its last third). h (B, H) and, for LSTM, c (B, H) are updated in place. h_zero: the caller knows
// every row of h is 0 (a sequence's first step from a zero state), so h W_hh^T is 0 and its product
// is skipped (gh = b_hh).
void gru_cell_forward(const RnnWeights& w, float* gi, float* gh, float* h, std::size_t B, bool h_zero = false);
void lstm_cell_forward(const RnnWeights& w, float* gi, float* gh, float* h, float* c, std::size_t B,
                       bool h_zero = false);
inline void cell_forward(const RnnWeights& w, float* gi, float* gh, float* h, float* c, std::size_t B,
                         bool h_zero = false) {
  if (w.cell == Cell::GRU)
    gru_cell_forward(w, gi, gh, h, B, h_zero);
  else
    lstm_cell_forward(w, gi, gh, h, c, B, h_zero);
}

// Attention over one source memory (T, Ho). Keys depend on the score function:
//   dot: keys = memory; general: keys (T, Hd) = memory W_a^T; additive: keys (T, A) = memory W_k^T.
struct AttentionWeights {
  Score score = Score::Dot;
  Linear query;              // additive: W_q (A, Hd) and b_q (A), or no bias
  const float* v = nullptr;  // additive: v (A)
  int attn_dim = 0;          // A
};
// scores (B, T) for queries Q (B, Hd). scratch: additive needs B*A + T*A floats, others none.
void attention_scores(const AttentionWeights& a, const float* Q, std::size_t B, std::size_t Hd, const float* keys,
                      std::size_t T, float* scores, float* scratch);
// context (B, Ho) = weights (B, T) memory (T, Ho)
void attention_context(const float* weights, std::size_t B, const float* memory, std::size_t T, std::size_t Ho,
                       float* context);

}  // namespace attnseq::nn

// ---- backward passes (training). Each adds into its gradients, as llm.c does. ----------------
namespace attnseq::nn {

// Y = X W^T + b: dX (B, N) += dY W, dW (M, N) += dY^T X, db (M) += sum of dY rows. Any of dX, dW,
// db may be null. Row strides ldx, ldy as in linear_forward. Wt_packed, if given, is W^T (N, M)
// packed (kernels::pack): dX then comes from the packed product, which streams it once per few rows
// (2-3x gemm_acc's rate on a decoder step's shapes, bench/RESULTS.md), with the same bits.
void linear_backward(const float* X, std::size_t ldx, const float* W, const float* dY, std::size_t ldy, float* dX,
                     float* dW, float* db, std::size_t B, std::size_t M, std::size_t N,
                     const float* Wt_packed = nullptr);

// Gradients of one cell step. Inputs are what the forward left: gates (B, G H) = gi on exit of
// the forward ([r; z; n] or [i; f; g; o]), gh (B, G H) the GRU's h W_hh^T + b_hh, h_prev (B, H),
// for LSTM c_prev and c_new (B, H). dh (B, H) is the gradient w.r.t. the new h (and dc w.r.t. the
// new c, LSTM); on exit they hold the gradients w.r.t. h_prev (and c_prev). dgi (B, G H) receives
// the gradient w.r.t. the input projection x W_ih^T + b_ih (= w.r.t. gh for LSTM). dW_hh, db_hh
// are accumulated. scratch: B * G * H floats. w_hh_t_packed: W_hh^T packed, as linear_backward's.
void gru_cell_backward(const RnnWeights& w, const float* gates, const float* gh, const float* h_prev, float* dh,
                       float* dgi, float* dW_hh, float* db_hh, float* scratch, std::size_t B,
                       const float* w_hh_t_packed = nullptr);
void lstm_cell_backward(const RnnWeights& w, const float* gates, const float* h_prev, const float* c_prev,
                        const float* c_new, float* dh, float* dc, float* dgi, float* dW_hh, float* db_hh, std::size_t B,
                        const float* w_hh_t_packed = nullptr);

// Attention for one row (one query, T positions, the first `valid` real). Forward stored
// q (Hd), keys (T, Kd), weights (T); additive also u (T, A) = tanh(W_q q + keys). Given dcontext (Ho)
// and the values (T, Ho): accumulates dvalues (T, Ho), dkeys (T, Kd), dq (Hd), and for additive
// dW_q (A, Hd), db_q (A; null when the score has no query bias) and dv (A). scratch: 2 T + A floats.
void attention_backward(const AttentionWeights& a, const float* q, std::size_t Hd, const float* keys, std::size_t Kd,
                        const float* values, std::size_t Ho, const float* weights, const float* u, std::size_t T,
                        std::size_t valid, const float* dcontext, const float* dweights_extra, float* dvalues,
                        float* dkeys, float* dq, float* dW_q, float* db_q, float* dv, float* scratch);

}  // namespace attnseq::nn
