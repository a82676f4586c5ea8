// Model::start / step / reorder: the decoder, one step at a time for B rows (B = beam hypotheses).
// Styles (docs/model.md): luong queries with s_k after the RNN; bahdanau with s_{k-1} before it and feeds
// c_k into the RNN; none (vanilla) has no attention: s_0 = h_T is all the decoder ever sees.
// step() allocates nothing: start() sizes every buffer for the state's capacity.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/kernels.hpp"
#include "model/model.hpp"

namespace attnseq {
namespace {
std::string foreign_source() {
  return "this source was encoded by another model; encode it with the model that decodes it";
}
}  // namespace

void Model::start(const Encoded& enc, DecoderState& st, int capacity) const {
  if (capacity < 1 || capacity > kMaxBeam)
    throw std::invalid_argument("start: capacity " + std::to_string(capacity) + " is outside [1, " +
                                std::to_string(kMaxBeam) + "]");
  const Encoded* e = &enc;
  start(&e, 1, st, capacity);
}

void Model::start(const Encoded* const* encs, int n, DecoderState& st, int capacity) const {
  const auto& c = config_;
  if (capacity < 1 || capacity > kMaxRows)
    throw std::invalid_argument("start: capacity " + std::to_string(capacity) + " is outside [1, " +
                                std::to_string(kMaxRows) + "]");
  if (n < 1 || n > capacity)
    throw std::invalid_argument("start: " + std::to_string(n) + " rows requested, capacity " +
                                std::to_string(capacity));
  int Tm = 0;
  for (int r = 0; r < n; ++r) {
    if (encs[r]->T <= 0) throw std::invalid_argument("start: the source has not been encoded");
    if (encs[r]->model_id != id_) throw std::invalid_argument("start: " + foreign_source());
    Tm = std::max(Tm, encs[r]->T);
  }
  const std::size_t cap = capacity, L = c.layers, Hd = c.dec_hidden, Ho = c.enc_out(), T = Tm;
  const std::size_t G = c.gates(), A = c.attn_dim;
  st.capacity = capacity;
  st.T = Tm;
  st.B = n;
  st.h.assign(L * cap * Hd, 0.f);
  st.c.assign(L * cap * Hd, 0.f);
  st.htilde.assign(cap * Hd, 0.f);
  st.query.assign(cap * Hd, 0.f);
  st.scores.assign(cap * T, 0.f);
  st.weights.assign(cap * T, 0.f);
  st.context.assign(cap * Ho, 0.f);
  st.logits.assign(cap * std::size_t(c.tgt_vocab), 0.f);
  st.gi.assign(2 * cap * G * Hd, 0.f);  // second half: scratch for the input-feeding product
  st.gh.assign(cap * G * Hd, 0.f);
  st.x.assign(cap * std::size_t(c.dec_input()), 0.f);
  st.cat.assign(cap * (Ho + Hd), 0.f);
  st.attn_scratch.assign(cap * A + T * A, 0.f);
  st.tmp.assign(std::max(L * cap * Hd, cap * T), 0.f);  // reorder's gather; a multi-source step's scores
  if (q8_cols_) nn::q8_reserve(cap, q8_cols_);          // so that no step grows the int8 products' scratch
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t r = 0; r < std::size_t(n); ++r) {
      std::memcpy(&st.h[(l * cap + r) * Hd], &encs[r]->init_h[l * Hd], Hd * sizeof(float));
      std::memcpy(&st.c[(l * cap + r) * Hd], &encs[r]->init_c[l * Hd], Hd * sizeof(float));
    }
}

// gi (B, G Hd) = [emb(prev); rest] W_ih^T + b_ih for decoder layer 0; rest (B, R) may be null if R = 0.
const float* Model::input_projection(const float* rest, std::size_t ldr, const std::int32_t* prev, std::size_t B,
                                     float* gi) const {
  const auto& c = config_;
  const std::size_t E = c.tgt_emb, D = c.dec_input(), R = D - E, GH = std::size_t(c.gates()) * c.dec_hidden;
  if (tables_) {
    for (std::size_t b = 0; b < B; ++b)
      std::memcpy(gi + b * GH, &dec_table_[std::size_t(prev[b]) * GH], GH * sizeof(float));
    if (R && dec_w_rest_p_) {
      // gemm_packed overwrites, so add the rest's product through the scratch (B, GH).
      float* tmp = gi + B * GH;
      kernels::gemm_packed(rest, ldr, dec_w_rest_p_, nullptr, tmp, GH, B, GH, R);
      kernels::add(tmp, gi, B * GH);
    } else if (R && dec_w_rest_q_.packed) {
      float* tmp = gi + B * GH;
      nn::linear_q8(rest, ldr, dec_w_rest_q_, nullptr, tmp, GH, B, GH, R);
      kernels::add(tmp, gi, B * GH);
    } else if (R) {
      kernels::gemm_nt(rest, ldr, dec_w_rest_.data(), gi, GH, B, GH, R, true);
    }
    return gi;
  }
  return nullptr;  // caller builds x and runs the full product
}

