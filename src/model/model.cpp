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

// enc_ and dec_ hold the plain weights (the tensor table's addresses), with no copies or tables yet.
void Model::bind() {
  const auto& c = config_;
  t_ = bind_tensors<const float*>(c, param_specs(c), params_.offsets, params_.data.data());
  auto rnn = [&](const RnnTensors<const float*>& t, int in, int hidden) {
    nn::RnnWeights w;
    w.ih = {t.w_ih, nullptr, t.b_ih, {}};
    w.hh = {t.w_hh, nullptr, t.b_hh, {}};
    w.in = in;
    w.hidden = hidden;
    w.cell = c.cell;
    return w;
  };
  const std::size_t dirs = c.bidirectional ? 2 : 1;
  enc_ = fwd::EncoderWeights{};
  dec_ = fwd::DecoderWeights{};
  for (std::size_t i = 0; i < t_.enc_rnn.size(); ++i)
    enc_.rnn.push_back(rnn(t_.enc_rnn[i], i < dirs ? c.src_emb : c.enc_out(), c.enc_hidden));
  for (std::size_t l = 0; l < t_.dec_rnn.size(); ++l)
    dec_.rnn.push_back(rnn(t_.dec_rnn[l], l == 0 ? c.dec_input() : c.dec_hidden, c.dec_hidden));
  enc_.emb = t_.enc_emb;
  enc_.att_general.w = t_.att_general;
  enc_.att_key.w = t_.att_key;
  enc_.bridge = {t_.bridge, nullptr, t_.bridge_bias, {}};
  dec_.attn.score = c.score;
  dec_.attn.query = {t_.att_query, nullptr, t_.att_query_bias, {}};
  dec_.attn.v = t_.att_v;
  dec_.attn.attn_dim = c.attn_dim;
  dec_.emb = t_.dec_emb;
  dec_.combine = {t_.combine, nullptr, t_.combine_bias, {}};
  dec_.out = {t_.out, nullptr, t_.out_bias, {}};
}

void Model::prepare(bool token_tables, bool packed) {
  bind();
  packs_.clear();
  q8_packs_.clear();
  q8_corrs_.clear();
  q8_rest_ = Q8Matrix{};
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
}

const Q8Matrix* Model::q8_of(const float* W) const {
  if (!W) return nullptr;
  for (std::size_t i = 0; i < params_.q8.size(); ++i)
    if (!params_.q8[i].q.empty() && params_.data.data() + params_.offsets[i] == W) return &params_.q8[i];
  return nullptr;
}

