// Model::start / step / reorder: the decoder, one step at a time for B rows (B = beam hypotheses).
// Styles (docs/model.md): luong queries with s_k after the RNN; bahdanau with s_{k-1} before it and feeds
// c_k into the RNN; none (vanilla) has no attention: s_0 = h_T is all the decoder ever sees.
// step() allocates nothing: start() sizes every buffer for the state's capacity.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "kernels/kernels.hpp"
#include "model/model.hpp"

namespace attnseq {
namespace {
std::string foreign_source() {
  return "this source was encoded by another model; encode it with the model that decodes it";
}

// `what` (step, reorder) asks for n rows of a started state: at least one, at most its capacity.
void check_rows(const char* what, int n, const DecoderState& st) {
  if (n < 1 || n > st.capacity)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(n) + " rows requested, state has room for " +
                                std::to_string(st.capacity));
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
  const std::size_t cap = capacity, L = c.layers, Hd = c.dec_hidden;
  fwd::size_state(c, st, capacity, Tm);
  st.B = n;
  if (q8_cols_) nn::q8_reserve(cap, q8_cols_);  // so that no step grows the int8 products' scratch
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t r = 0; r < std::size_t(n); ++r) {
      std::memcpy(&st.h[(l * cap + r) * Hd], &encs[r]->init_h[l * Hd], Hd * sizeof(float));
      std::memcpy(&st.c[(l * cap + r) * Hd], &encs[r]->init_c[l * Hd], Hd * sizeof(float));
    }
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
  check_rows("step", Bi, st);
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
  check_rows("step", Bi, st);
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
          throw std::invalid_argument("step: attention override weight " + std::to_string(t) + " is " + number_text(v) +
                                      "; weights must be finite and >= 0");
        s += v;
      }
      if (!(s > 0.f)) throw std::invalid_argument("step: attention override row " + std::to_string(b) + " sums to 0");
    }
  }
  // What each row attends to: one source for every row, or rows[b] = encs[b]'s (rows of one source share
  // an entry, so that they form one attention product).
  auto source_of = [&](const Encoded& e) {
    return fwd::Source{c.score == Score::Dot ? e.memory.data() : e.keys.data(), e.memory.data(), std::size_t(e.T),
                       std::size_t(e.T)};
  };
  if (!encs) {
    st.sources[0] = source_of(enc);
    for (int b = 0; b < Bi; ++b) st.rows[b] = &st.sources[0];
  } else {
    for (int b = 0; b < Bi; ++b) {
      if (b > 0 && encs[b] == encs[b - 1]) {
        st.rows[b] = st.rows[b - 1];
        continue;
      }
      st.sources[b] = source_of(*encs[b]);
      st.rows[b] = &st.sources[b];
    }
  }
  st.B = Bi;
  fwd::decoder_step(c, dec_, st, prev, std::size_t(Bi), st.rows.data(), attn_override);
}

void Model::reorder(DecoderState& st, const std::int32_t* parents, int n) const {
  const auto& c = config_;
  check_rows("reorder", n, st);
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
