// forward_backward: the training graph of the seq2seq, written out by hand (llm.c style). Forward
// keeps every activation in per-step caches; backward walks the decoder steps in reverse (carrying
// the state gradients), then the encoder layers top-down and each direction backwards in time.
// Padding: encoder rows past a source's length keep their state (forward) or have not started yet
// (backward direction), attention is masked to the real positions, and loss ignores padded targets.
#include "train/backprop.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "kernels/kernels.hpp"
#include "model/errors.hpp"
#include "nn/layers.hpp"

namespace attnseq::train {

Batch make_batch(const std::vector<std::vector<std::int32_t>>& src, const std::vector<std::vector<std::int32_t>>& tgt,
                 const ModelConfig& c) {
  if (src.size() != tgt.size() || src.empty())
    throw std::invalid_argument("make_batch: " + std::to_string(src.size()) + " sources and " +
                                std::to_string(tgt.size()) + " targets");
  Batch b;
  b.B = int(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (src[i].empty()) throw std::invalid_argument("make_batch: source " + std::to_string(i) + " is empty");
    if (src[i].size() > std::size_t(kMaxSourceLength) || tgt[i].size() + 1 > std::size_t(kMaxTargetLength))
      throw TooLong("make_batch: example " + std::to_string(i) + " is longer than the maximum");
    for (auto id : src[i])
      if (id < 0 || id >= c.src_vocab) throw std::invalid_argument("make_batch: source id " + std::to_string(id) + " out of range");
    for (auto id : tgt[i])
      if (id < 0 || id >= c.tgt_vocab) throw std::invalid_argument("make_batch: target id " + std::to_string(id) + " out of range");
    b.Ts = std::max(b.Ts, int(src[i].size()));
    b.Tt = std::max(b.Tt, int(tgt[i].size()) + 1);
  }
  const int B = b.B;
  b.src.assign(std::size_t(b.Ts) * B, c.pad);
  b.tgt_in.assign(std::size_t(b.Tt) * B, c.pad);
  b.tgt_out.assign(std::size_t(b.Tt) * B, -1);
  b.src_len.resize(B);
  for (int i = 0; i < B; ++i) {
    b.src_len[i] = int(src[i].size());
    for (std::size_t t = 0; t < src[i].size(); ++t) b.src[t * B + i] = src[i][t];
    const int n = int(tgt[i].size());
    for (int k = 0; k <= n; ++k) {
      b.tgt_in[std::size_t(k) * B + i] = k == 0 ? c.bos : tgt[i][k - 1];
      b.tgt_out[std::size_t(k) * B + i] = k < n ? tgt[i][k] : c.eos;
    }
    b.tokens += n + 1;
  }
  return b;
}

namespace {

using Vec = std::vector<float>;

// Views of one parameter and its gradient.
struct PG {
  const float* w = nullptr;
  float* g = nullptr;
};

struct Net {
  const Model& m;
  const ModelConfig& c;
  float* grad;
  Net(const Model& model, float* g) : m(model), c(model.config()), grad(g) {}
  PG get(const std::string& name) const {
    const float* w = m.params().find(name);
    if (!w) return {};
    return {w, grad ? grad + (w - m.params().data.data()) : nullptr};
  }
  nn::RnnWeights rnn(const std::string& prefix, const std::string& k, int in, int hidden) const {
    nn::RnnWeights w;
    w.w_ih = get(prefix + "weight_ih" + k).w;
    w.w_hh = get(prefix + "weight_hh" + k).w;
    w.b_ih = get(prefix + "bias_ih" + k).w;
    w.b_hh = get(prefix + "bias_hh" + k).w;
    w.in = in;
    w.hidden = hidden;
    w.cell = c.cell;
    return w;
  }
};

// One recurrent step's cache for B rows.
struct CellCache {
  Vec gates, gh, h_prev, c_prev, c_new;
};

}  // namespace

LossStats forward_backward(const Model& model, const Batch& bt, float* grad) {
  Net net(model, grad);
  const auto& c = model.config();
  const std::size_t B = bt.B, Ts = bt.Ts, Tt = bt.Tt, L = c.layers, dirs = c.bidirectional ? 2 : 1;
  const std::size_t He = c.enc_hidden, Ho = c.enc_out(), Hd = c.dec_hidden, G = c.gates();
  const std::size_t Es = c.src_emb, Et = c.tgt_emb, V = c.tgt_vocab, A = c.attn_dim, D = c.dec_input();
  const bool lstm = c.cell == Cell::LSTM;
  const bool want_grad = grad != nullptr;

  // ================= encoder forward =================
  // layer_in[l]: (Ts, B, in_l) inputs; enc_cache[l][d][t]: cell caches; outs: (Ts, B, Ho) per layer.
  std::vector<Vec> layer_in(L + 1);
  layer_in[0].resize(Ts * B * Es);
  const PG enc_emb = net.get("encoder.embedding.weight");
  nn::embedding_forward(enc_emb.w, Es, bt.src.data(), Ts * B, layer_in[0].data(), Es);
  std::vector<std::vector<std::vector<CellCache>>> enc_cache(L, std::vector<std::vector<CellCache>>(dirs));
  std::vector<Vec> final_h(L, Vec(B * Ho, 0.f)), final_c(L, Vec(B * Ho, 0.f));
  auto active = [&](std::size_t t, std::size_t b) { return int(t) < bt.src_len[b]; };
  for (std::size_t l = 0; l < L; ++l) {
    const std::size_t in = l == 0 ? Es : Ho;
    layer_in[l + 1].assign(Ts * B * Ho, 0.f);
    for (std::size_t d = 0; d < dirs; ++d) {
      const auto w = net.rnn("encoder.rnn.", "_l" + std::to_string(l) + (d ? "_reverse" : ""), int(in), int(He));
      Vec gi(Ts * B * G * He);
      nn::linear_forward(layer_in[l].data(), in, w.w_ih, w.b_ih, gi.data(), G * He, Ts * B, G * He, in);
      Vec h(B * He, 0.f), cs(B * He, 0.f);
      auto& cache = enc_cache[l][d];
      cache.resize(Ts);
      for (std::size_t k = 0; k < Ts; ++k) {
        const std::size_t t = d == 0 ? k : Ts - 1 - k;
        CellCache& cc = cache[t];
        cc.h_prev = h;
        cc.c_prev = cs;
        cc.gates.assign(gi.begin() + t * B * G * He, gi.begin() + (t + 1) * B * G * He);
        cc.gh.resize(B * G * He);
        nn::cell_forward(w, cc.gates.data(), cc.gh.data(), h.data(), cs.data(), B);
        cc.c_new = cs;
        for (std::size_t b = 0; b < B; ++b) {
          if (!active(t, b)) {  // padding: keep the state (forward) / not started yet (backward)
            std::memcpy(&h[b * He], &cc.h_prev[b * He], He * sizeof(float));
            std::memcpy(&cs[b * He], &cc.c_prev[b * He], He * sizeof(float));
            continue;
          }
          std::memcpy(&layer_in[l + 1][(t * B + b) * Ho + d * He], &h[b * He], He * sizeof(float));
        }
      }
      for (std::size_t b = 0; b < B; ++b) {
        std::memcpy(&final_h[l][b * Ho + d * He], &h[b * He], He * sizeof(float));
        std::memcpy(&final_c[l][b * Ho + d * He], &cs[b * He], He * sizeof(float));
      }
    }
  }
  // memory (B, Ts, Ho), batch-major for attention
  Vec memory(B * Ts * Ho, 0.f);
  for (std::size_t t = 0; t < Ts; ++t)
    for (std::size_t b = 0; b < B; ++b)
      std::memcpy(&memory[(b * Ts + t) * Ho], &layer_in[L][(t * B + b) * Ho], Ho * sizeof(float));
  const PG att_w = net.get("decoder.attention.weight"), att_k = net.get("decoder.attention.key.weight");
  const PG att_q = net.get("decoder.attention.query.weight"), att_v = net.get("decoder.attention.v.weight");
  std::size_t Kd = Hd;
  Vec keys;  // (B, Ts, Kd)
  if (c.has_attention() && c.score == Score::General) {
    keys.resize(B * Ts * Hd);
    nn::linear_forward(memory.data(), Ho, att_w.w, nullptr, keys.data(), Hd, B * Ts, Hd, Ho);
  } else if (c.has_attention() && c.score == Score::Additive) {
    Kd = A;
    keys.resize(B * Ts * A);
    nn::linear_forward(memory.data(), Ho, att_k.w, nullptr, keys.data(), A, B * Ts, A, Ho);
  }
  const float* key_ptr = c.score == Score::Dot ? memory.data() : keys.data();

  // initial decoder state
  const PG bridge_w = net.get("bridge.weight"), bridge_b = net.get("bridge.bias");
  std::vector<Vec> s0_h(L, Vec(B * Hd)), s0_c(L, Vec(B * Hd, 0.f));
  for (std::size_t l = 0; l < L; ++l) {
    if (bridge_w.w) {
      nn::linear_forward(final_h[l].data(), Ho, bridge_w.w, bridge_b.w, s0_h[l].data(), Hd, B, Hd, Ho);
      kernels::tanh(s0_h[l].data(), B * Hd);
      if (lstm) {
        nn::linear_forward(final_c[l].data(), Ho, bridge_w.w, bridge_b.w, s0_c[l].data(), Hd, B, Hd, Ho);
        kernels::tanh(s0_c[l].data(), B * Hd);
      }
    } else {
      s0_h[l] = final_h[l];
      if (lstm) s0_c[l] = final_c[l];
    }
  }

  // ================= decoder forward =================
  std::vector<nn::RnnWeights> drnn;
  for (std::size_t l = 0; l < L; ++l)
    drnn.push_back(net.rnn("decoder.rnn.", "_l" + std::to_string(l), int(l == 0 ? D : Hd), int(Hd)));
  const PG dec_emb = net.get("decoder.embedding.weight"), comb_w = net.get("decoder.combine.weight"),
           comb_b = net.get("decoder.combine.bias"), out_w = net.get("decoder.out.weight"), out_b = net.get("decoder.out.bias");
  nn::AttentionWeights aw;
  aw.score = c.score;
  aw.w_q = att_q.w;
  aw.v = att_v.w;
  aw.attn_dim = int(A);

  struct Step {
    Vec x;                         // (B, D) layer-0 input
    std::vector<CellCache> cell;   // per layer
    std::vector<Vec> layer_out;    // per layer (B, Hd): h after this step
    Vec query, weights, u, context, cat, htilde, probs;
  };
  std::vector<Step> steps(Tt);
  std::vector<Vec> h(s0_h), cst(s0_c);
  Vec htilde_prev(B * Hd, 0.f);
  LossStats stats;
  stats.tokens = bt.tokens;
  Vec scratch(A + Ts * A);

  auto attend = [&](Step& s, const float* Q) {
    s.query.assign(Q, Q + B * Hd);
    s.weights.assign(B * Ts, 0.f);
    s.context.assign(B * Ho, 0.f);
    if (c.score == Score::Additive) s.u.assign(B * Ts * A, 0.f);
    for (std::size_t b = 0; b < B; ++b) {
      float* w = &s.weights[b * Ts];
      nn::attention_scores(aw, &s.query[b * Hd], 1, Hd, key_ptr + b * Ts * Kd, Ts, w, scratch.data());
      if (c.score == Score::Additive) std::copy(scratch.begin() + A, scratch.end(), s.u.begin() + b * Ts * A);
      kernels::masked_softmax(w, Ts, bt.src_len[b]);
      nn::attention_context(w, 1, &memory[b * Ts * Ho], Ts, Ho, &s.context[b * Ho]);
    }
  };
  auto run_rnn = [&](Step& s, std::size_t k, const float* rest, std::size_t R) {
    s.x.assign(B * D, 0.f);
    for (std::size_t b = 0; b < B; ++b) {
      std::memcpy(&s.x[b * D], dec_emb.w + std::size_t(bt.tgt_in[k * B + b]) * Et, Et * sizeof(float));
      if (R) std::memcpy(&s.x[b * D + Et], rest + b * R, R * sizeof(float));
    }
    s.cell.resize(L);
    s.layer_out.resize(L);
    for (std::size_t l = 0; l < L; ++l) {
      CellCache& cc = s.cell[l];
      const float* xin = l == 0 ? s.x.data() : s.layer_out[l - 1].data();
      const std::size_t in = l == 0 ? D : Hd;
      cc.gates.resize(B * G * Hd);
      cc.gh.resize(B * G * Hd);
      nn::linear_forward(xin, in, drnn[l].w_ih, drnn[l].b_ih, cc.gates.data(), G * Hd, B, G * Hd, in);
      cc.h_prev = h[l];
      cc.c_prev = cst[l];
      nn::cell_forward(drnn[l], cc.gates.data(), cc.gh.data(), h[l].data(), cst[l].data(), B);
      cc.c_new = cst[l];
      s.layer_out[l] = h[l];
    }
  };
  auto combine = [&](Step& s) {
    s.cat.resize(B * (Ho + Hd));
    for (std::size_t b = 0; b < B; ++b) {
      std::memcpy(&s.cat[b * (Ho + Hd)], &s.context[b * Ho], Ho * sizeof(float));
      std::memcpy(&s.cat[b * (Ho + Hd) + Ho], &h[L - 1][b * Hd], Hd * sizeof(float));
    }
    s.htilde.resize(B * Hd);
    nn::linear_forward(s.cat.data(), Ho + Hd, comb_w.w, comb_b.w, s.htilde.data(), Hd, B, Hd, Ho + Hd);
    kernels::tanh(s.htilde.data(), B * Hd);
  };

  for (std::size_t k = 0; k < Tt; ++k) {
    Step& s = steps[k];
    if (c.style == Style::Luong) {
      run_rnn(s, k, c.input_feeding ? htilde_prev.data() : nullptr, c.input_feeding ? Hd : 0);
      attend(s, h[L - 1].data());
      combine(s);
      htilde_prev = s.htilde;
    } else if (c.style == Style::Bahdanau) {
      attend(s, h[L - 1].data());
      run_rnn(s, k, s.context.data(), Ho);
      combine(s);
    } else {
      run_rnn(s, k, nullptr, 0);
    }
    const float* feat = c.style == Style::None ? h[L - 1].data() : s.htilde.data();
    s.probs.resize(B * V);
    nn::linear_forward(feat, Hd, out_w.w, out_b.w, s.probs.data(), V, B, V, Hd);
    for (std::size_t b = 0; b < B; ++b) {
      float* p = &s.probs[b * V];
      const std::int32_t y = bt.tgt_out[k * B + b];
      if (y >= 0) {
        stats.loss_sum += double(kernels::logsumexp(p, V)) - p[y];
        stats.correct += int(kernels::argmax(p, V)) == y;
      }
      kernels::masked_softmax(p, V, V);
    }
  }
  if (!want_grad) return stats;

  // ================= decoder backward =================
  const float inv_n = 1.f / float(bt.tokens);
  std::vector<Vec> dh(L, Vec(B * Hd, 0.f)), dc(L, Vec(B * Hd, 0.f));  // carried to step k-1
  Vec dhtilde_next(B * Hd, 0.f);                                       // input feeding carry
  Vec dmemory(B * Ts * Ho, 0.f), dkeys(B * Ts * Kd, 0.f);
  const PG dec_emb_g = dec_emb;
  Vec dlogits(B * V), dfeat(B * Hd), dcat(B * (Ho + Hd)), dctx(B * Ho), dq(B * Hd), dx(B * D), dgi(B * G * Hd),
      dscratch(B * G * Hd), ascratch(2 * Ts + A);
  std::vector<PG> dW_ih(L), dW_hh(L), db_ih(L), db_hh(L);
  for (std::size_t l = 0; l < L; ++l) {
    const std::string k = "_l" + std::to_string(l);
    dW_ih[l] = net.get("decoder.rnn.weight_ih" + k);
    dW_hh[l] = net.get("decoder.rnn.weight_hh" + k);
    db_ih[l] = net.get("decoder.rnn.bias_ih" + k);
    db_hh[l] = net.get("decoder.rnn.bias_hh" + k);
  }
  auto attend_back = [&](const Step& s, const float* dcontext, float* dquery) {
    for (std::size_t b = 0; b < B; ++b)
      nn::attention_backward(aw, &s.query[b * Hd], Hd, key_ptr + b * Ts * Kd, Kd, &memory[b * Ts * Ho], Ho,
                             &s.weights[b * Ts], s.u.empty() ? nullptr : &s.u[b * Ts * A], Ts, bt.src_len[b],
                             dcontext + b * Ho, nullptr, &dmemory[b * Ts * Ho],
                             c.score == Score::Dot ? &dmemory[b * Ts * Ho] : &dkeys[b * Ts * Kd], dquery + b * Hd,
                             att_q.g, att_v.g, ascratch.data());
  };
  // RNN backward for one step: dh[l] holds the gradient w.r.t. this step's outputs; on exit dh/dc
  // hold the gradients w.r.t. the previous step's state, and dx the gradient w.r.t. the layer-0 input.
  auto rnn_back = [&](const Step& s) {
    for (std::size_t l = L; l-- > 0;) {
      const CellCache& cc = s.cell[l];
      std::fill(dgi.begin(), dgi.end(), 0.f);
      if (lstm)
        nn::lstm_cell_backward(drnn[l], cc.gates.data(), cc.h_prev.data(), cc.c_prev.data(), cc.c_new.data(),
                               dh[l].data(), dc[l].data(), dgi.data(), dW_hh[l].g, db_hh[l].g, B);
      else
        nn::gru_cell_backward(drnn[l], cc.gates.data(), cc.gh.data(), cc.h_prev.data(), dh[l].data(), dgi.data(),
                              dW_hh[l].g, db_hh[l].g, dscratch.data(), B);
      const float* xin = l == 0 ? s.x.data() : s.layer_out[l - 1].data();
      const std::size_t in = l == 0 ? D : Hd;
      if (l == 0) {
        std::fill(dx.begin(), dx.end(), 0.f);
        nn::linear_backward(xin, in, drnn[l].w_ih, dgi.data(), G * Hd, dx.data(), dW_ih[l].g, db_ih[l].g, B, G * Hd, in);
      } else {
        // the layer below's output at this step feeds this layer: its gradient joins dh[l-1]
        nn::linear_backward(xin, in, drnn[l].w_ih, dgi.data(), G * Hd, dh[l - 1].data(), dW_ih[l].g, db_ih[l].g, B, G * Hd, in);
      }
    }
  };

  for (std::size_t k = Tt; k-- > 0;) {
    const Step& s = steps[k];
    for (std::size_t b = 0; b < B; ++b) {
      const std::int32_t y = bt.tgt_out[k * B + b];
      for (std::size_t v = 0; v < V; ++v) dlogits[b * V + v] = y >= 0 ? s.probs[b * V + v] * inv_n : 0.f;
      if (y >= 0) dlogits[b * V + y] -= inv_n;
    }
    const float* feat = c.style == Style::None ? s.layer_out[L - 1].data() : s.htilde.data();
    if (c.style == Style::None) {
      nn::linear_backward(feat, Hd, out_w.w, dlogits.data(), V, dh[L - 1].data(), out_w.g, out_b.g, B, V, Hd);
      rnn_back(s);
    } else {
      std::fill(dfeat.begin(), dfeat.end(), 0.f);
      nn::linear_backward(feat, Hd, out_w.w, dlogits.data(), V, dfeat.data(), out_w.g, out_b.g, B, V, Hd);
      if (c.style == Style::Luong && c.input_feeding) kernels::add(dhtilde_next.data(), dfeat.data(), B * Hd);
      for (std::size_t i = 0; i < B * Hd; ++i) dfeat[i] *= 1.f - s.htilde[i] * s.htilde[i];  // tanh
      std::fill(dcat.begin(), dcat.end(), 0.f);
      nn::linear_backward(s.cat.data(), Ho + Hd, comb_w.w, dfeat.data(), Hd, dcat.data(), comb_w.g, comb_b.g, B, Hd, Ho + Hd);
      for (std::size_t b = 0; b < B; ++b) {
        std::memcpy(&dctx[b * Ho], &dcat[b * (Ho + Hd)], Ho * sizeof(float));
        kernels::add(&dcat[b * (Ho + Hd) + Ho], &dh[L - 1][b * Hd], Hd);
      }
      if (c.style == Style::Luong) {
        std::fill(dq.begin(), dq.end(), 0.f);
        attend_back(s, dctx.data(), dq.data());
        kernels::add(dq.data(), dh[L - 1].data(), B * Hd);  // query = s_k
        rnn_back(s);
        if (c.input_feeding)
          for (std::size_t b = 0; b < B; ++b)
            std::memcpy(&dhtilde_next[b * Hd], &dx[b * D + Et], Hd * sizeof(float));
      } else {  // bahdanau: the context also fed the RNN; the query was s_{k-1}
        rnn_back(s);
        for (std::size_t b = 0; b < B; ++b) kernels::add(&dx[b * D + Et], &dctx[b * Ho], Ho);
        std::fill(dq.begin(), dq.end(), 0.f);
        attend_back(s, dctx.data(), dq.data());
        kernels::add(dq.data(), dh[L - 1].data(), B * Hd);
      }
    }
    if (dec_emb_g.g)
      for (std::size_t b = 0; b < B; ++b)
        kernels::add(&dx[b * D], dec_emb_g.g + std::size_t(bt.tgt_in[k * B + b]) * Et, Et);
  }

  // keys back to the memory
  if (c.has_attention() && c.score == Score::General)
    nn::linear_backward(memory.data(), Ho, att_w.w, dkeys.data(), Hd, dmemory.data(), att_w.g, nullptr, B * Ts, Hd, Ho);
  else if (c.has_attention() && c.score == Score::Additive)
    nn::linear_backward(memory.data(), Ho, att_k.w, dkeys.data(), A, dmemory.data(), att_k.g, nullptr, B * Ts, A, Ho);

  // initial state back to the encoder's final states
  std::vector<Vec> dfinal_h(L, Vec(B * Ho, 0.f)), dfinal_c(L, Vec(B * Ho, 0.f));
  for (std::size_t l = 0; l < L; ++l) {
    if (bridge_w.w) {
      for (std::size_t i = 0; i < B * Hd; ++i) dh[l][i] *= 1.f - s0_h[l][i] * s0_h[l][i];
      nn::linear_backward(final_h[l].data(), Ho, bridge_w.w, dh[l].data(), Hd, dfinal_h[l].data(), bridge_w.g, bridge_b.g, B, Hd, Ho);
      if (lstm) {
        for (std::size_t i = 0; i < B * Hd; ++i) dc[l][i] *= 1.f - s0_c[l][i] * s0_c[l][i];
        nn::linear_backward(final_c[l].data(), Ho, bridge_w.w, dc[l].data(), Hd, dfinal_c[l].data(), bridge_w.g, bridge_b.g, B, Hd, Ho);
      }
    } else {
      dfinal_h[l] = dh[l];
      if (lstm) dfinal_c[l] = dc[l];
    }
  }

  // ================= encoder backward =================
  Vec dout(Ts * B * Ho, 0.f);  // gradient w.r.t. the current layer's outputs, time-major
  for (std::size_t t = 0; t < Ts; ++t)
    for (std::size_t b = 0; b < B; ++b)
      std::memcpy(&dout[(t * B + b) * Ho], &dmemory[(b * Ts + t) * Ho], Ho * sizeof(float));
  Vec dcell(B * G * He), escratch(B * G * He), dhe(B * He), dce(B * He), keep_h(B * He), keep_c(B * He);
  for (std::size_t l = L; l-- > 0;) {
    const std::size_t in = l == 0 ? Es : Ho;
    Vec din(Ts * B * in, 0.f);
    for (std::size_t d = 0; d < dirs; ++d) {
      const std::string k = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      const auto w = net.rnn("encoder.rnn.", k, int(in), int(He));
      const PG gw_ih = net.get("encoder.rnn.weight_ih" + k), gw_hh = net.get("encoder.rnn.weight_hh" + k);
      const PG gb_ih = net.get("encoder.rnn.bias_ih" + k), gb_hh = net.get("encoder.rnn.bias_hh" + k);
      Vec dgi_all(Ts * B * G * He, 0.f);
      for (std::size_t b = 0; b < B; ++b) {
        std::memcpy(&dhe[b * He], &dfinal_h[l][b * Ho + d * He], He * sizeof(float));
        std::memcpy(&dce[b * He], &dfinal_c[l][b * Ho + d * He], He * sizeof(float));
      }
      for (std::size_t kk = Ts; kk-- > 0;) {  // reverse of the forward order
        const std::size_t t = d == 0 ? kk : Ts - 1 - kk;
        const CellCache& cc = enc_cache[l][d][t];
        for (std::size_t b = 0; b < B; ++b)
          if (active(t, b)) kernels::add(&dout[(t * B + b) * Ho + d * He], &dhe[b * He], He);
        // Padding rows pass their state gradient through untouched: set them aside and zero them so
        // they add nothing to W_hh / b_hh, then put them back after the cell's backward.
        keep_h = dhe;
        keep_c = dce;
        for (std::size_t b = 0; b < B; ++b)
          if (!active(t, b)) {
            std::fill(&dhe[b * He], &dhe[b * He] + He, 0.f);
            std::fill(&dce[b * He], &dce[b * He] + He, 0.f);
          }
        std::fill(dcell.begin(), dcell.end(), 0.f);
        float* dgi_t = &dgi_all[t * B * G * He];
        if (lstm)
          nn::lstm_cell_backward(w, cc.gates.data(), cc.h_prev.data(), cc.c_prev.data(), cc.c_new.data(), dhe.data(),
                                 dce.data(), dcell.data(), gw_hh.g, gb_hh.g, B);
        else
          nn::gru_cell_backward(w, cc.gates.data(), cc.gh.data(), cc.h_prev.data(), dhe.data(), dcell.data(), gw_hh.g,
                                gb_hh.g, escratch.data(), B);
        for (std::size_t b = 0; b < B; ++b) {
          if (active(t, b)) {
            std::memcpy(dgi_t + b * G * He, &dcell[b * G * He], G * He * sizeof(float));
            continue;
          }
          std::memcpy(&dhe[b * He], &keep_h[b * He], He * sizeof(float));
          std::memcpy(&dce[b * He], &keep_c[b * He], He * sizeof(float));
        }
      }
      nn::linear_backward(layer_in[l].data(), in, w.w_ih, dgi_all.data(), G * He, din.data(), gw_ih.g, gb_ih.g,
                          Ts * B, G * He, in);
    }
    dout.swap(din);
  }
  const PG enc_emb_g = enc_emb;
  if (enc_emb_g.g)
    for (std::size_t i = 0; i < Ts * B; ++i)
      if (int(i / B) < bt.src_len[i % B]) kernels::add(&dout[i * Es], enc_emb_g.g + std::size_t(bt.src[i]) * Es, Es);
  return stats;
}

}  // namespace attnseq::train