nn::Q8Weights Model::pack_q8(const Q8Matrix& m, std::size_t M, std::size_t N) {
  if (kernels::q8r_product() && N <= kQ8RMaxCols) {  // the 7-bit product's layout (kernels.hpp)
    std::vector<std::int8_t, Align64<std::int8_t>> p(q8r_packed_size(M, N));
    std::vector<std::int32_t> corr(M);
    q8r_pack(m.q.data(), M, N, p.data(), corr.data());
    q8_packs_.push_back(std::move(p));
    q8_corrs_.push_back(std::move(corr));
    q8_cols_ = std::max(q8_cols_, N);
    return {q8_packs_.back().data(), m.scale.data(), q8_corrs_.back().data()};
  }
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
  // The packed (or int8) copy of one matrix (M, N) into its Linear.
  auto pack = [&](nn::Linear& lin, std::size_t M, std::size_t N) {
    if (!lin.w) return;
    if (const Q8Matrix* m = q8_of(lin.w)) {
      lin.q = pack_q8(*m, M, N);
      return;
    }
    std::vector<float, Align64<float>> p(kernels::packed_size(M, N));
    kernels::pack(lin.w, M, N, p.data());
    packs_.push_back(std::move(p));
    lin.p = packs_.back().data();
  };
  packs_.reserve(4 * enc_.rnn.size() + 4 * dec_.rnn.size() + 8);  // pointers must stay valid
  const std::size_t G = c.gates();
  for (std::size_t i = 0; i < enc_.rnn.size(); ++i) {
    auto& w = enc_.rnn[i];
    const bool layer0 = i < std::size_t(c.bidirectional ? 2 : 1);
    if (!(layer0 && tables_)) pack(w.ih, G * w.hidden, w.in);
    pack(w.hh, G * w.hidden, w.hidden);
  }
  for (std::size_t l = 0; l < dec_.rnn.size(); ++l) {
    auto& w = dec_.rnn[l];
    if (!(l == 0 && tables_)) pack(w.ih, G * w.hidden, w.in);
    pack(w.hh, G * w.hidden, w.hidden);
  }
  const std::size_t Hd = c.dec_hidden, Ho = c.enc_out(), A = c.attn_dim;
  if (tables_ && !dec_w_rest_.empty()) {
    const std::size_t E = c.tgt_emb, D = c.dec_input(), R = D - E, GH = G * Hd;
    if (const Q8Matrix* w = q8_of(dec_.rnn[0].ih.w)) {
      // The rest columns of W_ih as int8: the same integers and row scales, so the same matrix.
      q8_rest_.q.resize(GH * R);
      for (std::size_t r = 0; r < GH; ++r)
        std::copy(w->q.begin() + r * D + E, w->q.begin() + (r + 1) * D, q8_rest_.q.begin() + r * R);
      q8_rest_.scale = w->scale;
      dec_.rest.q = pack_q8(q8_rest_, GH, R);
    } else {
      pack(dec_.rest, GH, R);
    }
  }
  pack(enc_.bridge, Hd, Ho);
  pack(enc_.att_general, Hd, Ho);
  pack(enc_.att_key, A, Ho);
  pack(dec_.attn.query, A, Hd);
  pack(dec_.combine, Hd, Ho + Hd);
  pack(dec_.out, c.tgt_vocab, Hd);
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

// The per-token tables (and the decoder's rest columns), into enc_ and dec_.
void Model::build_tables() {
  const auto& c = config_;
  const std::size_t G = c.gates();
  const std::size_t enc_floats = std::size_t(c.src_vocab) * G * c.enc_hidden;
  const std::size_t dec_floats = std::size_t(c.tgt_vocab) * G * c.dec_hidden;
  const int dirs = c.bidirectional ? 2 : 1;
  for (int d = 0; d < dirs; ++d) {
    const auto& w = enc_.rnn[d];
    std::vector<float> t(enc_floats);
    nn::linear_forward(t_.enc_emb, c.src_emb, w.ih.w, w.ih.b, t.data(), G * c.enc_hidden, c.src_vocab, G * c.enc_hidden,
                       c.src_emb);
    enc_table_.push_back(std::move(t));
    enc_.table[d] = enc_table_.back().data();  // a moved vector keeps its buffer
  }
  // Decoder: split W_ih (G Hd, E + R) into its embedding columns (folded into the table) and the
  // rest (input feeding / context), copied contiguous so the step streams it.
  const auto& w = dec_.rnn[0];
  const std::size_t E = c.tgt_emb, D = c.dec_input(), R = D - E, GH = G * c.dec_hidden;
  std::vector<float> w_emb(GH * E);
  dec_w_rest_.resize(GH * R);
  for (std::size_t r = 0; r < GH; ++r) {
    std::memcpy(w_emb.data() + r * E, w.ih.w + r * D, E * sizeof(float));
    if (R) std::memcpy(dec_w_rest_.data() + r * R, w.ih.w + r * D + E, R * sizeof(float));
  }
  dec_table_.resize(dec_floats);
  nn::linear_forward(t_.dec_emb, E, w_emb.data(), w.ih.b, dec_table_.data(), GH, c.tgt_vocab, GH, E);
  dec_.table = dec_table_.data();
  dec_.rest.w = dec_w_rest_.empty() ? nullptr : dec_w_rest_.data();
}

}  // namespace attnseq
