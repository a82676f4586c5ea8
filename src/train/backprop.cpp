// forward_backward: the training graph of the seq2seq, in five passes. model/forward.hpp holds each
// pass of the network beside its backward (llm.c style): fwd::encoder_forward, fwd::decoder_step per
// target position (with a tape that keeps every activation), then, after the output layer and the
// loss (here), fwd::decoder_step_backward per position in reverse (carrying the state gradients) and
// fwd::encoder_backward. Padding: the encoder runs a row only over its own positions (rows longest
// first, the running ones a prefix), attention is masked to the real positions, and the loss ignores
// padded targets.
#include "train/backprop.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"
#include "decode/decode.hpp"
#include "kernels/kernels.hpp"
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
      if (id < 0 || id >= c.src_vocab)
        throw std::invalid_argument("make_batch: source id " + std::to_string(id) + " out of range");
    for (auto id : tgt[i])
      if (id < 0 || id >= c.tgt_vocab)
        throw std::invalid_argument("make_batch: target id " + std::to_string(id) + " out of range");
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

// One decoder step's activations: the shared forward pass's tape (model/forward.hpp).
using Step = fwd::StepTape;

// Dropout masks from the seed, in the order the forward pass asks for them.
struct DropMasks final : fwd::Masks {
  Rng& rng;
  float p;
  DropMasks(Rng& r, float dropout) : rng(r), p(dropout) {}
  void draw(std::vector<float>& m, std::size_t n) override {
    m.resize(n);
    const float keep = 1.f / (1.f - p);
    for (auto& v : m) v = rng.uniform() < p ? 0.f : keep;
  }
};

