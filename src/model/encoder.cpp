// Model::encode: the encoder runs once per source. Per layer and direction, the input projections
// of all T positions are one matrix product (or, on layer 0, rows of the per-token table); then the
// recurrence. Afterwards the source-only attention keys and the decoder's s_0 are computed here.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "kernels/kernels.hpp"
#include "model/errors.hpp"
#include "model/model.hpp"

namespace attnseq {

void Model::encode(const std::int32_t* src, int T, Encoded& e) const {
  const auto& c = config_;
  if (T <= 0) throw std::invalid_argument("encode: the source is empty (0 tokens)");
  if (T > kMaxSourceLength)
    throw TooLong("encode: the source has " + std::to_string(T) + " tokens; the maximum is " +
                  std::to_string(kMaxSourceLength));
  for (int t = 0; t < T; ++t)
    if (src[t] < 0 || src[t] >= c.src_vocab)
      throw std::invalid_argument("encode: source token " + std::to_string(t) + " has id " + std::to_string(src[t]) +
                                  ", outside the source vocabulary [0, " + std::to_string(c.src_vocab) + ")");
  const std::size_t He = c.enc_hidden, Ho = c.enc_out(), Hd = c.dec_hidden, G = c.gates(), L = c.layers;
  const int dirs = c.bidirectional ? 2 : 1;
  e.T = T;
  e.model_id = id_;
  e.src.assign(src, src + T);
  e.layer_in.resize(std::size_t(T) * std::max<std::size_t>(Ho, c.src_emb));
  e.layer_out.resize(std::size_t(T) * Ho);
  e.gi.resize(std::size_t(T) * G * He);
  e.gh.resize(G * He);
  e.h.resize(He);
  e.c.resize(He);
  e.final_h.assign(L * Ho, 0.f);
  if (q8_cols_) nn::q8_reserve(std::max<std::size_t>(T, L), q8_cols_);  // the int8 products' scratch
  std::vector<float>& final_c_enc = e.final_c;  // (L, Ho) only LSTM needs the encoder's final cells
  if (c.cell == Cell::LSTM) final_c_enc.assign(L * Ho, 0.f);

  for (std::size_t l = 0; l < L; ++l) {
    const std::size_t in = l == 0 ? c.src_emb : Ho;
    if (l == 0 && !tables_) nn::embedding_forward(enc_emb_, in, src, T, e.layer_in.data(), in);
    for (int d = 0; d < dirs; ++d) {
      const auto& w = enc_rnn_[l * dirs + d];
      // gi (T, G He) = x W_ih^T + b_ih for every position at once.
      if (l == 0 && tables_) {
        const float* table = enc_table_[d].data();
        for (int t = 0; t < T; ++t)
          std::memcpy(&e.gi[t * G * He], table + std::size_t(src[t]) * G * He, G * He * sizeof(float));
      } else {
        nn::linear_any(e.layer_in.data(), in, w.w_ih, w.w_ih_packed, w.b_ih, e.gi.data(), G * He, T, G * He, in,
                       w.w_ih_q8);
      }
      std::fill(e.h.begin(), e.h.end(), 0.f);
      std::fill(e.c.begin(), e.c.end(), 0.f);
      for (int k = 0; k < T; ++k) {
        const int t = d == 0 ? k : T - 1 - k;
        nn::cell_forward(w, &e.gi[t * G * He], e.gh.data(), e.h.data(), e.c.data(), 1);
        std::memcpy(&e.layer_out[t * Ho + d * He], e.h.data(), He * sizeof(float));
      }
      std::memcpy(&e.final_h[l * Ho + d * He], e.h.data(), He * sizeof(float));
      if (c.cell == Cell::LSTM) std::memcpy(&final_c_enc[l * Ho + d * He], e.c.data(), He * sizeof(float));
    }
    std::swap(e.layer_in, e.layer_out);  // this layer's output is the next layer's input
    e.layer_out.resize(std::size_t(T) * Ho);
  }
  // After the swap, layer_in holds the top layer's outputs: the memory bank.
  e.memory.assign(e.layer_in.begin(), e.layer_in.begin() + std::size_t(T) * Ho);

  // Source-only attention work, done once: general keys W_a h_i, additive keys W_k h_i.
  e.keys.clear();
  if (c.has_attention() && c.score == Score::General) {
    e.keys.resize(std::size_t(T) * Hd);
    nn::linear_any(e.memory.data(), Ho, att_general_, att_general_p_, nullptr, e.keys.data(), Hd, T, Hd, Ho,
                   att_general_q_);
  } else if (c.has_attention() && c.score == Score::Additive) {
    const std::size_t A = c.attn_dim;
    e.keys.resize(std::size_t(T) * A);
    nn::linear_any(e.memory.data(), Ho, att_key_, att_key_p_, nullptr, e.keys.data(), A, T, A, Ho, att_key_q_);
  }

  // Decoder initial state s_0 per layer: the encoder's final state, through the bridge if present.
  auto init = [&](const std::vector<float>& from, std::vector<float>& to) {
    to.resize(L * Hd);
    if (bridge_w_) {
      nn::linear_any(from.data(), Ho, bridge_w_, bridge_p_, bridge_b_, to.data(), Hd, L, Hd, Ho, bridge_q_);
      kernels::tanh(to.data(), L * Hd);
    } else {
      std::copy(from.begin(), from.end(), to.begin());
    }
  };
  init(e.final_h, e.init_h);
  if (c.cell == Cell::LSTM)
    init(final_c_enc, e.init_c);
  else
    e.init_c.assign(L * Hd, 0.f);
}

}  // namespace attnseq
