// Model::encode and encode_batch: the encoder (fwd::encoder_forward, shared with training) runs once
// per source, or once for many sources; each source's results are then copied into its Encoded.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "core/errors.hpp"
#include "kernels/kernels.hpp"
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

void Model::encode(const std::int32_t* src, int T, Encoded& e) const { encode(src, T, e, e); }

void Model::encode(const std::int32_t* src, int T, Encoded& e, Encoded& scratch) const {
  check_source(src, T);
  Encoded* out = &e;
  encode_rows(&src, &T, 1, &out, scratch);
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

// srcs are valid. s is the scratch (it may be one of outs: its run is not an output).
void Model::encode_rows(const std::int32_t* const* srcs, const int* lens, int n, Encoded* const* outs,
                        Encoded& s) const {
  const auto& c = config_;
  const std::size_t Ho = c.enc_out(), Hd = c.dec_hidden, L = c.layers, N = n;
  const bool lstm = c.cell == Cell::LSTM;
  if (q8_cols_) {  // the int8 products' scratch, sized before the run
    const int Tm = *std::max_element(lens, lens + n);
    nn::q8_reserve(std::max<std::size_t>(N * std::size_t(Tm), N * L), q8_cols_);
  }
  auto& r = s.run;
  fwd::encoder_forward(c, enc_, srcs, lens, N, r, nullptr, nullptr);
  const std::size_t Tm = r.Tm, K = r.keys.empty() ? 0 : r.keys.size() / (N * Tm);
  for (std::size_t j = 0; j < N; ++j) {
    const std::size_t i = r.order[j], T = r.lens[j];
    Encoded& e = *outs[i];
    e.T = lens[i];
    e.model_id = id_;
    e.src.assign(srcs[i], srcs[i] + lens[i]);
    e.memory.assign(&r.memory[j * Tm * Ho], &r.memory[j * Tm * Ho] + T * Ho);
    if (K)
      e.keys.assign(&r.keys[j * Tm * K], &r.keys[j * Tm * K] + T * K);
    else
      e.keys.clear();
    e.final_h.assign(&r.final_h[i * L * Ho], &r.final_h[(i + 1) * L * Ho]);
    if (lstm)
      e.final_c.assign(&r.final_c[i * L * Ho], &r.final_c[(i + 1) * L * Ho]);
    else
      e.final_c.clear();
    e.init_h.assign(&r.init_h[i * L * Hd], &r.init_h[(i + 1) * L * Hd]);
    e.init_c.assign(&r.init_c[i * L * Hd], &r.init_c[(i + 1) * L * Hd]);
  }
}

}  // namespace attnseq