void Model::step(const Encoded& enc, DecoderState& st, const std::int32_t* prev, int Bi,
                 const float* attn_override) const {
  if (st.capacity == 0) throw std::invalid_argument("step: the decoder state was not started");
  if (enc.model_id != id_) throw std::invalid_argument("step: " + foreign_source());
  if (st.T != enc.T) throw std::invalid_argument("step: the decoder state belongs to a different source");
  step_rows(enc, nullptr, st, prev, Bi, attn_override);
}

void Model::step(const Encoded* const* encs, DecoderState& st, const std::int32_t* prev, int Bi) const {
  if (st.capacity == 0) throw std::invalid_argument("step: the decoder state was not started");
  if (Bi < 1 || Bi > st.capacity)
    throw std::invalid_argument("step: " + std::to_string(Bi) + " rows requested, state has room for " +
                                std::to_string(st.capacity));
  for (int b = 0; b < Bi; ++b) {
    if (encs[b]->model_id != id_)
      throw std::invalid_argument("step: row " + std::to_string(b) + ": " + foreign_source());
    if (encs[b]->T <= 0 || encs[b]->T > st.T)
      throw std::invalid_argument("step: row " + std::to_string(b) + "'s source does not fit this decoder state");
  }
  step_rows(*encs[0], encs, st, prev, Bi, nullptr);
}

