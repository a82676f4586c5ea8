// Model construction: the flat parameter buffer, the layer views into it, and the derived
// inference tables (per-token input projections) that make encode and step cheaper.
#include "model/model.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"
#include "kernels/kernels.hpp"

namespace attnseq {

Params::Params(const ModelConfig& c) : specs(param_specs(c)) {
  std::size_t total = 0;
  for (const auto& s : specs) {
    offsets.push_back(total);
    total += std::size_t(s.numel());
  }
  data.assign(total, 0.f);
}

bool Params::quantized() const {
  for (const auto& m : q8)
    if (!m.q.empty()) return true;
  return false;
}

const float* Params::find(std::string_view name) const {
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name) return data.data() + offsets[i];
  return nullptr;
}
float* Params::find(std::string_view name) { return const_cast<float*>(static_cast<const Params*>(this)->find(name)); }
const float* Params::get(std::string_view name) const {
  const float* p = find(name);
  if (!p) throw std::invalid_argument("missing parameter '" + std::string(name) + "'");
  return p;
}
float* Params::get(std::string_view name) { return const_cast<float*>(static_cast<const Params*>(this)->get(name)); }

namespace {
std::uint64_t next_model_id() {
  static std::atomic<std::uint64_t> next{1};
  return next++;
}
}  // namespace

Model::Model(ModelConfig config) : config_(std::move(config)), id_(next_model_id()) {
  config_.validate();
  params_ = Params(config_);
  prepare();
}

Model::Model(ModelConfig config, Params params)
    : config_(std::move(config)), params_(std::move(params)), id_(next_model_id()) {
  config_.validate();
  const auto expect = param_specs(config_);
  if (expect.size() != params_.specs.size())
    throw std::invalid_argument("model: expected " + std::to_string(expect.size()) + " parameter tensors, got " +
                                std::to_string(params_.specs.size()));
  for (std::size_t i = 0; i < expect.size(); ++i)
    if (expect[i].name != params_.specs[i].name || expect[i].shape != params_.specs[i].shape)
      throw std::invalid_argument("model: parameter " + std::to_string(i) + " is '" + params_.specs[i].name +
                                  "', expected '" + expect[i].name + "'");
  if (!params_.q8.empty() && params_.q8.size() != expect.size())
    throw std::invalid_argument("model: " + std::to_string(params_.q8.size()) + " int8 entries for " +
                                std::to_string(expect.size()) + " parameter tensors");
  for (std::size_t i = 0; i < params_.q8.size(); ++i) {
    const auto& m = params_.q8[i];
    if (m.q.empty()) continue;
    if (!expect[i].int8 || m.q.size() != std::size_t(expect[i].numel()) ||
        m.scale.size() != std::size_t(expect[i].shape[0]))
      throw std::invalid_argument("model: the int8 copy of '" + expect[i].name + "' does not fit it");
  }
  prepare();
}

void Model::bind() {
  const auto& c = config_;
  t_ = bind_tensors<const float*>(c, param_specs(c), params_.offsets, params_.data.data());
  auto rnn = [&](const RnnTensors<const float*>& t, int in, int hidden) {
    nn::RnnWeights w;
    w.w_ih = t.w_ih;
    w.w_hh = t.w_hh;
    w.b_ih = t.b_ih;
    w.b_hh = t.b_hh;
    w.in = in;
    w.hidden = hidden;
    w.cell = c.cell;
    return w;
  };
  const std::size_t dirs = c.bidirectional ? 2 : 1;
  enc_rnn_.clear();
  dec_rnn_.clear();
  for (std::size_t i = 0; i < t_.enc_rnn.size(); ++i)
    enc_rnn_.push_back(rnn(t_.enc_rnn[i], i < dirs ? c.src_emb : c.enc_out(), c.enc_hidden));
  for (std::size_t l = 0; l < t_.dec_rnn.size(); ++l)
    dec_rnn_.push_back(rnn(t_.dec_rnn[l], l == 0 ? c.dec_input() : c.dec_hidden, c.dec_hidden));
  attn_ = nn::AttentionWeights{};
  attn_.score = c.score;
  attn_.w_q = t_.att_query;
  attn_.b_q = t_.att_query_bias;
  attn_.v = t_.att_v;
  attn_.attn_dim = c.attn_dim;
}

