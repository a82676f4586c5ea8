// forward_backward: the training graph of the seq2seq. Forward is inference's own code
// (model/forward.hpp: fwd::encoder_forward, then fwd::decoder_step per target position) run with a
// tape that keeps every activation; backward, written out by hand (llm.c style), walks the decoder
// steps in reverse (carrying the state gradients), then the encoder layers top-down and each
// direction backwards over the steps the forward ran. Padding: the encoder runs a row only over its
// own positions (rows longest first, the running ones a prefix), attention is masked to the real
// positions, and the loss ignores padded targets.
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

// Views of one parameter and its gradient.
struct PG {
  const float* w = nullptr;
  float* g = nullptr;
};

// One recurrent step's cache for B rows (the shared forward pass's layout).
using CellCache = fwd::CellTape;

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

// The addresses of one recurrent layer's four tensors.
struct RnnParams {
  const float *w_ih = nullptr, *w_hh = nullptr, *b_ih = nullptr, *b_hh = nullptr;
};

// Grows v to at least n elements (never shrinks: the elements keep their buffers for the next call).
template <class T>
void at_least(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

struct Workspace::Impl {
  // The parameters' addresses, looked up by name once per model (key: the buffer and the model id).
  const float* key_data = nullptr;
  std::uint64_t key_id = 0;
  const float *enc_emb = nullptr, *dec_emb = nullptr, *att_w = nullptr, *att_k = nullptr, *att_q = nullptr,
              *att_qb = nullptr, *att_v = nullptr, *bridge_w = nullptr, *bridge_b = nullptr, *comb_w = nullptr,
              *comb_b = nullptr, *out_w = nullptr, *out_b = nullptr;
  std::vector<RnnParams> enc_rnn;  // layer * dirs + direction
  std::vector<RnnParams> dec_rnn;  // per layer
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
  Vec transpose;                                 // W^T before packing
  std::vector<const float*> dec_ih_t, dec_hh_t;  // the decoder layers' W^T, packed
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
  std::vector<std::size_t> dorder, tlen, active;  // decoder row r = example dorder[r]; rows running at step k
  std::vector<std::int32_t> prev;                 // a step's previous tokens, in decoder row order
  std::vector<Step> steps;
  std::vector<Vec> dh, dc;
  Vec dinit_h, dinit_c, dfinal_h, dfinal_c;
  Vec dhtilde_next, dmemory, dkeys, dfeat, dtmp, dcat, dctx, dq, dx, dgi, dscratch, ascratch;
  // The output layer over every step at once: features (N, Hd), each row's target, a chunk's logits
  // (then d objective / d logits), d objective / d features (N, Hd).
  Vec feats, logits, dfeats;
  std::vector<std::int32_t> row_y;
  std::vector<std::size_t> row_pos;  // each row's token: k B + b (the soft targets' and probs_out's row)
  Vec dout, din, dcell, escratch, dhe, dce, dgi_all;

  void bind(const Model& m) {
    if (key_data == m.params().data.data() && key_id == m.id()) return;
    const auto& c = m.config();
    auto get = [&](const std::string& name) { return m.params().find(name); };
    enc_emb = get("encoder.embedding.weight");
    dec_emb = get("decoder.embedding.weight");
    att_w = get("decoder.attention.weight");
    att_k = get("decoder.attention.key.weight");
    att_q = get("decoder.attention.query.weight");
    att_qb = get("decoder.attention.query.bias");
    att_v = get("decoder.attention.v.weight");
    bridge_w = get("bridge.weight");
    bridge_b = get("bridge.bias");
    comb_w = get("decoder.combine.weight");
    comb_b = get("decoder.combine.bias");
    // Tied: the output layer's weight and gradient are the target embedding's (both add into it).
    out_w = c.tie_embeddings ? dec_emb : get("decoder.out.weight");
    out_b = get("decoder.out.bias");
    auto rnn = [&](const std::string& prefix, const std::string& k) {
      return RnnParams{get(prefix + "weight_ih" + k), get(prefix + "weight_hh" + k), get(prefix + "bias_ih" + k),
                       get(prefix + "bias_hh" + k)};
    };
    const int dirs = c.bidirectional ? 2 : 1;
    enc_rnn.clear();
    dec_rnn.clear();
    for (int l = 0; l < c.layers; ++l) {
      for (int d = 0; d < dirs; ++d)
        enc_rnn.push_back(rnn("encoder.rnn.", "_l" + std::to_string(l) + (d ? "_reverse" : "")));
      dec_rnn.push_back(rnn("decoder.rnn.", "_l" + std::to_string(l)));
    }
    packed.clear();
    key_data = m.params().data.data();
    key_id = m.id();
  }
};

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

namespace {

// Per-call access to the workspace's parameters: gradients at the same offsets as the weights.
struct Net {
  Workspace::Impl& ws;
  const Model& m;
  const ModelConfig& c;
  float* grad;
  Net(Workspace::Impl& w, const Model& model, float* g) : ws(w), m(model), c(model.config()), grad(g) {
    ws.bind(model);
    ++ws.calls;
  }
  PG get(const float* w) const {
    if (!w) return {};
    return {w, grad ? grad + (w - m.params().data.data()) : nullptr};
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
    const float* src = w;
    if (transposed) {
      ws.transpose.resize(M * N);
      for (std::size_t m = 0; m < M; ++m)
        for (std::size_t n = 0; n < N; ++n) ws.transpose[n * M + m] = w[m * N + n];
      src = ws.transpose.data();
      std::swap(M, N);
    }
    slot->p.resize(kernels::packed_size(M, N));
    kernels::pack(src, M, N, slot->p.data());
    slot->call = ws.calls;
    return slot->p.data();
  }
  const float* packed_t(const float* w, std::size_t M, std::size_t N) { return packed(w, M, N, true); }
  nn::RnnWeights rnn(const RnnParams& r, int in, int hidden) {
    nn::RnnWeights w;
    w.w_ih = r.w_ih;
    w.w_hh = r.w_hh;
    w.b_ih = r.b_ih;
    w.b_hh = r.b_hh;
    w.in = in;
    w.hidden = hidden;
    w.cell = c.cell;
    const std::size_t GH = std::size_t(w.gates()) * hidden;
    w.w_ih_packed = packed(w.w_ih, GH, in);
    w.w_hh_packed = packed(w.w_hh, GH, hidden);
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
  Net net(ws, model, grad);
  const auto& c = model.config();
  const std::size_t B = bt.B, Ts = bt.Ts, Tt = bt.Tt, L = c.layers, dirs = c.bidirectional ? 2 : 1;
  const std::size_t He = c.enc_hidden, Ho = c.enc_out(), Hd = c.dec_hidden, G = c.gates();
  const std::size_t Es = c.src_emb, Et = c.tgt_emb, V = c.tgt_vocab, A = c.attn_dim, D = c.dec_input();
  const bool lstm = c.cell == Cell::LSTM;
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
    for (std::size_t t = 0; t < Ts; ++t) src_rows[b * Ts + t] = bt.src[t * B + b];
    src_ptrs[b] = &src_rows[b * Ts];
  }
  const PG enc_emb = net.get(ws.enc_emb), att_w = net.get(ws.att_w), att_k = net.get(ws.att_k);
  const PG att_q = net.get(ws.att_q), att_qb = net.get(ws.att_qb), att_v = net.get(ws.att_v);
  const PG bridge_w = net.get(ws.bridge_w), bridge_b = net.get(ws.bridge_b);
  auto& ew = ws.ew;
  ew.rnn.clear();
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t d = 0; d < dirs; ++d)
      ew.rnn.push_back(net.rnn(ws.enc_rnn[l * dirs + d], int(l == 0 ? Es : Ho), int(He)));
  ew.emb = enc_emb.w;
  ew.table[0] = ew.table[1] = nullptr;
  ew.att_general = {att_w.w, net.packed(att_w.w, Hd, Ho), nullptr, {}};
  ew.att_key = {att_k.w, net.packed(att_k.w, A, Ho), nullptr, {}};
  ew.bridge = {bridge_w.w, net.packed(bridge_w.w, Hd, Ho), bridge_b.w, {}};
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
  const PG dec_emb = net.get(ws.dec_emb), comb_w = net.get(ws.comb_w), comb_b = net.get(ws.comb_b),
           out_w = net.get(ws.out_w), out_b = net.get(ws.out_b);
  auto& dw = ws.dw;
  dw.rnn.clear();
  for (std::size_t l = 0; l < L; ++l) dw.rnn.push_back(net.rnn(ws.dec_rnn[l], int(l == 0 ? D : Hd), int(Hd)));
  dw.attn = nn::AttentionWeights{};
  dw.attn.score = c.score;
  dw.attn.w_q = att_q.w;
  dw.attn.b_q = att_qb.w;
  dw.attn.v = att_v.w;
  dw.attn.attn_dim = int(A);
  const auto& drnn = dw.rnn;  // what backward reads: the weights the forward step multiplied by
  const auto& aw = dw.attn;
  dw.emb = dec_emb.w;
  dw.combine = {comb_w.w, net.packed(comb_w.w, Hd, Ho + Hd), comb_b.w, {}};
  dw.out = {out_w.w, net.packed(out_w.w, V, Hd), out_b.w, {}};
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
    for (std::size_t r = 0; r < Bk; ++r) ws.prev[r] = bt.tgt_in[k * B + dorder[r]];
    const fwd::StepRecord record{&s, drop ? &masks : nullptr};
    fwd::decoder_step(c, dw, st, ws.prev.data(), Bk, ws.rows.data(), nullptr, &record);
    const float* feat = drop ? s.feat.data() : c.style == Style::None ? s.cell[L - 1].h.data() : s.htilde.data();
    std::memcpy(&feats[n * Hd], feat, Bk * Hd * sizeof(float));
    for (std::size_t r = 0; r < Bk; ++r) {
      row_pos[n + r] = k * B + dorder[r];
      row_y[n + r] = bt.tgt_out[row_pos[n + r]];
    }
    n += Bk;
  }
  // The output layer over chunks of rows: logits, the loss, and with gradients d objective / d logits
  // = p - target distribution ((1 - a) ((1 - e) one-hot + e / V) + a q) per token, then dW += dlogits^T feats,
  // db += dlogits, and dfeats = dlogits W (through W^T, packed, so that W streams once per chunk).
  constexpr std::size_t kChunk = 256;
  auto& logits = ws.logits;
  auto& dfeats = ws.dfeats;
  logits.resize(std::min(N, kChunk) * V);
  if (want_grad) dfeats.assign(N * Hd, 0.f);
  const float* out_packed = net.packed(out_w.w, V, Hd);
  const float* out_t_packed = want_grad ? net.packed_t(out_w.w, V, Hd) : nullptr;
  const float inv_n = 1.f / float(bt.tokens);
  const float a = fo.soft_weight;
  const float smooth = (1.f - a) * fo.label_smoothing / float(V), hit = (1.f - a) * (1.f - fo.label_smoothing);
  for (std::size_t r0 = 0; r0 < N; r0 += kChunk) {
    const std::size_t R = std::min(kChunk, N - r0);
    kernels::gemm_packed(&feats[r0 * Hd], Hd, out_packed, out_b.w, logits.data(), V, R, V, Hd);
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
      kernels::add(p, out_b.g, V);
    }
    if (!want_grad) continue;
    kernels::gemm_acc(logits.data(), 1, V, &feats[r0 * Hd], Hd, out_w.g, Hd, V, Hd, R);             // dW += dl^T F
    kernels::gemm_packed(logits.data(), V, out_t_packed, nullptr, &dfeats[r0 * Hd], Hd, R, Hd, V);  // dl W
  }
  if (!want_grad) return stats;

  // ================= decoder backward =================
  auto &dh = ws.dh, &dc = ws.dc;  // carried to step k-1
  at_least(dh, L);
  at_least(dc, L);
  for (std::size_t l = 0; l < L; ++l) dh[l].assign(B * Hd, 0.f), dc[l].assign(B * Hd, 0.f);
  auto& dhtilde_next = ws.dhtilde_next;  // input feeding carry
  dhtilde_next.assign(B * Hd, 0.f);
  auto &dmemory = ws.dmemory, &dkeys = ws.dkeys;
  dmemory.assign(B * Ts * Ho, 0.f);
  dkeys.assign(B * Ts * Kd, 0.f);
  const PG dec_emb_g = dec_emb;
  auto &dfeat = ws.dfeat, &dtmp = ws.dtmp, &dcat = ws.dcat, &dctx = ws.dctx, &dq = ws.dq, &dx = ws.dx, &dgi = ws.dgi,
       &dscratch = ws.dscratch, &ascratch = ws.ascratch;
  dfeat.resize(B * Hd), dtmp.resize(B * Hd), dcat.resize(B * (Ho + Hd)), dctx.resize(B * Ho);
  dq.resize(B * Hd), dx.resize(B * D), dgi.resize(B * G * Hd), dscratch.resize(B * G * Hd), ascratch.resize(2 * Ts + A);
  // The decoder layers' gradients (at the weights' offsets).
  auto dW_ih = [&](std::size_t l) { return net.get(ws.dec_rnn[l].w_ih); };
  auto dW_hh = [&](std::size_t l) { return net.get(ws.dec_rnn[l].w_hh); };
  auto db_ih = [&](std::size_t l) { return net.get(ws.dec_rnn[l].b_ih); };
  auto db_hh = [&](std::size_t l) { return net.get(ws.dec_rnn[l].b_hh); };
  // W^T packed for each product's dX (the decoder's weights, multiplied again at every step).
  auto &dec_ih_t = ws.dec_ih_t, &dec_hh_t = ws.dec_hh_t;
  dec_ih_t.resize(L), dec_hh_t.resize(L);
  for (std::size_t l = 0; l < L; ++l) {
    dec_ih_t[l] = net.packed_t(drnn[l].w_ih, G * Hd, l == 0 ? D : Hd);
    dec_hh_t[l] = net.packed_t(drnn[l].w_hh, G * Hd, Hd);
  }
  const float* comb_t = c.style == Style::None ? nullptr : net.packed_t(comb_w.w, Hd, Ho + Hd);
  std::size_t Bk = B;  // rows of the step being back-propagated: active[k]
  auto attend_back = [&](const Step& s, const float* dcontext, float* dquery) {
    for (std::size_t r = 0; r < Bk; ++r) {
      const std::size_t j = inv[dorder[r]];  // the example's encoder row
      nn::attention_backward(aw, &s.query[r * Hd], Hd, ws.sources[r].keys, Kk, ws.sources[r].memory, Ho,
                             &s.weights[r * Ts], s.u.empty() ? nullptr : &s.u[r * Ts * A], Ts, ws.sources[r].valid,
                             dcontext + r * Ho, nullptr, &dmemory[j * Ts * Ho],
                             c.score == Score::Dot ? &dmemory[j * Ts * Ho] : &dkeys[j * Ts * Kd], dquery + r * Hd,
                             att_q.g, att_qb.g, att_v.g, ascratch.data());
    }
  };
  // RNN backward for one step: dh[l] holds the gradient w.r.t. this step's outputs; on exit dh/dc
  // hold the gradients w.r.t. the previous step's state, and dx the gradient w.r.t. the layer-0 input.
  auto rnn_back = [&](const Step& s) {
    for (std::size_t l = L; l-- > 0;) {
      const CellCache& cc = s.cell[l];
      std::fill(dgi.begin(), dgi.end(), 0.f);
      if (lstm)
        nn::lstm_cell_backward(drnn[l], cc.gates.data(), cc.h_prev.data(), cc.c_prev.data(), cc.c_new.data(),
                               dh[l].data(), dc[l].data(), dgi.data(), dW_hh(l).g, db_hh(l).g, Bk, dec_hh_t[l]);
      else
        nn::gru_cell_backward(drnn[l], cc.gates.data(), cc.gh.data(), cc.h_prev.data(), dh[l].data(), dgi.data(),
                              dW_hh(l).g, db_hh(l).g, dscratch.data(), Bk, dec_hh_t[l]);
      const float* xin = l == 0 ? s.x.data() : drop ? s.cell[l].in_drop.data() : s.cell[l - 1].h.data();
      const std::size_t in = l == 0 ? D : Hd;
      if (l == 0) {
        std::fill(dx.begin(), dx.end(), 0.f);
        nn::linear_backward(xin, in, drnn[l].w_ih, dgi.data(), G * Hd, dx.data(), dW_ih(l).g, db_ih(l).g, Bk, G * Hd,
                            in, dec_ih_t[l]);
      } else if (drop) {  // through the dropout mask between the layers
        std::fill(dtmp.begin(), dtmp.end(), 0.f);
        nn::linear_backward(xin, in, drnn[l].w_ih, dgi.data(), G * Hd, dtmp.data(), dW_ih(l).g, db_ih(l).g, Bk, G * Hd,
                            in, dec_ih_t[l]);
        kernels::mul(dtmp.data(), s.cell[l].in_mask.data(), dtmp.data(), Bk * Hd);
        kernels::add(dtmp.data(), dh[l - 1].data(), Bk * Hd);
      } else {
        // the layer below's output at this step feeds this layer: its gradient joins dh[l-1]
        nn::linear_backward(xin, in, drnn[l].w_ih, dgi.data(), G * Hd, dh[l - 1].data(), dW_ih(l).g, db_ih(l).g, Bk,
                            G * Hd, in, dec_ih_t[l]);
      }
    }
  };

  std::size_t row_end = N;  // step k's rows of dfeats end here (steps are stored in order)
  for (std::size_t k = Tt; k-- > 0;) {
    const Step& s = steps[k];
    Bk = active[k];  // rows [Bk, active[k - 1]) start here, their carried gradients still zero
    row_end -= Bk;
    const float* dout_k = &dfeats[row_end * Hd];  // d objective / d (this step's output features)
    if (c.style == Style::None) {
      if (drop) {
        std::memcpy(dfeat.data(), dout_k, Bk * Hd * sizeof(float));
        kernels::mul(dfeat.data(), s.feat_mask.data(), dfeat.data(), Bk * Hd);
        kernels::add(dfeat.data(), dh[L - 1].data(), Bk * Hd);
      } else {
        kernels::add(dout_k, dh[L - 1].data(), Bk * Hd);
      }
      rnn_back(s);
    } else {
      std::memcpy(dfeat.data(), dout_k, Bk * Hd * sizeof(float));
      if (c.style == Style::Luong && c.input_feeding) kernels::add(dhtilde_next.data(), dfeat.data(), Bk * Hd);
      if (drop) kernels::mul(dfeat.data(), s.feat_mask.data(), dfeat.data(), Bk * Hd);
      for (std::size_t i = 0; i < Bk * Hd; ++i) dfeat[i] *= 1.f - s.htilde[i] * s.htilde[i];  // tanh
      std::fill(dcat.begin(), dcat.end(), 0.f);
      nn::linear_backward(s.cat.data(), Ho + Hd, comb_w.w, dfeat.data(), Hd, dcat.data(), comb_w.g, comb_b.g, Bk, Hd,
                          Ho + Hd, comb_t);
      for (std::size_t b = 0; b < Bk; ++b) {
        std::memcpy(&dctx[b * Ho], &dcat[b * (Ho + Hd)], Ho * sizeof(float));
        kernels::add(&dcat[b * (Ho + Hd) + Ho], &dh[L - 1][b * Hd], Hd);
      }
      if (c.style == Style::Luong) {
        std::fill(dq.begin(), dq.end(), 0.f);
        attend_back(s, dctx.data(), dq.data());
        kernels::add(dq.data(), dh[L - 1].data(), Bk * Hd);  // query = s_k
        rnn_back(s);
        if (c.input_feeding)
          for (std::size_t b = 0; b < Bk; ++b) std::memcpy(&dhtilde_next[b * Hd], &dx[b * D + Et], Hd * sizeof(float));
      } else {  // bahdanau: the context also fed the RNN; the query was s_{k-1}
        rnn_back(s);
        for (std::size_t b = 0; b < Bk; ++b) kernels::add(&dx[b * D + Et], &dctx[b * Ho], Ho);
        std::fill(dq.begin(), dq.end(), 0.f);
        attend_back(s, dctx.data(), dq.data());
        kernels::add(dq.data(), dh[L - 1].data(), Bk * Hd);
      }
    }
    if (drop)
      for (std::size_t b = 0; b < Bk; ++b) kernels::mul(&dx[b * D], &s.emb_mask[b * Et], &dx[b * D], Et);
    if (dec_emb_g.g)
      for (std::size_t b = 0; b < Bk; ++b)
        kernels::add(&dx[b * D], dec_emb_g.g + std::size_t(bt.tgt_in[k * B + dorder[b]]) * Et, Et);
  }

  // keys back to the memory (every padded position at once; padding has zero gradient)
  const std::size_t P = B * Ts;
  if (c.has_attention() && c.score == Score::General)
    nn::linear_backward(er.memory.data(), Ho, att_w.w, dkeys.data(), Hd, dmemory.data(), att_w.g, nullptr, P, Hd, Ho,
                        net.packed_t(att_w.w, Hd, Ho));
  else if (c.has_attention() && c.score == Score::Additive)
    nn::linear_backward(er.memory.data(), Ho, att_k.w, dkeys.data(), A, dmemory.data(), att_k.g, nullptr, P, A, Ho,
                        net.packed_t(att_k.w, A, Ho));

  // the initial state back to the encoder's final states (n, L, .), through the bridge if present
  auto &dinit_h = ws.dinit_h, &dinit_c = ws.dinit_c, &dfinal_h = ws.dfinal_h, &dfinal_c = ws.dfinal_c;
  dinit_h.resize(B * L * Hd);
  dinit_c.resize(B * L * Hd);
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t r = 0; r < B; ++r) {  // decoder row r is example dorder[r]
      const std::size_t b = dorder[r];
      std::memcpy(&dinit_h[(b * L + l) * Hd], &dh[l][r * Hd], Hd * sizeof(float));
      std::memcpy(&dinit_c[(b * L + l) * Hd], &dc[l][r * Hd], Hd * sizeof(float));
    }
  dfinal_h.assign(B * L * Ho, 0.f);
  dfinal_c.assign(B * L * Ho, 0.f);
  if (bridge_w.w) {
    for (std::size_t i = 0; i < B * L * Hd; ++i) dinit_h[i] *= 1.f - er.init_h[i] * er.init_h[i];
    nn::linear_backward(er.final_h.data(), Ho, bridge_w.w, dinit_h.data(), Hd, dfinal_h.data(), bridge_w.g, bridge_b.g,
                        B * L, Hd, Ho);
    if (lstm) {
      for (std::size_t i = 0; i < B * L * Hd; ++i) dinit_c[i] *= 1.f - er.init_c[i] * er.init_c[i];
      nn::linear_backward(er.final_c.data(), Ho, bridge_w.w, dinit_c.data(), Hd, dfinal_c.data(), bridge_w.g,
                          bridge_b.g, B * L, Hd, Ho);
    }
  } else {  // Ho == Hd
    dfinal_h.assign(dinit_h.begin(), dinit_h.end());
    if (lstm) dfinal_c.assign(dinit_c.begin(), dinit_c.end());
  }

  // ================= encoder backward =================
  // Layers top-down, each direction backwards over the steps the forward ran: at step k the rows
  // still running are the prefix [0, running(k)); a finished row's state gradient passes through.
  auto& dout = ws.dout;  // gradient w.r.t. the current layer's outputs, (P, Ho) in the encoder's row order
  dout.assign(dmemory.begin(), dmemory.end());
  auto &dcell = ws.dcell, &escratch = ws.escratch, &dhe = ws.dhe, &dce = ws.dce;
  dcell.resize(B * G * He), escratch.resize(B * G * He), dhe.resize(B * He), dce.resize(B * He);
  auto len = [&](std::size_t j) { return er.lens[j]; };
  for (std::size_t l = L; l-- > 0;) {
    const std::size_t in = l == 0 ? Es : Ho;
    auto& din = ws.din;
    din.assign(P * in, 0.f);
    for (std::size_t d = 0; d < dirs; ++d) {
      const RnnParams& rp = ws.enc_rnn[l * dirs + d];
      const nn::RnnWeights& w = ew.rnn[l * dirs + d];
      const PG gw_ih = net.get(rp.w_ih), gw_hh = net.get(rp.w_hh), gb_ih = net.get(rp.b_ih), gb_hh = net.get(rp.b_hh);
      const float *w_ih_t = net.packed_t(w.w_ih, G * He, in), *w_hh_t = net.packed_t(w.w_hh, G * He, He);
      auto& dgi_all = ws.dgi_all;
      dgi_all.assign(P * G * He, 0.f);
      for (std::size_t j = 0; j < B; ++j) {
        const std::size_t i = er.order[j];
        std::memcpy(&dhe[j * He], &dfinal_h[(i * L + l) * Ho + d * He], He * sizeof(float));
        std::memcpy(&dce[j * He], &dfinal_c[(i * L + l) * Ho + d * He], He * sizeof(float));
      }
      for (std::size_t k = Ts; k-- > 0;) {  // reverse of the forward order
        std::size_t running = 0;
        while (running < B && len(running) > k) ++running;
        auto pos = [&](std::size_t j) { return d == 0 ? k : len(j) - 1 - k; };
        const CellCache& cc = ws.etape.cell[(l * dirs + d) * Ts + k];
        for (std::size_t j = 0; j < running; ++j)
          kernels::add(&dout[(j * Ts + pos(j)) * Ho + d * He], &dhe[j * He], He);
        std::fill(dcell.begin(), dcell.begin() + running * G * He, 0.f);
        if (lstm)
          nn::lstm_cell_backward(w, cc.gates.data(), cc.h_prev.data(), cc.c_prev.data(), cc.c_new.data(), dhe.data(),
                                 dce.data(), dcell.data(), gw_hh.g, gb_hh.g, running, w_hh_t);
        else
          nn::gru_cell_backward(w, cc.gates.data(), cc.gh.data(), cc.h_prev.data(), dhe.data(), dcell.data(), gw_hh.g,
                                gb_hh.g, escratch.data(), running, w_hh_t);
        for (std::size_t j = 0; j < running; ++j)
          std::memcpy(&dgi_all[(j * Ts + pos(j)) * G * He], &dcell[j * G * He], G * He * sizeof(float));
      }
      nn::linear_backward(ws.etape.input[l].data(), in, w.w_ih, dgi_all.data(), G * He, din.data(), gw_ih.g, gb_ih.g, P,
                          G * He, in, w_ih_t);
    }
    if (drop) kernels::mul(din.data(), ws.etape.mask[l].data(), din.data(), din.size());
    dout.assign(din.begin(), din.end());  // a copy, not a swap: each buffer keeps its own capacity
  }
  if (enc_emb.g)
    for (std::size_t j = 0; j < B; ++j)
      for (std::size_t t = 0; t < len(j); ++t)
        kernels::add(&dout[(j * Ts + t) * Es], enc_emb.g + std::size_t(src_ptrs[er.order[j]][t]) * Es, Es);
  return stats;
}

}  // namespace attnseq::train
