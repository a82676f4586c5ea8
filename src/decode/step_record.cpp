// The step record's layout and writer (declared in step_record.hpp).
#include "decode/step_record.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/kernels.hpp"

namespace attnseq {

const char* StepRecordLayout::name(Field f) {
  static const char* const names[kFieldCount] = {"token",     "logProb", "done",     "forced", "index",
                                                 "topkCount", "query",   "context",  "scores", "attention",
                                                 "logits",    "topkIds", "topkProbs"};
  return f >= 0 && f < kFieldCount ? names[f] : "";
}

StepRecordLayout step_record_layout(const ModelConfig& c, int src_len, bool with_state) {
  using L = StepRecordLayout;
  const std::size_t T = std::size_t(src_len);
  std::array<std::size_t, L::kFieldCount> len{};
  for (int f = L::Token; f <= L::TopkCount; ++f) len[f] = 1;
  len[L::Query] = with_state ? std::size_t(c.dec_hidden) : 0;
  len[L::Context] = with_state ? std::size_t(c.enc_out()) : 0;
  len[L::Scores] = with_state ? T : 0;
  len[L::Attention] = T;
  len[L::Logits] = std::size_t(c.tgt_vocab);
  len[L::TopkIds] = len[L::TopkProbs] = kMaxTopk;
  L r;
  for (int f = 0; f < L::kFieldCount; ++f) {
    r.fields[f] = {r.size, len[f]};
    r.size += len[f];
  }
  return r;
}

void write_step_record(const StepRecordLayout& L, const Session& s, int topk, std::int32_t* idx, float* rec) {
  using F = StepRecordLayout;
  const Session::Step& step = s.last();
  auto put = [&](F::Field f, float x) { rec[L[f].offset] = x; };
  auto copy = [&](F::Field f, const float* v) { std::copy_n(v, L[f].length, rec + L[f].offset); };
  put(F::Token, float(step.token));
  put(F::LogProb, step.log_prob);
  put(F::Done, step.done ? 1.f : 0.f);
  put(F::Forced, step.forced ? 1.f : 0.f);
  put(F::Index, float(s.length() - 1));
  const float* scores = s.scores();
  copy(F::Attention, s.attention());
  copy(F::Logits, scores);
  if (L[F::Query].length > 0) {  // one model's state (the layout has none for an ensemble)
    const DecoderState& st = s.member_state(0);
    copy(F::Query, st.query.data());
    copy(F::Context, st.context.data());
    copy(F::Scores, st.scores.data());
  }
  const std::size_t V = L[F::Logits].length;
  const std::size_t k = std::min({std::size_t(std::max(topk, 0)), V, L[F::TopkIds].length});
  put(F::TopkCount, float(k));
  float* ids = rec + L[F::TopkIds].offset;
  float* probs = rec + L[F::TopkProbs].offset;
  kernels::topk(scores, V, k, idx, probs);               // the top scores land where their probabilities go
  const float lse = scores[step.token] - step.log_prob;  // Session::step already computed it
  for (std::size_t i = 0; i < k; ++i) ids[i] = float(idx[i]), probs[i] = std::exp(probs[i] - lse);
}

void write_member_record(const StepRecordLayout& L, const Session& s, int m, float* rec) {
  using F = StepRecordLayout;
  const DecoderState& st = s.member_state(m);
  auto copy = [&](F::Field f, const std::vector<float>& v) { std::copy_n(v.data(), L[f].length, rec + L[f].offset); };
  copy(F::Query, st.query);
  copy(F::Context, st.context);
  copy(F::Scores, st.scores);
  copy(F::Attention, st.attention);
  copy(F::Logits, st.logits);
}

}  // namespace attnseq