void Model::prepare(bool token_tables, bool packed) {
  bind();
  packs_.clear();
  bridge_p_ = att_general_p_ = att_key_p_ = combine_p_ = out_p_ = dec_w_rest_p_ = nullptr;
  q8_packs_.clear();
  q8_rest_ = Q8Matrix{};
  bridge_q_ = att_general_q_ = att_key_q_ = combine_q_ = out_q_ = dec_w_rest_q_ = nn::Q8Weights{};
  q8_cols_ = 0;
  const auto& c = config_;
  const std::size_t G = c.gates();
  // A per-token table replaces emb(y) W_ih^T + b_ih by a row copy. It costs G H / E times the
  // embedding's memory, so it is built only while that stays modest (32 MiB per table).
  constexpr std::size_t kMaxTableFloats = std::size_t(8) << 20;
  const std::size_t enc_floats = std::size_t(c.src_vocab) * G * c.enc_hidden;
  const std::size_t dec_floats = std::size_t(c.tgt_vocab) * G * c.dec_hidden;
  tables_ = token_tables && enc_floats <= kMaxTableFloats && dec_floats <= kMaxTableFloats;
  enc_table_.clear();
  dec_table_.clear();
  dec_w_rest_.clear();
  if (tables_) build_tables();
  if (packed) build_packs();
  bind_forward();
}

void Model::bind_forward() {
  enc_.rnn = enc_rnn_;
  enc_.emb = t_.enc_emb;
  for (std::size_t d = 0; d < 2; ++d) enc_.table[d] = d < enc_table_.size() ? enc_table_[d].data() : nullptr;
  enc_.att_general = {t_.att_general, att_general_p_, nullptr, att_general_q_};
  enc_.att_key = {t_.att_key, att_key_p_, nullptr, att_key_q_};
  enc_.bridge = {t_.bridge, bridge_p_, t_.bridge_bias, bridge_q_};
  dec_.rnn = dec_rnn_;
  dec_.attn = attn_;
  dec_.emb = t_.dec_emb;
  dec_.combine = {t_.combine, combine_p_, t_.combine_bias, combine_q_};
  dec_.out = {t_.out, out_p_, t_.out_bias, out_q_};
  dec_.table = tables_ ? dec_table_.data() : nullptr;
  dec_.rest = {dec_w_rest_.empty() ? nullptr : dec_w_rest_.data(), dec_w_rest_p_, nullptr, dec_w_rest_q_};
}

const Q8Matrix* Model::q8_of(const float* W) const {
  if (!W) return nullptr;
  for (std::size_t i = 0; i < params_.q8.size(); ++i)
    if (!params_.q8[i].q.empty() && params_.data.data() + params_.offsets[i] == W) return &params_.q8[i];
  return nullptr;
}

nn::Q8Weights Model::pack_q8(const Q8Matrix& m, std::size_t M, std::size_t N) {
  std::vector<std::int8_t, Align64<std::int8_t>> p(q8_packed_size(M, N));
  q8_pack(m.q.data(), M, N, p.data());
  q8_packs_.push_back(std::move(p));  // a moved vector keeps its buffer: earlier pointers stay valid
  q8_cols_ = std::max(q8_cols_, N);
  return {q8_packs_.back().data(), m.scale.data()};
}

// Packed copies (kernels::pack) of every matrix inference multiplies by: the product then reads one
// sequential stream, measured 1.3-2.3x faster than the row-major kernel at these sizes. A matrix
// with an int8 copy (a quantised model) is packed as int8 instead (kernels::q8_pack).
void Model::build_packs() {
  const auto& c = config_;
  auto pack = [&](const float* W, std::size_t M, std::size_t N, nn::Q8Weights* q8) -> const float* {
    if (!W) return nullptr;
    if (const Q8Matrix* m = q8_of(W)) {
      *q8 = pack_q8(*m, M, N);
      return nullptr;
    }
    std::vector<float, Align64<float>> p(kernels::packed_size(M, N));
    kernels::pack(W, M, N, p.data());
    packs_.push_back(std::move(p));
    return packs_.back().data();
  };
  packs_.reserve(4 * enc_rnn_.size() + 4 * dec_rnn_.size() + 8);  // pointers must stay valid
  const std::size_t G = c.gates();
  for (std::size_t i = 0; i < enc_rnn_.size(); ++i) {
    auto& w = enc_rnn_[i];
    const bool layer0 = i < std::size_t(c.bidirectional ? 2 : 1);
    if (!(layer0 && tables_)) w.w_ih_packed = pack(w.w_ih, G * w.hidden, w.in, &w.w_ih_q8);
    w.w_hh_packed = pack(w.w_hh, G * w.hidden, w.hidden, &w.w_hh_q8);
  }
  for (std::size_t l = 0; l < dec_rnn_.size(); ++l) {
    auto& w = dec_rnn_[l];
    if (!(l == 0 && tables_)) w.w_ih_packed = pack(w.w_ih, G * w.hidden, w.in, &w.w_ih_q8);
    w.w_hh_packed = pack(w.w_hh, G * w.hidden, w.hidden, &w.w_hh_q8);
  }
  const std::size_t Hd = c.dec_hidden, Ho = c.enc_out(), A = c.attn_dim;
  if (tables_ && !dec_w_rest_.empty()) {
    const std::size_t E = c.tgt_emb, D = c.dec_input(), R = D - E, GH = G * Hd;
    if (const Q8Matrix* w = q8_of(dec_rnn_[0].w_ih)) {
      // The rest columns of W_ih as int8: the same integers and row scales, so the same matrix.
      q8_rest_.q.resize(GH * R);
      for (std::size_t r = 0; r < GH; ++r)
        std::copy(w->q.begin() + r * D + E, w->q.begin() + (r + 1) * D, q8_rest_.q.begin() + r * R);
      q8_rest_.scale = w->scale;
      dec_w_rest_q_ = pack_q8(q8_rest_, GH, R);
    } else {
      dec_w_rest_p_ = pack(dec_w_rest_.data(), GH, R, &dec_w_rest_q_);
    }
  }
  bridge_p_ = pack(t_.bridge, Hd, Ho, &bridge_q_);
  att_general_p_ = pack(t_.att_general, Hd, Ho, &att_general_q_);
  att_key_p_ = pack(t_.att_key, A, Ho, &att_key_q_);
  attn_.w_q_packed = pack(attn_.w_q, A, Hd, &attn_.w_q_q8);
  combine_p_ = pack(t_.combine, Hd, Ho + Hd, &combine_q_);
  out_p_ = pack(t_.out, c.tgt_vocab, Hd, &out_q_);
}