// Grows v to at least n elements (never shrinks: the elements keep their buffers for the next call).
template <class T>
void at_least(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

struct Workspace::Impl {
  // The parameters' addresses (the tensor table, bind_tensors), bound once per model (key: the
  // buffer and the model id).
  const float* key_data = nullptr;
  std::uint64_t key_id = 0;
  Tensors<const float*> t;
  fwd::Grads g;  // the gradients' addresses in the buffer grad_key (bound on first use)
  const float* grad_key = nullptr;
  // Packed copies (kernels::pack) of the matrices the forward pass multiplies by, refreshed each call
  // (the weights change between steps); the packed product streams each one once per few rows.
  // Backward multiplies by the transposes (dX += dY W): those are packed too, as W^T, on first use.
  struct Packed {
    const float* w = nullptr;
    bool transposed = false;
    std::size_t call = 0;
    Vec p;
  };
  std::vector<Packed> packed;
  std::size_t calls = 0;
  // Activations and gradients.
  std::vector<std::int32_t> src_rows;  // (B, Ts) the sources, batch-major
  std::vector<const std::int32_t*> src_ptrs;
  fwd::EncoderWeights ew;
  fwd::EncoderRun er;
  fwd::EncoderTape etape;
  std::vector<std::size_t> inv;  // source b is the encoder's row inv[b]
  fwd::DecoderWeights dw;
  DecoderState dstate;
  std::vector<fwd::Source> sources;
  std::vector<const fwd::Source*> rows;
  std::vector<fwd::SourceGrad> source_grads;      // decoder row r's attention gradients
  std::vector<std::size_t> dorder, tlen, active;  // decoder row r = example dorder[r]; rows running at step k
  std::vector<std::int32_t> prev;                 // a step's previous tokens, in decoder row order
  std::vector<Step> steps;
  fwd::DecoderBackward dback;
  fwd::EncoderBackward eback;
  // The output layer over every step at once: features (N, Hd), each row's target, a chunk's logits
  // (then d objective / d logits), d objective / d features (N, Hd).
  Vec feats, logits, dfeats;
  std::vector<std::int32_t> row_y;
  std::vector<std::size_t> row_pos;  // each row's token: k B + b (the soft targets' and probs_out's row)

  void bind(const Model& m) {
    if (key_data == m.params().data.data() && key_id == m.id()) return;
    t = bind_tensors<const float*>(m.config(), m.params().specs, m.params().offsets, m.params().data.data());
    packed.clear();
    grad_key = nullptr;
    key_data = m.params().data.data();
    key_id = m.id();
  }
};

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

namespace {

// Per-call access to the workspace's parameters and their packed copies.
struct Net final : fwd::Transposes {
  Workspace::Impl& ws;
  const ModelConfig& c;
  Net(Workspace::Impl& w, const Model& model) : ws(w), c(model.config()) {
    ws.bind(model);
    ++ws.calls;
  }
  // W (M, N) packed for this call's products (X W^T), or with `transposed` W^T (N, M) packed (for
  // backward's dY W); made at a call's first use.
  const float* packed(const float* w, std::size_t M, std::size_t N, bool transposed = false) {
    if (!w) return nullptr;
    Workspace::Impl::Packed* slot = nullptr;
    for (auto& p : ws.packed)
      if (p.w == w && p.transposed == transposed) slot = &p;
    if (slot && slot->call == ws.calls) return slot->p.data();
    if (!slot) {
      ws.packed.push_back({w, transposed, 0, {}});
      slot = &ws.packed.back();
    }
    if (transposed) {
      slot->p.resize(kernels::packed_size(N, M));
      kernels::pack_transposed(w, M, N, slot->p.data());
    } else {
      slot->p.resize(kernels::packed_size(M, N));
      kernels::pack(w, M, N, slot->p.data());
    }
    slot->call = ws.calls;
    return slot->p.data();
  }
  const float* packed_t(const float* w, std::size_t M, std::size_t N) override { return packed(w, M, N, true); }
  nn::RnnWeights rnn(const RnnTensors<const float*>& r, int in, int hidden) {
    nn::RnnWeights w;
    w.in = in;
    w.hidden = hidden;
    w.cell = c.cell;
    const std::size_t GH = std::size_t(w.gates()) * hidden;
    w.ih = {r.w_ih, packed(r.w_ih, GH, in), r.b_ih, {}};
    w.hh = {r.w_hh, packed(r.w_hh, GH, hidden), r.b_hh, {}};
    return w;
  }
};

}  // namespace

double matmul_flops(const ModelConfig& c, const Batch& bt, bool backward) {
  const double He = c.enc_hidden, Ho = c.enc_out(), Hd = c.dec_hidden, G = c.gates(), A = c.attn_dim;
  const double dirs = c.bidirectional ? 2 : 1, b = double(bt.B), ts = double(bt.Ts);
  double src_tokens = 0;  // the recurrence runs each source over its own positions only
  for (int n : bt.src_len) src_tokens += n;
  double f = 0;
  for (int l = 0; l < c.layers; ++l) {  // encoder: input projection of every padded position, recurrence
    const double in = l == 0 ? c.src_emb : Ho;
    f += dirs * 2 * G * He * (ts * b * in + src_tokens * He);
  }
  const double Kd = c.score == Score::Additive ? A : Hd;
  if (c.has_attention() && c.score != Score::Dot) f += 2 * b * ts * Kd * Ho;  // keys
  if (c.bridge) f += c.layers * 2 * b * Hd * Ho * (c.cell == Cell::LSTM ? 2 : 1);
  double row = 0;  // one decoder step of one row; a row runs one step per target token (EOS included)
  for (int l = 0; l < c.layers; ++l) row += 2 * G * Hd * ((l == 0 ? c.dec_input() : Hd) + Hd);
  if (c.has_attention()) {
    row += 2 * ts * (Kd + Ho);                                       // scores, context
    if (c.score == Score::Additive) row += 2 * A * Hd + 2 * ts * A;  // query projection, v
    row += 2 * Hd * (Ho + Hd);                                       // combine
  }
  row += 2 * double(c.tgt_vocab) * Hd;  // output layer
  f += double(bt.tokens) * row;
  return backward ? 3 * f : f;
}

void check(const ForwardOptions& o) {
  if (!(o.dropout >= 0.f && o.dropout < 1.f))
    throw std::invalid_argument("dropout is " + std::to_string(o.dropout) + "; it must be in [0, 1)");
  if (!(o.label_smoothing >= 0.f && o.label_smoothing < 1.f))
    throw std::invalid_argument("label_smoothing is " + std::to_string(o.label_smoothing) + "; it must be in [0, 1)");
  if (!(o.soft_weight >= 0.f && o.soft_weight <= 1.f))
    throw std::invalid_argument("soft_weight is " + std::to_string(o.soft_weight) + "; it must be in [0, 1]");
  if (o.soft_weight > 0.f && !o.soft_targets)
    throw std::invalid_argument("soft_weight is " + std::to_string(o.soft_weight) + " but no soft_targets were given");
}

LossStats forward_backward(const Model& model, const Batch& bt, float* grad, const ForwardOptions& fo,
                           Workspace* workspace) {
  check(fo);
  std::unique_ptr<Workspace> local;
  if (!workspace) local = std::make_unique<Workspace>();
  Workspace::Impl& ws = (workspace ? workspace : local.get())->impl();
  Net net(ws, model);
  const auto& c = model.config();
  const auto& t = ws.t;
  const std::size_t B = bt.B, Ts = bt.Ts, Tt = bt.Tt, L = c.layers, dirs = c.bidirectional ? 2 : 1;
  const std::size_t He = c.enc_hidden, Ho = c.enc_out(), Hd = c.dec_hidden;
  const std::size_t Es = c.src_emb, V = c.tgt_vocab, A = c.attn_dim, D = c.dec_input();
  const bool want_grad = grad != nullptr;
  // Dropout masks: 0 or 1 / (1 - p) per element, drawn in forward order from the seed.
  const bool drop = fo.dropout > 0.f;
  Rng drop_rng(fo.seed);
  DropMasks masks(drop_rng, fo.dropout);

  // ================= encoder forward =================
  // The inference encoder (fwd::encoder_forward) with a tape. It runs the sources longest first:
  // source b is row inv[b] of its buffers, its position t at padded row inv[b] Ts + t.
  auto& src_rows = ws.src_rows;
  auto& src_ptrs = ws.src_ptrs;
  src_rows.resize(B * Ts);
  src_ptrs.resize(B);
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t k = 0; k < Ts; ++k) src_rows[b * Ts + k] = bt.src[k * B + b];
    src_ptrs[b] = &src_rows[b * Ts];
  }
  auto& ew = ws.ew;
  ew.rnn.clear();
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t d = 0; d < dirs; ++d)
      ew.rnn.push_back(net.rnn(t.enc_rnn[l * dirs + d], int(l == 0 ? Es : Ho), int(He)));
  ew.emb = t.enc_emb;
  ew.table[0] = ew.table[1] = nullptr;
  ew.att_general = {t.att_general, net.packed(t.att_general, Hd, Ho), nullptr, {}};
  ew.att_key = {t.att_key, net.packed(t.att_key, A, Ho), nullptr, {}};
  ew.bridge = {t.bridge, net.packed(t.bridge, Hd, Ho), t.bridge_bias, {}};
  auto& er = ws.er;
  fwd::encoder_forward(c, ew, src_ptrs.data(), bt.src_len.data(), B, er, &ws.etape, drop ? &masks : nullptr);
  auto& inv = ws.inv;
  inv.resize(B);
  for (std::size_t j = 0; j < B; ++j) inv[er.order[j]] = j;
  const std::size_t Kd = c.score == Score::Additive ? A : Hd;
  const float* key_ptr = c.score == Score::Dot ? er.memory.data() : er.keys.data();
  const std::size_t Kk = c.score == Score::Dot ? Ho : Kd;  // key row size in key_ptr

  // ================= decoder forward =================
  // The decoder steps are the inference step (fwd::decoder_step) with a tape per step.
  auto& dw = ws.dw;
  dw.rnn.clear();
  for (std::size_t l = 0; l < L; ++l) dw.rnn.push_back(net.rnn(t.dec_rnn[l], int(l == 0 ? D : Hd), int(Hd)));
  dw.attn = nn::AttentionWeights{};
  dw.attn.score = c.score;
  dw.attn.query = {t.att_query, nullptr, t.att_query_bias, {}};
  dw.attn.v = t.att_v;
  dw.attn.attn_dim = int(A);
  dw.emb = t.dec_emb;
  dw.combine = {t.combine, net.packed(t.combine, Hd, Ho + Hd), t.combine_bias, {}};
  dw.out = {t.out, net.packed(t.out, V, Hd), t.out_bias, {}};
  dw.table = nullptr;
  dw.rest = {};
  // Decoder row r is example dorder[r], longest target first, so that the rows still decoding at
  // step k (the target has a token there) are the prefix [0, active[k]): each step runs on those
  // alone, as the encoder does, and a finished row costs nothing more.
  auto& dorder = ws.dorder;
  auto& tlen = ws.tlen;
  auto& active = ws.active;
  dorder.resize(B);
  tlen.resize(B);
  active.assign(Tt, 0);
  for (std::size_t b = 0; b < B; ++b) {
    std::size_t n = 0;
    while (n < Tt && bt.tgt_out[n * B + b] >= 0) ++n;
    tlen[b] = n;
    for (std::size_t k = 0; k < n; ++k) ++active[k];
    std::size_t r = b;  // stable insertion sort (no allocation)
    for (; r > 0 && tlen[dorder[r - 1]] < n; --r) dorder[r] = dorder[r - 1];
    dorder[r] = b;
  }
  auto& st = ws.dstate;
  fwd::size_state(c, st, int(B), int(Ts));
  st.B = int(B);
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t r = 0; r < B; ++r) {
      const std::size_t b = dorder[r];
      std::memcpy(&st.h[(l * B + r) * Hd], &er.init_h[(b * L + l) * Hd], Hd * sizeof(float));
      std::memcpy(&st.c[(l * B + r) * Hd], &er.init_c[(b * L + l) * Hd], Hd * sizeof(float));
    }
  ws.sources.resize(B);
  ws.rows.resize(B);
  ws.prev.resize(B);
  for (std::size_t r = 0; r < B; ++r) {
    const std::size_t b = dorder[r];
    ws.sources[r] = {key_ptr + inv[b] * Ts * Kk, &er.memory[inv[b] * Ts * Ho], Ts, std::size_t(bt.src_len[b])};
    ws.rows[r] = &ws.sources[r];
  }
  // The previous tokens of step k's rows, in decoder row order.
  auto prev_of = [&](std::size_t k) {
    for (std::size_t r = 0; r < active[k]; ++r) ws.prev[r] = bt.tgt_in[k * B + dorder[r]];
    return ws.prev.data();
  };

  auto& steps = ws.steps;
  at_least(steps, Tt);
  LossStats stats;
  stats.tokens = bt.tokens;
  // The steps' output features, one row per (step, decoder row), step-major: the output layer runs
  // once over all of them below instead of once per step, so its matrix (the largest of a real
  // vocabulary) streams from memory once per chunk of rows rather than once per step, in each of its
  // three products (bench/RESULTS.md, "Training at a translation vocabulary").
  auto& feats = ws.feats;
  auto& row_y = ws.row_y;
  auto& row_pos = ws.row_pos;
  std::size_t N = 0;
  for (std::size_t k = 0; k < Tt; ++k) N += active[k];
  feats.resize(N * Hd);
  row_y.resize(N);
  row_pos.resize(N);
  for (std::size_t k = 0, n = 0; k < Tt; ++k) {
    Step& s = steps[k];
    at_least(s.cell, L);
    s.defer_logits = true;
    const std::size_t Bk = active[k];
    const fwd::StepRecord record{&s, drop ? &masks : nullptr};
    fwd::decoder_step(c, dw, st, prev_of(k), Bk, ws.rows.data(), nullptr, &record);
    const float* feat = drop ? s.feat.data() : c.style == Style::None ? s.cell[L - 1].h.data() : s.htilde.data();
    std::memcpy(&feats[n * Hd], feat, Bk * Hd * sizeof(float));
    for (std::size_t r = 0; r < Bk; ++r) {
      row_pos[n + r] = k * B + dorder[r];
      row_y[n + r] = bt.tgt_out[row_pos[n + r]];
    }
    n += Bk;
  }

  // ================= output layer and loss =================
  // Over chunks of rows: logits, the loss, and with gradients d objective / d logits = p - target
  // distribution ((1 - a) ((1 - e) one-hot + e / V) + a q) per token, then dW += dlogits^T feats,
  // db += dlogits, and dfeats = dlogits W (through W^T, packed, so that W streams once per chunk).
  if (want_grad && ws.grad_key != grad) {
    ws.g = bind_tensors<float*>(c, model.params().specs, model.params().offsets, grad);
    ws.grad_key = grad;
  }
  const fwd::Grads& g = ws.g;
  constexpr std::size_t kChunk = 256;
  auto& logits = ws.logits;
  auto& dfeats = ws.dfeats;
  logits.resize(std::min(N, kChunk) * V);
  if (want_grad) dfeats.assign(N * Hd, 0.f);
  const float* out_packed = net.packed(t.out, V, Hd);
  const float* out_t_packed = want_grad ? net.packed_t(t.out, V, Hd) : nullptr;
  const float inv_n = 1.f / float(bt.tokens);
  const float a = fo.soft_weight;
  const float smooth = (1.f - a) * fo.label_smoothing / float(V), hit = (1.f - a) * (1.f - fo.label_smoothing);
  for (std::size_t r0 = 0; r0 < N; r0 += kChunk) {
    const std::size_t R = std::min(kChunk, N - r0);
    kernels::gemm_packed(&feats[r0 * Hd], Hd, out_packed, t.out_bias, logits.data(), V, R, V, Hd);
    for (std::size_t r = 0; r < R; ++r) {
      float* p = &logits[r * V];
      const std::int32_t y = row_y[r0 + r];
      const double lse = kernels::logsumexp(p, V), nll = lse - p[y];
      stats.loss_sum += nll;
      stats.correct += int(kernels::argmax(p, V)) == y;
      double objective = nll;
      if (fo.label_smoothing > 0.f) {
        double mean = 0;
        for (std::size_t v = 0; v < V; ++v) mean += p[v];
        mean /= double(V);
        objective = (1.0 - fo.label_smoothing) * nll + fo.label_smoothing * (lse - mean);
      }
      const float* q = a > 0.f ? fo.soft_targets + row_pos[r0 + r] * V : nullptr;
      if (q) {  // the cross-entropy against q: lse - sum_v q_v z_v (q sums to 1)
        double qz = 0;
        for (std::size_t v = 0; v < V; ++v) qz += double(q[v]) * p[v];
        objective = (1.0 - a) * objective + a * (lse - qz);
      }
      stats.objective_sum += objective;
      if (fo.probs_out) {
        float* out = fo.probs_out + row_pos[r0 + r] * V;
        std::memcpy(out, p, V * sizeof(float));
        kernels::masked_softmax(out, V, V);
      }
      if (!want_grad) continue;
      kernels::masked_softmax(p, V, V);
      if (q)
        for (std::size_t v = 0; v < V; ++v) p[v] = (p[v] - smooth - a * q[v]) * inv_n;
      else
        for (std::size_t v = 0; v < V; ++v) p[v] = (p[v] - smooth) * inv_n;
      p[y] -= hit * inv_n;
      kernels::add(p, g.out_bias, V);
    }
    if (!want_grad) continue;
    kernels::gemm_acc(logits.data(), 1, V, &feats[r0 * Hd], Hd, g.out, Hd, V, Hd, R);               // dW += dl^T F
    kernels::gemm_packed(logits.data(), V, out_t_packed, nullptr, &dfeats[r0 * Hd], Hd, R, Hd, V);  // dl W
  }
  if (!want_grad) return stats;

  // ================= decoder backward =================
  // The steps in reverse; step k's rows are the prefix [0, active[k]) (rows that start at step k
  // carry zero gradients). Each row's attention gradients add into its source's encoder rows.
  auto& eb = ws.eback;
  eb.start(c, er);
  auto& db = ws.dback;
  db.start(c, B, Ts);
  ws.source_grads.resize(B);
  for (std::size_t r = 0; r < B; ++r) {
    const std::size_t j = inv[dorder[r]];  // the example's encoder row
    float* dmem = &eb.dmemory[j * Ts * Ho];
    ws.source_grads[r] = {c.score == Score::Dot ? dmem : &eb.dkeys[j * Ts * Kd], dmem};
  }
  std::size_t row_end = N;  // step k's rows of dfeats end here (steps are stored in order)
  for (std::size_t k = Tt; k-- > 0;) {
    row_end -= active[k];
    fwd::decoder_step_backward(c, dw, steps[k], &dfeats[row_end * Hd], prev_of(k), active[k], ws.rows.data(),
                               ws.source_grads.data(), drop, g, db, net);
  }

  // ================= encoder backward =================
  // s_0's gradient, decoder row r to example dorder[r], then the encoder's own backward.
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t r = 0; r < B; ++r) {
      const std::size_t b = dorder[r];
      std::memcpy(&eb.dinit_h[(b * L + l) * Hd], &db.dh[l][r * Hd], Hd * sizeof(float));
      std::memcpy(&eb.dinit_c[(b * L + l) * Hd], &db.dc[l][r * Hd], Hd * sizeof(float));
    }
  fwd::encoder_backward(c, ew, er, ws.etape, src_ptrs.data(), drop, g, eb, net);
  return stats;
}

}  // namespace attnseq::train
