// Model::encode and encode_batch: the encoder runs once per source, or once for many sources. Per
// layer and direction, the input projections of every position of every source are one matrix
// product (or, on layer 0, rows of the per-token table); then the recurrence, one product per step
// over the sources still running. Afterwards the source-only attention keys and the decoder's s_0.
// A batch is processed longest source first, so that the sources still running at step k are a
// prefix of the rows; every product gives each row what it gives that row alone.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "kernels/kernels.hpp"
#include "model/errors.hpp"
#include "model/model.hpp"

namespace attnseq {

void Model::check_source(const std::int32_t* src, int T) const {
  const auto& c = config_;
  if (T <= 0) throw std::invalid_argument("encode: the source is empty (0 tokens)");
  if (T > kMaxSourceLength)
    throw TooLong("encode: the source has " + std::to_string(T) + " tokens; the maximum is " +
                  std::to_string(kMaxSourceLength));
  for (int t = 0; t < T; ++t)
    if (src[t] < 0 || src[t] >= c.src_vocab)
      throw std::invalid_argument("encode: source token " + std::to_string(t) + " has id " + std::to_string(src[t]) +
                                  ", outside the source vocabulary [0, " + std::to_string(c.src_vocab) + ")");
}

void Model::encode(const std::int32_t* src, int T, Encoded& e) const {
  check_source(src, T);
  Encoded* out = &e;
  encode_rows(&src, &T, 1, &out, e);
}

void Model::encode_batch(const std::int32_t* const* srcs, const int* lens, int n, std::vector<Encoded>& out) const {
  if (n < 1 || n > kMaxRows)
    throw std::invalid_argument("encode_batch: " + std::to_string(n) + " sources; a batch holds 1 to " +
                                std::to_string(kMaxRows));
  for (int i = 0; i < n; ++i) {
    try {
      check_source(srcs[i], lens[i]);
    } catch (const std::invalid_argument& e) {
      raise_with_context("source " + std::to_string(i) + ": ", e);
    }
  }
  if (out.size() < std::size_t(n)) out.resize(n);
  std::vector<Encoded*> outs(n);
  for (int i = 0; i < n; ++i) outs[i] = &out[i];
  encode_rows(srcs, lens, n, outs.data(), out[0]);
}

// srcs are valid. s is the scratch (it may be one of outs: its scratch fields are not outputs).
void Model::encode_rows(const std::int32_t* const* srcs, const int* lens, int n, Encoded* const* outs,
                        Encoded& s) const {
  const auto& c = config_;
  const std::size_t He = c.enc_hidden, Ho = c.enc_out(), Hd = c.dec_hidden, G = c.gates(), L = c.layers;
  const std::size_t GH = G * He, N = n;
  const int dirs = c.bidirectional ? 2 : 1;
  const bool lstm = c.cell == Cell::LSTM;
  // Row j of the batch is source order[j], longest first; position t of row j is padded row j Tm + t.
  s.order.resize(N);
  std::iota(s.order.begin(), s.order.end(), 0);
  std::stable_sort(s.order.begin(), s.order.end(), [&](int a, int b) { return lens[a] > lens[b]; });
  const std::size_t Tm = std::size_t(lens[s.order[0]]), P = N * Tm;
  auto len = [&](std::size_t j) { return std::size_t(lens[s.order[j]]); };
  for (std::size_t i = 0; i < N; ++i) {
    Encoded& e = *outs[i];
    e.T = lens[i];
    e.model_id = id_;
    e.src.assign(srcs[i], srcs[i] + lens[i]);
    e.final_h.assign(L * Ho, 0.f);
    if (lstm) e.final_c.assign(L * Ho, 0.f);
  }
  s.layer_in.assign(P * std::max<std::size_t>(Ho, c.src_emb), 0.f);
  s.layer_out.resize(P * Ho);
  s.gi.resize(P * GH);
  s.gh.resize(N * GH);
  s.h.resize(N * He);
  s.c.resize(N * He);
  if (N > 1 || (tables_ && L > 0)) s.run.resize(N * GH);
  if (q8_cols_) nn::q8_reserve(std::max<std::size_t>(P, N * L), q8_cols_);  // the int8 products' scratch

  for (std::size_t l = 0; l < L; ++l) {
    const std::size_t in = l == 0 ? c.src_emb : Ho;
    const bool table = l == 0 && tables_;
    if (l == 0 && !tables_)
      for (std::size_t j = 0; j < N; ++j)
        nn::embedding_forward(enc_emb_, in, srcs[s.order[j]], len(j), &s.layer_in[j * Tm * in], in);
    std::fill(s.layer_out.begin(), s.layer_out.end(), 0.f);
    for (int d = 0; d < dirs; ++d) {
      const auto& w = enc_rnn_[l * dirs + d];
      // gi (P, G He) = x W_ih^T + b_ih for every position at once.
      if (!table)
        nn::linear_any(s.layer_in.data(), in, w.w_ih, w.w_ih_packed, w.b_ih, s.gi.data(), GH, P, GH, in, w.w_ih_q8);
      std::fill(s.h.begin(), s.h.end(), 0.f);
      std::fill(s.c.begin(), s.c.end(), 0.f);
      std::size_t running = N;
      for (std::size_t k = 0; k < Tm; ++k) {
        while (running > 0 && len(running - 1) <= k) --running;  // rows [0, running) have position k
        auto pos = [&](std::size_t j) { return d == 0 ? k : len(j) - 1 - k; };
        float* x;
        if (!table && N == 1) {
          x = &s.gi[pos(0) * GH];
        } else {
          x = s.run.data();
          for (std::size_t j = 0; j < running; ++j) {
            const float* from =
                table ? &enc_table_[d][std::size_t(srcs[s.order[j]][pos(j)]) * GH] : &s.gi[(j * Tm + pos(j)) * GH];
            std::memcpy(x + j * GH, from, GH * sizeof(float));
          }
        }
        nn::cell_forward(w, x, s.gh.data(), s.h.data(), s.c.data(), running);
        for (std::size_t j = 0; j < running; ++j)
          std::memcpy(&s.layer_out[(j * Tm + pos(j)) * Ho + d * He], &s.h[j * He], He * sizeof(float));
      }
      for (std::size_t j = 0; j < N; ++j) {
        Encoded& e = *outs[s.order[j]];
        std::memcpy(&e.final_h[l * Ho + d * He], &s.h[j * He], He * sizeof(float));
        if (lstm) std::memcpy(&e.final_c[l * Ho + d * He], &s.c[j * He], He * sizeof(float));
      }
    }
    std::swap(s.layer_in, s.layer_out);  // this layer's output is the next layer's input
    s.layer_out.resize(P * Ho);
  }
  // After the swap, layer_in holds the top layer's outputs: the memory banks. Source-only attention
  // work, done once: general keys W_a h_i, additive keys W_k h_i, for every position in one product.
  std::size_t K = 0;
  if (c.has_attention() && c.score == Score::General) {
    K = Hd;
    s.rows.resize(P * K);
    nn::linear_any(s.layer_in.data(), Ho, att_general_, att_general_p_, nullptr, s.rows.data(), K, P, K, Ho,
                   att_general_q_);
  } else if (c.has_attention() && c.score == Score::Additive) {
    K = c.attn_dim;
    s.rows.resize(P * K);
    nn::linear_any(s.layer_in.data(), Ho, att_key_, att_key_p_, nullptr, s.rows.data(), K, P, K, Ho, att_key_q_);
  }
  for (std::size_t j = 0; j < N; ++j) {
    Encoded& e = *outs[s.order[j]];
    const float* m = &s.layer_in[j * Tm * Ho];
    e.memory.assign(m, m + len(j) * Ho);
    if (K)
      e.keys.assign(&s.rows[j * Tm * K], &s.rows[j * Tm * K] + len(j) * K);
    else
      e.keys.clear();
  }

  // Decoder initial state s_0 per layer: the encoder's final state, through the bridge if present;
  // the bridge for every source and layer in one product.
  auto init = [&](std::vector<float> Encoded::*from, std::vector<float> Encoded::*to) {
    if (!bridge_w_) {
      for (std::size_t i = 0; i < N; ++i) (outs[i]->*to).assign((outs[i]->*from).begin(), (outs[i]->*from).end());
      return;
    }
    s.run.resize(std::max(s.run.size(), 2 * N * L * std::max(Ho, Hd)));
    float* x = s.run.data();
    float* y = x + N * L * Ho;
    for (std::size_t i = 0; i < N; ++i) std::memcpy(x + i * L * Ho, (outs[i]->*from).data(), L * Ho * sizeof(float));
    nn::linear_any(x, Ho, bridge_w_, bridge_p_, bridge_b_, y, Hd, N * L, Hd, Ho, bridge_q_);
    kernels::tanh(y, N * L * Hd);
    for (std::size_t i = 0; i < N; ++i) (outs[i]->*to).assign(y + i * L * Hd, y + (i + 1) * L * Hd);
  };
  init(&Encoded::final_h, &Encoded::init_h);
  if (lstm)
    init(&Encoded::final_c, &Encoded::init_c);
  else
    for (std::size_t i = 0; i < N; ++i) outs[i]->init_c.assign(L * Hd, 0.f);
}

}  // namespace attnseq