// encs == nullptr: every row attends to `shared` (T = st.T); else row b attends to encs[b].
void Model::step_rows(const Encoded& shared, const Encoded* const* encs, DecoderState& st, const std::int32_t* prev,
                      int Bi, const float* attn_override) const {
  const auto& c = config_;
  const Encoded& enc = shared;
  if (Bi < 1 || Bi > st.capacity)
    throw std::invalid_argument("step: " + std::to_string(Bi) + " rows requested, state has room for " +
                                std::to_string(st.capacity));
  for (int b = 0; b < Bi; ++b)
    if (prev[b] < 0 || prev[b] >= c.tgt_vocab)
      throw std::invalid_argument("step: previous token id " + std::to_string(prev[b]) +
                                  " is outside the target vocabulary [0, " + std::to_string(c.tgt_vocab) + ")");
  if (attn_override) {  // validated before anything changes, so a bad row leaves the state intact
    for (int b = 0; b < Bi; ++b) {
      float s = 0.f;
      for (int t = 0; t < enc.T; ++t) {
        const float v = attn_override[b * enc.T + t];
        if (!std::isfinite(v) || v < 0.f)
          throw std::invalid_argument("step: attention override weight " + std::to_string(t) + " is " +
                                      std::to_string(v) + "; weights must be finite and >= 0");
        s += v;
      }
      if (!(s > 0.f)) throw std::invalid_argument("step: attention override row " + std::to_string(b) + " sums to 0");
    }
  }
  const std::size_t B = Bi, cap = st.capacity, L = c.layers, Hd = c.dec_hidden, Ho = c.enc_out();
  const std::size_t T = st.T, E = c.tgt_emb, D = c.dec_input(), G = c.gates(), GH = G * Hd, V = c.tgt_vocab;
  st.B = Bi;
  float* h_top = &st.h[(L - 1) * cap * Hd];

  // Rows b0..b1-1 attend to source e, whose Ts <= T positions sit at stride T in scores and weights.
  auto attend_run = [&](const float* Q, const Encoded& e, std::size_t b0, std::size_t b1) {
    const std::size_t Ts = e.T, n = b1 - b0;
    const float* keys = c.score == Score::Dot ? e.memory.data() : e.keys.data();
    float* sc = st.tmp.data();  // (n, Ts) contiguous, then spread to stride T
    nn::attention_scores(attn_, Q + b0 * Hd, n, Hd, keys, Ts, sc, st.attn_scratch.data());
    for (std::size_t b = b0; b < b1; ++b) {
      float* srow = &st.scores[b * T];
      float* w = &st.weights[b * T];
      std::memcpy(srow, sc + (b - b0) * Ts, Ts * sizeof(float));
      std::fill(srow + Ts, srow + T, 0.f);
      std::memcpy(w, srow, Ts * sizeof(float));
      kernels::masked_softmax(w, Ts, Ts);
      std::fill(w + Ts, w + T, 0.f);
      nn::attention_context(w, 1, e.memory.data(), Ts, Ho, &st.context[b * Ho]);
    }
  };

  auto attend = [&](const float* Q) {
    std::memcpy(st.query.data(), Q, B * Hd * sizeof(float));
    if (encs) {
      for (std::size_t b0 = 0; b0 < B;) {
        std::size_t b1 = b0 + 1;
        while (b1 < B && encs[b1] == encs[b0]) ++b1;
        attend_run(Q, *encs[b0], b0, b1);
        b0 = b1;
      }
      return;
    }
    const float* keys = c.score == Score::Dot ? enc.memory.data() : enc.keys.data();
    nn::attention_scores(attn_, Q, B, Hd, keys, T, st.scores.data(), st.attn_scratch.data());
    for (std::size_t b = 0; b < B; ++b) {
      float* w = &st.weights[b * T];
      if (attn_override) {
        // Renormalise the user's row so it is a distribution, like softmax output.
        const float* o = attn_override + b * T;
        float s = 0.f;
        for (std::size_t t = 0; t < T; ++t) s += o[t];
        for (std::size_t t = 0; t < T; ++t) w[t] = o[t] / s;
      } else {
        std::memcpy(w, &st.scores[b * T], T * sizeof(float));
        kernels::masked_softmax(w, T, T);
      }
    }
    nn::attention_context(st.weights.data(), B, enc.memory.data(), T, Ho, st.context.data());
  };

  auto run_rnn = [&](const float* rest, std::size_t ldr) {
    if (!input_projection(rest, ldr, prev, B, st.gi.data())) {
      for (std::size_t b = 0; b < B; ++b) {
        std::memcpy(&st.x[b * D], dec_emb_ + std::size_t(prev[b]) * E, E * sizeof(float));
        if (D > E) std::memcpy(&st.x[b * D + E], rest + b * ldr, (D - E) * sizeof(float));
      }
      nn::linear_any(st.x.data(), D, dec_rnn_[0].w_ih, dec_rnn_[0].w_ih_packed, dec_rnn_[0].b_ih, st.gi.data(), GH, B,
                     GH, D, dec_rnn_[0].w_ih_q8);
    }
    for (std::size_t l = 0; l < L; ++l) {
      float* h = &st.h[l * cap * Hd];
      if (l > 0)
        nn::linear_any(h - cap * Hd, Hd, dec_rnn_[l].w_ih, dec_rnn_[l].w_ih_packed, dec_rnn_[l].b_ih, st.gi.data(), GH,
                       B, GH, Hd, dec_rnn_[l].w_ih_q8);
      nn::cell_forward(dec_rnn_[l], st.gi.data(), st.gh.data(), h, &st.c[l * cap * Hd], B);
    }
  };

  auto combine_and_output = [&]() {
    for (std::size_t b = 0; b < B; ++b) {  // cat = [c_k; s_k], context first
      std::memcpy(&st.cat[b * (Ho + Hd)], &st.context[b * Ho], Ho * sizeof(float));
      std::memcpy(&st.cat[b * (Ho + Hd) + Ho], h_top + b * Hd, Hd * sizeof(float));
    }
    nn::linear_any(st.cat.data(), Ho + Hd, combine_w_, combine_p_, combine_b_, st.htilde.data(), Hd, B, Hd, Ho + Hd,
                   combine_q_);
    kernels::tanh(st.htilde.data(), B * Hd);
    nn::linear_any(st.htilde.data(), Hd, out_w_, out_p_, out_b_, st.logits.data(), V, B, V, Hd, out_q_);
  };

  switch (c.style) {
    case Style::Luong:
      run_rnn(c.input_feeding ? st.htilde.data() : nullptr, Hd);
      attend(h_top);
      combine_and_output();
      break;
    case Style::Bahdanau:
      attend(h_top);  // query s_{k-1}
      run_rnn(st.context.data(), Ho);
      combine_and_output();
      break;
    case Style::None:
      run_rnn(nullptr, 0);
      std::memcpy(st.query.data(), h_top, B * Hd * sizeof(float));
      nn::linear_any(h_top, Hd, out_w_, out_p_, out_b_, st.logits.data(), V, B, V, Hd, out_q_);
      break;
  }
}

void Model::reorder(DecoderState& st, const std::int32_t* parents, int n) const {
  const auto& c = config_;
  if (n < 1 || n > st.capacity)
    throw std::invalid_argument("reorder: " + std::to_string(n) + " rows requested, state has room for " +
                                std::to_string(st.capacity));
  for (int r = 0; r < n; ++r)
    if (parents[r] < 0 || parents[r] >= st.B)
      throw std::invalid_argument("reorder: parent " + std::to_string(parents[r]) + " is not one of the " +
                                  std::to_string(st.B) + " live rows");
  const std::size_t cap = st.capacity, L = c.layers, Hd = c.dec_hidden;
  auto gather = [&](std::vector<float>& buf, std::size_t blocks) {
    for (std::size_t l = 0; l < blocks; ++l)
      for (int r = 0; r < n; ++r)
        std::memcpy(&st.tmp[l * cap * Hd + r * Hd], &buf[l * cap * Hd + parents[r] * Hd], Hd * sizeof(float));
    for (std::size_t l = 0; l < blocks; ++l)
      std::memcpy(&buf[l * cap * Hd], &st.tmp[l * cap * Hd], n * Hd * sizeof(float));
  };
  gather(st.h, L);
  if (c.cell == Cell::LSTM) gather(st.c, L);
  gather(st.htilde, 1);
  st.B = n;
}

}  // namespace attnseq
