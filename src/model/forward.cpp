// The decoder step and the encoder, shared by inference and training, each followed by its backward
// (forward.hpp).
// Styles (docs/model.md): luong queries with s_k after the RNN; bahdanau with s_{k-1} before it and
// feeds c_k into the RNN; none (vanilla) has no attention: s_0 = h_T is all the decoder ever sees.
#include "model/forward.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/kernels.hpp"
#include "model/model.hpp"

namespace attnseq::fwd {
namespace {

template <class T>
void copy_into(std::vector<T>& to, const T* from, std::size_t n) {
  to.resize(n);
  std::memcpy(to.data(), from, n * sizeof(T));
}

}  // namespace

void size_state(const ModelConfig& c, DecoderState& st, int capacity, int T) {
  const std::size_t cap = capacity, L = c.layers, Hd = c.dec_hidden, Ho = c.enc_out(), Tn = T;
  const std::size_t G = c.gates(), A = c.attn_dim;
  st.capacity = capacity;
  st.T = T;
  st.B = 0;
  st.h.assign(L * cap * Hd, 0.f);
  st.c.assign(L * cap * Hd, 0.f);
  st.htilde.assign(cap * Hd, 0.f);
  st.query.assign(cap * Hd, 0.f);
  st.scores.assign(cap * Tn, 0.f);
  st.attention.assign(cap * Tn, 0.f);
  st.context.assign(cap * Ho, 0.f);
  st.logits.assign(cap * std::size_t(c.tgt_vocab), 0.f);
  st.gi.assign(2 * cap * G * Hd, 0.f);  // second half: scratch for the fed vector's product
  st.gh.assign(cap * G * Hd, 0.f);
  st.x.assign(cap * std::size_t(c.dec_input()), 0.f);
  st.cat.assign(cap * (Ho + Hd), 0.f);
  st.attn_scratch.assign(cap * A + Tn * A, 0.f);
  st.tmp.assign(std::max(L * cap * Hd, cap * Tn), 0.f);  // reorder's gather; a multi-source step's scores
  st.sources.assign(cap, Source{});
  st.rows.assign(cap, nullptr);
}

void decoder_step(const ModelConfig& c, const DecoderWeights& w, DecoderState& st, const std::int32_t* prev,
                  std::size_t B, const Source* const* rows, const float* attn_override, const StepRecord* record) {
  StepTape* const tape = record ? record->tape : nullptr;
  Masks* const masks = record ? record->masks : nullptr;
  const std::size_t cap = st.capacity, L = c.layers, Hd = c.dec_hidden, Ho = c.enc_out(), T = st.T;
  const std::size_t E = c.tgt_emb, D = c.dec_input(), R = D - E, G = c.gates(), GH = G * Hd, V = c.tgt_vocab;
  const std::size_t A = c.attn_dim;
  const bool additive = c.score == Score::Additive;
  float* h_top = &st.h[(L - 1) * cap * Hd];

  // Rows [b0, b1) attend to one source s: one scores product, then per row the softmax over its
  // valid positions (or the override, renormalised), zero beyond, and the context.
  auto attend_run = [&](const Source& s, std::size_t b0, std::size_t b1) {
    const std::size_t Ts = s.T, n = b1 - b0;
    float* sc = Ts == T ? &st.scores[b0 * T] : st.tmp.data();  // (n, Ts), spread to stride T if Ts < T
    nn::attention_scores(w.attn, &st.query[b0 * Hd], n, Hd, s.keys, Ts, sc, st.attn_scratch.data());
    if (tape && additive) {  // training attends row by row: the scratch holds this row's u (Ts, A)
      tape->u.resize(B * T * A);
      std::memcpy(&tape->u[b0 * T * A], st.attn_scratch.data() + n * A, Ts * A * sizeof(float));
    }
    for (std::size_t b = b0; b < b1; ++b) {
      float* srow = &st.scores[b * T];
      float* wrow = &st.attention[b * T];
      if (Ts < T) {
        std::memcpy(srow, sc + (b - b0) * Ts, Ts * sizeof(float));
        std::fill(srow + Ts, srow + T, 0.f);
      }
      if (attn_override) {
        const float* o = attn_override + b * T;
        float sum = 0.f;
        for (std::size_t t = 0; t < Ts; ++t) sum += o[t];
        for (std::size_t t = 0; t < Ts; ++t) wrow[t] = o[t] / sum;
      } else {
        std::memcpy(wrow, srow, Ts * sizeof(float));
        kernels::masked_softmax(wrow, Ts, s.valid);
      }
      std::fill(wrow + Ts, wrow + T, 0.f);
    }
    if (Ts == T) {
      nn::attention_context(&st.attention[b0 * T], n, s.memory, Ts, Ho, &st.context[b0 * Ho]);
    } else {
      for (std::size_t b = b0; b < b1; ++b)
        nn::attention_context(&st.attention[b * T], 1, s.memory, Ts, Ho, &st.context[b * Ho]);
    }
  };
  auto attend = [&](const float* Q) {
    std::memcpy(st.query.data(), Q, B * Hd * sizeof(float));
    for (std::size_t b0 = 0; b0 < B;) {
      std::size_t b1 = b0 + 1;
      while (b1 < B && rows[b1] == rows[b0]) ++b1;
      attend_run(*rows[b0], b0, b1);
      b0 = b1;
    }
    if (tape) {
      tape->T = T;
      copy_into(tape->query, st.query.data(), B * Hd);
      copy_into(tape->weights, st.attention.data(), B * T);
      copy_into(tape->context, st.context.data(), B * Ho);
    }
  };

  // The recurrent layers; rest (B rows at stride ldr, R columns) is what layer 0 is fed beside
  // emb(y_{k-1}): h~_{k-1} (luong with input feeding), c_k (bahdanau), or nothing.
  auto run_rnn = [&](const float* rest, std::size_t ldr) {
    float* gi0 = tape ? (tape->cell[0].gates.resize(B * GH), tape->cell[0].gates.data()) : st.gi.data();
    if (w.table) {  // gi = table[y] (+ rest W_rest^T): inference's shortcut
      for (std::size_t b = 0; b < B; ++b)
        std::memcpy(gi0 + b * GH, &w.table[std::size_t(prev[b]) * GH], GH * sizeof(float));
      if (R) {
        float* tmp = st.gi.data() + cap * GH;  // the products overwrite: add through the scratch half
        w.rest(rest, ldr, tmp, GH, B, GH, R);
        kernels::add(tmp, gi0, B * GH);
      }
    } else {
      float* x = st.x.data();
      for (std::size_t b = 0; b < B; ++b) {
        std::memcpy(x + b * D, w.emb + std::size_t(prev[b]) * E, E * sizeof(float));
        if (R && rest) std::memcpy(x + b * D + E, rest + b * ldr, R * sizeof(float));
      }
      if (masks) {
        masks->draw(tape->emb_mask, B * E);
        for (std::size_t b = 0; b < B; ++b) kernels::mul(x + b * D, &tape->emb_mask[b * E], x + b * D, E);
      }
      if (tape) copy_into(tape->x, x, B * D);
      const auto& w0 = w.rnn[0];
      w0.ih(x, D, gi0, GH, B, GH, D);
    }
    for (std::size_t l = 0; l < L; ++l) {
      float* h = &st.h[l * cap * Hd];
      float* cs = &st.c[l * cap * Hd];
      CellTape* ct = tape ? &tape->cell[l] : nullptr;
      float* gi = l == 0 ? gi0 : ct ? (ct->gates.resize(B * GH), ct->gates.data()) : st.gi.data();
      float* gh = ct ? (ct->gh.resize(B * GH), ct->gh.data()) : st.gh.data();
      if (l > 0) {
        const float* xin = h - cap * Hd;  // the layer below's new state
        if (masks) {
          masks->draw(ct->in_mask, B * Hd);
          ct->in_drop.resize(B * Hd);
          kernels::mul(xin, ct->in_mask.data(), ct->in_drop.data(), B * Hd);
          xin = ct->in_drop.data();
        }
        const auto& wl = w.rnn[l];
        wl.ih(xin, Hd, gi, GH, B, GH, Hd);
      }
      if (ct) {
        copy_into(ct->h_prev, h, B * Hd);
        copy_into(ct->c_prev, cs, B * Hd);
      }
      nn::cell_forward(w.rnn[l], gi, gh, h, cs, B);
      if (ct) {
        copy_into(ct->c_new, cs, B * Hd);
        copy_into(ct->h, h, B * Hd);
      }
    }
  };

  // The output features: h~ (or the top state without attention), dropped in training; with input
  // feeding, what is fed to the next step is this (dropped) h~, kept in st.htilde.
  auto output = [&](const float* f) {
    if (masks) {
      masks->draw(tape->feat_mask, B * Hd);
      tape->feat.resize(B * Hd);
      kernels::mul(f, tape->feat_mask.data(), tape->feat.data(), B * Hd);
      f = tape->feat.data();
    }
    if (c.style != Style::None && f != st.htilde.data()) std::memcpy(st.htilde.data(), f, B * Hd * sizeof(float));
    if (!(tape && tape->defer_logits)) w.out(f, Hd, st.logits.data(), V, B, V, Hd);
  };
  auto combine_and_output = [&]() {
    float* cat = st.cat.data();
    for (std::size_t b = 0; b < B; ++b) {  // cat = [c_k; s_k], context first
      std::memcpy(cat + b * (Ho + Hd), &st.context[b * Ho], Ho * sizeof(float));
      std::memcpy(cat + b * (Ho + Hd) + Ho, h_top + b * Hd, Hd * sizeof(float));
    }
    float* ht = tape ? (tape->htilde.resize(B * Hd), tape->htilde.data()) : st.htilde.data();
    w.combine(cat, Ho + Hd, ht, Hd, B, Hd, Ho + Hd);
    kernels::tanh(ht, B * Hd);
    if (tape) copy_into(tape->cat, cat, B * (Ho + Hd));
    output(ht);
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
      output(h_top);
      break;
  }
}

void DecoderBackward::start(const ModelConfig& c, std::size_t rows, std::size_t T) {
  const std::size_t L = c.layers, Hd = c.dec_hidden, Ho = c.enc_out(), G = c.gates(), D = c.dec_input();
  if (dh.size() < L) dh.resize(L), dc.resize(L);  // never shrinks: each keeps its buffer for the next call
  for (std::size_t l = 0; l < L; ++l) dh[l].assign(rows * Hd, 0.f), dc[l].assign(rows * Hd, 0.f);
  dhtilde_next.assign(rows * Hd, 0.f);
  dfeat.resize(rows * Hd), dtmp.resize(rows * Hd), dcat.resize(rows * (Ho + Hd)), dctx.resize(rows * Ho);
  dq.resize(rows * Hd), dx.resize(rows * D), dgi.resize(rows * G * Hd), dscratch.resize(rows * G * Hd);
  ascratch.resize(2 * T + std::size_t(c.attn_dim));
}

void decoder_step_backward(const ModelConfig& c, const DecoderWeights& w, const StepTape& s, const float* dout,
                           const std::int32_t* prev, std::size_t B, const Source* const* rows, const SourceGrad* grads,
                           bool dropout, const Grads& g, DecoderBackward& b, Transposes& tr) {
  const std::size_t L = c.layers, Hd = c.dec_hidden, Ho = c.enc_out(), G = c.gates(), D = c.dec_input();
  const std::size_t Et = c.tgt_emb, A = c.attn_dim;
  const bool lstm = c.cell == Cell::LSTM;
  auto &dh = b.dh, &dc = b.dc;
  auto &dfeat = b.dfeat, &dtmp = b.dtmp, &dcat = b.dcat, &dctx = b.dctx, &dq = b.dq, &dx = b.dx, &dgi = b.dgi;
  const std::size_t T = s.T;
  const std::size_t Kk = c.score == Score::Dot ? Ho : c.score == Score::Additive ? A : Hd;  // key row size
  auto attend_back = [&](const float* dcontext, float* dquery) {
    for (std::size_t r = 0; r < B; ++r) {
      const Source& src = *rows[r];
      nn::attention_backward(w.attn, &s.query[r * Hd], Hd, src.keys, Kk, src.memory, Ho, &s.weights[r * T],
                             s.u.empty() ? nullptr : &s.u[r * T * A], T, src.valid, dcontext + r * Ho, nullptr,
                             grads[r].memory, grads[r].keys, dquery + r * Hd, g.att_query, g.att_query_bias, g.att_v,
                             b.ascratch.data());
    }
  };
  // The recurrent layers, top down: dh[l] holds the gradient w.r.t. this step's outputs; on exit dh/dc
  // hold the gradients w.r.t. the previous step's state, and dx the gradient w.r.t. the layer-0 input.
  auto rnn_back = [&]() {
    for (std::size_t l = L; l-- > 0;) {
      const CellTape& cc = s.cell[l];
      const nn::RnnWeights& wl = w.rnn[l];
      const RnnTensors<float*>& gl = g.dec_rnn[l];
      const std::size_t in = l == 0 ? D : Hd;
      const float* w_ih_t = tr.packed_t(wl.ih.w, G * Hd, in);
      const float* w_hh_t = tr.packed_t(wl.hh.w, G * Hd, Hd);
      std::fill(dgi.begin(), dgi.end(), 0.f);
      if (lstm)
        nn::lstm_cell_backward(wl, cc.gates.data(), cc.h_prev.data(), cc.c_prev.data(), cc.c_new.data(), dh[l].data(),
                               dc[l].data(), dgi.data(), gl.w_hh, gl.b_hh, B, w_hh_t);
      else
        nn::gru_cell_backward(wl, cc.gates.data(), cc.gh.data(), cc.h_prev.data(), dh[l].data(), dgi.data(), gl.w_hh,
                              gl.b_hh, b.dscratch.data(), B, w_hh_t);
      const float* xin = l == 0 ? s.x.data() : dropout ? s.cell[l].in_drop.data() : s.cell[l - 1].h.data();
      if (l == 0) {
        std::fill(dx.begin(), dx.end(), 0.f);
        nn::linear_backward(xin, in, wl.ih.w, dgi.data(), G * Hd, dx.data(), gl.w_ih, gl.b_ih, B, G * Hd, in, w_ih_t);
      } else if (dropout) {  // through the dropout mask between the layers
        std::fill(dtmp.begin(), dtmp.end(), 0.f);
        nn::linear_backward(xin, in, wl.ih.w, dgi.data(), G * Hd, dtmp.data(), gl.w_ih, gl.b_ih, B, G * Hd, in, w_ih_t);
        kernels::mul(dtmp.data(), s.cell[l].in_mask.data(), dtmp.data(), B * Hd);
        kernels::add(dtmp.data(), dh[l - 1].data(), B * Hd);
      } else {
        // the layer below's output at this step feeds this layer: its gradient joins dh[l-1]
        nn::linear_backward(xin, in, wl.ih.w, dgi.data(), G * Hd, dh[l - 1].data(), gl.w_ih, gl.b_ih, B, G * Hd, in,
                            w_ih_t);
      }
    }
  };

  if (c.style == Style::None) {
    if (dropout) {
      std::memcpy(dfeat.data(), dout, B * Hd * sizeof(float));
      kernels::mul(dfeat.data(), s.feat_mask.data(), dfeat.data(), B * Hd);
      kernels::add(dfeat.data(), dh[L - 1].data(), B * Hd);
    } else {
      kernels::add(dout, dh[L - 1].data(), B * Hd);
    }
    rnn_back();
  } else {
    std::memcpy(dfeat.data(), dout, B * Hd * sizeof(float));
    if (c.style == Style::Luong && c.input_feeding) kernels::add(b.dhtilde_next.data(), dfeat.data(), B * Hd);
    if (dropout) kernels::mul(dfeat.data(), s.feat_mask.data(), dfeat.data(), B * Hd);
    for (std::size_t i = 0; i < B * Hd; ++i) dfeat[i] *= 1.f - s.htilde[i] * s.htilde[i];  // tanh
    std::fill(dcat.begin(), dcat.end(), 0.f);
    nn::linear_backward(s.cat.data(), Ho + Hd, w.combine.w, dfeat.data(), Hd, dcat.data(), g.combine, g.combine_bias, B,
                        Hd, Ho + Hd, tr.packed_t(w.combine.w, Hd, Ho + Hd));
    for (std::size_t r = 0; r < B; ++r) {
      std::memcpy(&dctx[r * Ho], &dcat[r * (Ho + Hd)], Ho * sizeof(float));
      kernels::add(&dcat[r * (Ho + Hd) + Ho], &dh[L - 1][r * Hd], Hd);
    }
    if (c.style == Style::Luong) {
      std::fill(dq.begin(), dq.end(), 0.f);
      attend_back(dctx.data(), dq.data());
      kernels::add(dq.data(), dh[L - 1].data(), B * Hd);  // query = s_k
      rnn_back();
      if (c.input_feeding)
        for (std::size_t r = 0; r < B; ++r) std::memcpy(&b.dhtilde_next[r * Hd], &dx[r * D + Et], Hd * sizeof(float));
    } else {  // bahdanau: the context also fed the RNN; the query was s_{k-1}
      rnn_back();
      for (std::size_t r = 0; r < B; ++r) kernels::add(&dx[r * D + Et], &dctx[r * Ho], Ho);
      std::fill(dq.begin(), dq.end(), 0.f);
      attend_back(dctx.data(), dq.data());
      kernels::add(dq.data(), dh[L - 1].data(), B * Hd);
    }
  }
  if (dropout)
    for (std::size_t r = 0; r < B; ++r) kernels::mul(&dx[r * D], &s.emb_mask[r * Et], &dx[r * D], Et);
  if (g.dec_emb)
    for (std::size_t r = 0; r < B; ++r) kernels::add(&dx[r * D], g.dec_emb + std::size_t(prev[r]) * Et, Et);
}

void encoder_forward(const ModelConfig& c, const EncoderWeights& w, const std::int32_t* const* srcs, const int* lens,
                     std::size_t n, EncoderRun& r, EncoderTape* tape, Masks* masks) {
  const std::size_t He = c.enc_hidden, Ho = c.enc_out(), Hd = c.dec_hidden, G = c.gates(), L = c.layers;
  const std::size_t GH = G * He, N = n, Es = c.src_emb;
  const std::size_t dirs = c.bidirectional ? 2 : 1;
  const bool lstm = c.cell == Cell::LSTM;
  // Row j of the batch is source order[j], longest first; position t of row j is padded row j Tm + t.
  r.order.resize(N);
  // A stable insertion sort (std::stable_sort would allocate its buffer on every call).
  for (std::size_t i = 0; i < N; ++i) {
    std::size_t j = i;
    for (; j > 0 && lens[r.order[j - 1]] < lens[i]; --j) r.order[j] = r.order[j - 1];
    r.order[j] = int(i);
  }
  r.lens.resize(N);
  for (std::size_t j = 0; j < N; ++j) r.lens[j] = std::size_t(lens[r.order[j]]);
  const std::size_t Tm = r.lens[0], P = N * Tm;
  r.Tm = Tm;
  r.final_h.assign(N * L * Ho, 0.f);
  r.final_c.assign(lstm ? N * L * Ho : 0, 0.f);
  // memory: the current layer's input, at the end the top layer's output. The two buffers trade
  // places every layer, so both are sized for either role.
  r.memory.assign(P * std::max(Ho, Es), 0.f);
  r.layer_out.resize(P * std::max(Ho, Es));
  r.gi.resize(P * GH);
  r.gh.resize(N * GH);
  r.h.resize(N * He);
  r.c.resize(N * He);
  r.x.resize(N * GH);
  if (tape) {
    if (tape->input.size() < L) tape->input.resize(L);
    if (tape->mask.size() < L) tape->mask.resize(L);
    if (tape->cell.size() < L * dirs * Tm) tape->cell.resize(L * dirs * Tm);
  }

  for (std::size_t l = 0; l < L; ++l) {
    const std::size_t in = l == 0 ? Es : Ho;
    const bool table = l == 0 && w.table[0];
    if (l == 0 && !table)
      for (std::size_t j = 0; j < N; ++j)
        nn::embedding_forward(w.emb, in, srcs[r.order[j]], r.lens[j], &r.memory[j * Tm * in], in);
    if (masks) {  // dropout on the source embeddings and between stacked layers
      masks->draw(tape->mask[l], P * in);
      kernels::mul(r.memory.data(), tape->mask[l].data(), r.memory.data(), P * in);
    }
    if (tape) copy_into(tape->input[l], r.memory.data(), P * in);
    std::fill(r.layer_out.begin(), r.layer_out.end(), 0.f);
    for (std::size_t d = 0; d < dirs; ++d) {
      const auto& rw = w.rnn[l * dirs + d];
      // gi (P, G He) = x W_ih^T + b_ih for every position at once.
      if (!table) rw.ih(r.memory.data(), in, r.gi.data(), GH, P, GH, in);
      std::fill(r.h.begin(), r.h.end(), 0.f);
      std::fill(r.c.begin(), r.c.end(), 0.f);
      std::size_t running = N;
      for (std::size_t k = 0; k < Tm; ++k) {
        while (running > 0 && r.lens[running - 1] <= k) --running;  // rows [0, running) have position k
        auto pos = [&](std::size_t j) { return d == 0 ? k : r.lens[j] - 1 - k; };
        CellTape* ct = tape ? &tape->cell[(l * dirs + d) * Tm + k] : nullptr;
        // x (running, G He): the rows' input projections at this position, then their gates.
        const bool in_place = !ct && !table && N == 1;  // the position's own gi row: nothing reads it again
        float* x = ct ? (ct->gates.resize(running * GH), ct->gates.data()) : in_place ? &r.gi[pos(0) * GH] : r.x.data();
        float* gh = ct ? (ct->gh.resize(running * GH), ct->gh.data()) : r.gh.data();
        if (!in_place)
          for (std::size_t j = 0; j < running; ++j) {
            const float* from =
                table ? &w.table[d][std::size_t(srcs[r.order[j]][pos(j)]) * GH] : &r.gi[(j * Tm + pos(j)) * GH];
            std::memcpy(x + j * GH, from, GH * sizeof(float));
          }
        if (ct) {
          copy_into(ct->h_prev, r.h.data(), running * He);
          copy_into(ct->c_prev, r.c.data(), running * He);
        }
        nn::cell_forward(rw, x, gh, r.h.data(), r.c.data(), running, k == 0);  // h starts at 0
        if (ct) copy_into(ct->c_new, r.c.data(), running * He);
        for (std::size_t j = 0; j < running; ++j)
          std::memcpy(&r.layer_out[(j * Tm + pos(j)) * Ho + d * He], &r.h[j * He], He * sizeof(float));
      }
      for (std::size_t j = 0; j < N; ++j) {
        const std::size_t i = r.order[j];
        std::memcpy(&r.final_h[(i * L + l) * Ho + d * He], &r.h[j * He], He * sizeof(float));
        if (lstm) std::memcpy(&r.final_c[(i * L + l) * Ho + d * He], &r.c[j * He], He * sizeof(float));
      }
    }
    std::swap(r.memory, r.layer_out);  // this layer's output is the next layer's input
    r.layer_out.resize(P * std::max(Ho, Es));
  }
  r.memory.resize(P * Ho);

  // Source-only attention work, done once: general keys W_a h_i, additive keys W_k h_i, for every
  // position in one product.
  if (c.has_attention() && c.score == Score::General) {
    r.keys.resize(P * Hd);
    w.att_general(r.memory.data(), Ho, r.keys.data(), Hd, P, Hd, Ho);
  } else if (c.has_attention() && c.score == Score::Additive) {
    r.keys.resize(P * c.attn_dim);
    w.att_key(r.memory.data(), Ho, r.keys.data(), c.attn_dim, P, c.attn_dim, Ho);
  } else {
    r.keys.clear();
  }

  // The decoder's initial state s_0 per layer: the encoder's final state, through the bridge if
  // present (tanh(W_b h_T + b_b), for LSTM also the cell), every source and layer in one product.
  if (w.bridge.w) {
    r.init_h.resize(N * L * Hd);
    w.bridge(r.final_h.data(), Ho, r.init_h.data(), Hd, N * L, Hd, Ho);
    kernels::tanh(r.init_h.data(), N * L * Hd);
    r.init_c.assign(N * L * Hd, 0.f);
    if (lstm) {
      w.bridge(r.final_c.data(), Ho, r.init_c.data(), Hd, N * L, Hd, Ho);
      kernels::tanh(r.init_c.data(), N * L * Hd);
    }
  } else {  // Ho == Hd (ModelConfig::validate)
    r.init_h.assign(r.final_h.begin(), r.final_h.end());
    if (lstm)
      r.init_c.assign(r.final_c.begin(), r.final_c.end());
    else
      r.init_c.assign(N * L * Hd, 0.f);
  }
}

void EncoderBackward::start(const ModelConfig& c, const EncoderRun& r) {
  const std::size_t n = r.order.size(), P = n * r.Tm, L = c.layers, Hd = c.dec_hidden;
  const std::size_t K = c.score == Score::Additive ? c.attn_dim : Hd;
  dmemory.assign(P * std::size_t(c.enc_out()), 0.f);
  dkeys.assign(P * K, 0.f);
  dinit_h.resize(n * L * Hd);
  dinit_c.resize(n * L * Hd);
}

void encoder_backward(const ModelConfig& c, const EncoderWeights& w, const EncoderRun& r, const EncoderTape& tape,
                      const std::int32_t* const* srcs, bool dropout, const Grads& g, EncoderBackward& b,
                      Transposes& tr) {
  const std::size_t He = c.enc_hidden, Ho = c.enc_out(), Hd = c.dec_hidden, G = c.gates(), L = c.layers;
  const std::size_t Es = c.src_emb, A = c.attn_dim, dirs = c.bidirectional ? 2 : 1;
  const std::size_t N = r.order.size(), Tm = r.Tm, P = N * Tm;
  const bool lstm = c.cell == Cell::LSTM;

  // The keys back to the memory (every padded position at once; padding has zero gradient).
  if (c.has_attention() && c.score == Score::General)
    nn::linear_backward(r.memory.data(), Ho, w.att_general.w, b.dkeys.data(), Hd, b.dmemory.data(), g.att_general,
                        nullptr, P, Hd, Ho, tr.packed_t(w.att_general.w, Hd, Ho));
  else if (c.has_attention() && c.score == Score::Additive)
    nn::linear_backward(r.memory.data(), Ho, w.att_key.w, b.dkeys.data(), A, b.dmemory.data(), g.att_key, nullptr, P, A,
                        Ho, tr.packed_t(w.att_key.w, A, Ho));

  // s_0 back to the encoder's final states (n, L, .), through the bridge if present.
  auto &dinit_h = b.dinit_h, &dinit_c = b.dinit_c, &dfinal_h = b.dfinal_h, &dfinal_c = b.dfinal_c;
  dfinal_h.assign(N * L * Ho, 0.f);
  dfinal_c.assign(N * L * Ho, 0.f);
  if (w.bridge.w) {
    for (std::size_t i = 0; i < N * L * Hd; ++i) dinit_h[i] *= 1.f - r.init_h[i] * r.init_h[i];
    nn::linear_backward(r.final_h.data(), Ho, w.bridge.w, dinit_h.data(), Hd, dfinal_h.data(), g.bridge, g.bridge_bias,
                        N * L, Hd, Ho);
    if (lstm) {
      for (std::size_t i = 0; i < N * L * Hd; ++i) dinit_c[i] *= 1.f - r.init_c[i] * r.init_c[i];
      nn::linear_backward(r.final_c.data(), Ho, w.bridge.w, dinit_c.data(), Hd, dfinal_c.data(), g.bridge,
                          g.bridge_bias, N * L, Hd, Ho);
    }
  } else {  // Ho == Hd
    dfinal_h.assign(dinit_h.begin(), dinit_h.end());
    if (lstm) dfinal_c.assign(dinit_c.begin(), dinit_c.end());
  }

  // The layers top-down, each direction backwards over the steps the forward ran: at step k the rows
  // still running are the prefix [0, running(k)); a finished row's state gradient passes through.
  auto& dout = b.dout;  // d objective / d the current layer's outputs, (P, Ho) in the run's row order
  dout.assign(b.dmemory.begin(), b.dmemory.end());
  auto &dcell = b.dcell, &dhe = b.dh, &dce = b.dc;
  dcell.resize(N * G * He), b.scratch.resize(N * G * He), dhe.resize(N * He), dce.resize(N * He);
  for (std::size_t l = L; l-- > 0;) {
    const std::size_t in = l == 0 ? Es : Ho;
    auto& din = b.din;
    din.assign(P * in, 0.f);
    for (std::size_t d = 0; d < dirs; ++d) {
      const nn::RnnWeights& wl = w.rnn[l * dirs + d];
      const RnnTensors<float*>& gl = g.enc_rnn[l * dirs + d];
      const float *w_ih_t = tr.packed_t(wl.ih.w, G * He, in), *w_hh_t = tr.packed_t(wl.hh.w, G * He, He);
      auto& dgi = b.dgi;
      dgi.assign(P * G * He, 0.f);
      for (std::size_t j = 0; j < N; ++j) {
        const std::size_t i = r.order[j];
        std::memcpy(&dhe[j * He], &dfinal_h[(i * L + l) * Ho + d * He], He * sizeof(float));
        std::memcpy(&dce[j * He], &dfinal_c[(i * L + l) * Ho + d * He], He * sizeof(float));
      }
      for (std::size_t k = Tm; k-- > 0;) {  // reverse of the forward order
        std::size_t running = 0;
        while (running < N && r.lens[running] > k) ++running;
        auto pos = [&](std::size_t j) { return d == 0 ? k : r.lens[j] - 1 - k; };
        const CellTape& cc = tape.cell[(l * dirs + d) * Tm + k];
        for (std::size_t j = 0; j < running; ++j)
          kernels::add(&dout[(j * Tm + pos(j)) * Ho + d * He], &dhe[j * He], He);
        std::fill(dcell.begin(), dcell.begin() + running * G * He, 0.f);
        if (lstm)
          nn::lstm_cell_backward(wl, cc.gates.data(), cc.h_prev.data(), cc.c_prev.data(), cc.c_new.data(), dhe.data(),
                                 dce.data(), dcell.data(), gl.w_hh, gl.b_hh, running, w_hh_t);
        else
          nn::gru_cell_backward(wl, cc.gates.data(), cc.gh.data(), cc.h_prev.data(), dhe.data(), dcell.data(), gl.w_hh,
                                gl.b_hh, b.scratch.data(), running, w_hh_t);
        for (std::size_t j = 0; j < running; ++j)
          std::memcpy(&dgi[(j * Tm + pos(j)) * G * He], &dcell[j * G * He], G * He * sizeof(float));
      }
      nn::linear_backward(tape.input[l].data(), in, wl.ih.w, dgi.data(), G * He, din.data(), gl.w_ih, gl.b_ih, P,
                          G * He, in, w_ih_t);
    }
    if (dropout) kernels::mul(din.data(), tape.mask[l].data(), din.data(), din.size());
    dout.assign(din.begin(), din.end());  // a copy, not a swap: each buffer keeps its own capacity
  }
  if (g.enc_emb)
    for (std::size_t j = 0; j < N; ++j)
      for (std::size_t t = 0; t < r.lens[j]; ++t)
        kernels::add(&dout[(j * Tm + t) * Es], g.enc_emb + std::size_t(srcs[r.order[j]][t]) * Es, Es);
}

}  // namespace attnseq::fwd
