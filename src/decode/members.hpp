// The decoder side of an ensemble, as beam search and greedy decoding drive it: one DecoderState per
// member, stepped together on the same rows, with the step's answer read through one interface.
//   One member: the model's own logits and attention rows, untouched, and the log-sum-exp computed
//   from them as before; an ensemble of one is the single model's decode, bit for bit.
//   N members: each row's scores are the mean of the members' log-probabilities (log-softmax of each
//   member's logits, averaged token by token), already normalised per member, so lse() is 0; the
//   attention row is the members' mean, and each member's own is kept beside it.
// Internal to src/decode/.
#pragma once
#include <vector>

#include "decode/decode.hpp"

namespace attnseq::detail {

class Members {
 public:
  // encs: n sources x size() members, source-major (encs[i * size() + m]: source i as member m encoded
  // it). capacity: most rows a step will hold.
  Members(const Ensemble& e, const Encoded* const* encs, int n, int capacity);
  int size() const { return M_; }
  int stride() const { return T_; }  // attention rows are laid out at this stride (the longest source)
  // One step of rows 0..B-1: row r continues source row_src[r] with token prev[r]. step_index (from 0)
  // names the target position in errors (a member whose logits are not finite). attn_override (one
  // row, B = 1: its source's T weights), if given, is every member's attention at this step, each
  // reading its own encoder states with it (a what-if); it is checked before any member changes.
  void step(const int* row_src, const std::int32_t* prev, int B, std::size_t step_index,
            const float* attn_override = nullptr);
  // After step(): row r's scores over the target vocabulary, and what to subtract from a score to
  // get a log-probability (one member: its log-sum-exp; more: 0).
  const float* scores(int r) const;
  float lse(int r, std::size_t step_index) const;
  // Row r's attention (stride()); member m's own (m in [0, size())).
  const float* attention(int r) const;
  const float* member_attention(int m, int r) const;
  // Member m's decoder state after step() (its rows: query, context, scores, weights, logits).
  const DecoderState& state(int m) const { return st_[std::size_t(m)]; }
  // Beam bookkeeping: row r of every member's state becomes row parents[r].
  void reorder(const std::int32_t* parents, int n);
  // Appends row r's attention (its first T values) to h: the mean to h.attention and, with more than
  // one member, each member's to h.member_attention[m].
  void append_attention(Hypothesis& h, int r, int T) const;

 private:
  const Ensemble& e_;
  const Encoded* const* encs_;
  int M_ = 1, T_ = 0;
  std::size_t V_ = 0;
  std::vector<DecoderState> st_;
  std::vector<const Encoded*> row_enc_;  // one member's rows at a time
  std::vector<float> mean_scores_, mean_attention_;
};

// The repetition guard (DecodeOptions::no_repeat_ngram): the tokens that would repeat one of h's
// n-grams, i.e. each token that follows an earlier occurrence of h's last n - 1 tokens (n = 1: every
// token of h). EOS is never among them. Replaces `out`.
void repeated_ngram_tokens(const std::int32_t* h, std::size_t len, int n, std::int32_t eos,
                           std::vector<std::int32_t>& out);
// scores with the `banned` tokens at -infinity, in scratch (V floats); scores itself when none is.
const float* without(const float* scores, std::size_t V, const std::vector<std::int32_t>& banned, float* scratch);

// The next token of a hypothesis past its prefix, as greedy decoding and the Session choose it: the
// argmax of the scores, or with a temperature a sample (sample_token), among the tokens the
// repetition guard leaves. `tokens`: the hypothesis so far. TokenChoice (decode.hpp) keeps the buffers.
std::int32_t choose_token(const float* logits, std::size_t V, const std::vector<std::int32_t>& tokens,
                          const DecodeOptions& o, std::int32_t eos, Rng& rng, TokenChoice& choice);

}  // namespace attnseq::detail