int Model::quantize() {
  auto& p = params_;
  p.q8.resize(p.specs.size());
  // Every matrix is checked before any changes, so a refused model is left as it was.
  for (std::size_t i = 0; i < p.specs.size(); ++i) {
    const auto& spec = p.specs[i];
    if (!spec.int8 || !p.q8[i].q.empty()) continue;
    const std::size_t N = std::size_t(spec.shape[1]);
    const float* w = p.data.data() + p.offsets[i];
    for (std::int64_t k = 0; k < spec.numel(); ++k)
      if (!std::isfinite(w[k]))
        throw BadCheckpoint("quantize: tensor '" + spec.name + "' holds " + std::to_string(w[k]) + " at row " +
                            std::to_string(std::size_t(k) / N) + ", column " + std::to_string(std::size_t(k) % N) +
                            "; int8 needs finite weights");
  }
  int done = 0;
  for (std::size_t i = 0; i < p.specs.size(); ++i) {
    const auto& spec = p.specs[i];
    if (!spec.int8 || !p.q8[i].q.empty()) continue;
    const std::size_t M = std::size_t(spec.shape[0]), N = std::size_t(spec.shape[1]);
    float* w = p.data.data() + p.offsets[i];
    Q8Matrix& m = p.q8[i];
    m.q.resize(M * N);
    m.scale.resize(M);
    q8_quantize_rows(w, M, N, m.q.data(), m.scale.data());
    for (std::size_t r = 0; r < M; ++r)
      for (std::size_t n = 0; n < N; ++n) w[r * N + n] = float(m.q[r * N + n]) * m.scale[r];
    ++done;
  }
  prepare();
  return done;
}

void Model::build_tables() {
  const auto& c = config_;
  const std::size_t G = c.gates();
  const std::size_t enc_floats = std::size_t(c.src_vocab) * G * c.enc_hidden;
  const std::size_t dec_floats = std::size_t(c.tgt_vocab) * G * c.dec_hidden;
  const int dirs = c.bidirectional ? 2 : 1;
  for (int d = 0; d < dirs; ++d) {
    const auto& w = enc_rnn_[d];
    std::vector<float> t(enc_floats);
    nn::linear_forward(t_.enc_emb, c.src_emb, w.w_ih, w.b_ih, t.data(), G * c.enc_hidden, c.src_vocab, G * c.enc_hidden,
                       c.src_emb);
    enc_table_.push_back(std::move(t));
  }
  // Decoder: split W_ih (G Hd, E + R) into its embedding columns (folded into the table) and the
  // rest (input feeding / context), copied contiguous so the step streams it.
  const auto& w = dec_rnn_[0];
  const std::size_t E = c.tgt_emb, D = c.dec_input(), R = D - E, GH = G * c.dec_hidden;
  std::vector<float> w_emb(GH * E);
  dec_w_rest_.resize(GH * R);
  for (std::size_t r = 0; r < GH; ++r) {
    std::memcpy(w_emb.data() + r * E, w.w_ih + r * D, E * sizeof(float));
    if (R) std::memcpy(dec_w_rest_.data() + r * R, w.w_ih + r * D + E, R * sizeof(float));
  }
  dec_table_.resize(dec_floats);
  nn::linear_forward(t_.dec_emb, E, w_emb.data(), w.b_ih, dec_table_.data(), GH, c.tgt_vocab, GH, E);
}

}  // namespace attnseq
