// Greedy decoding and temperature sampling of a batch of sources (one hypothesis each), and the
// token choice it shares with the step-at-a-time Session (session.cpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "decode/decode.hpp"
#include "decode/members.hpp"
#include "decode/options.hpp"
#include "kernels/kernels.hpp"

namespace attnseq {

std::int32_t sample_token(const float* logits, std::size_t n, float temperature, Rng& rng, float* p) {
  // T so small that 1/T overflows (below 2^-128, i.e. denormal): the T -> 0 limit, the argmax.
  const float inv = 1.f / temperature;
  if (!std::isfinite(inv)) return std::int32_t(kernels::argmax(logits, n));
  // Subtract the max before scaling: (l - max) / T is <= 0, so a tiny T gives -inf (weight 0) for
  // the others and exactly 0 for the max, where l / T alone would overflow to inf - inf = NaN.
  const float m = kernels::max(logits, n);
  for (std::size_t i = 0; i < n; ++i) p[i] = (logits[i] - m) * inv;
  kernels::masked_softmax(p, n, n);
  const float u = rng.uniform();
  float acc = 0.f;
  for (std::size_t i = 0; i < n; ++i) {
    acc += p[i];
    if (u < acc) return std::int32_t(i);
  }
  return std::int32_t(kernels::argmax(p, n));  // rounding left u above the total
}

namespace detail {

std::int32_t choose_token(const float* logits, std::size_t V, const std::vector<std::int32_t>& tokens,
                          const DecodeOptions& o, std::int32_t eos, Rng& rng, TokenChoice& c) {
  repeated_ngram_tokens(tokens.data(), tokens.size(), o.no_repeat_ngram, eos, c.banned);
  if (!c.banned.empty()) c.masked.resize(V);
  const float* allowed = without(logits, V, c.banned, c.masked.data());
  if (!(o.temperature > 0.f)) return std::int32_t(kernels::argmax(allowed, V));
  c.scratch.resize(V);
  return sample_token(allowed, V, o.temperature, rng, c.scratch.data());
}

}  // namespace detail

float checked_logsumexp(const float* logits, std::size_t V, std::size_t step) {
  const float lse = kernels::logsumexp(logits, V);
  if (!std::isfinite(lse))
    throw BadCheckpoint("target step " + std::to_string(step + 1) + ": the model's logits are not finite (" +
                        number_text(lse) + "); its weights overflow float32 arithmetic");
  return lse;
}

// One row per source; a source's row leaves the state once it has emitted EOS or reached its
// max_length, so the batch shrinks as sources finish. Each source samples from its own Rng(seed),
// exactly as a Session does alone.
std::vector<DecodeResult> greedy_or_sample(const Ensemble& e, const Encoded* const* encs, int n,
                                           const DecodeOptions& o) {
  const auto& c = e.config();
  const int M = e.size();
  const std::size_t V = c.tgt_vocab, N = n;
  std::vector<DecodeResult> out(N);
  std::vector<Rng> rng;
  std::vector<int> max_len(N), src_of(N), next_src(N);
  std::vector<std::int32_t> prev(N, c.bos), parents(N);
  for (std::size_t i = 0; i < N; ++i) {
    validate(o, c, encs[i * M]->T);
    max_len[i] = effective_max_length(o, encs[i * M]->T);
    rng.emplace_back(o.seed);
    src_of[i] = int(i);
    out[i].src_len = encs[i * M]->T;
    out[i].hypotheses.resize(1);
  }
  detail::TokenChoice choice;
  detail::Members st(e, encs, n, n);
  int B = n;
  for (std::size_t k = 0; B > 0; ++k) {
    st.step(src_of.data(), prev.data(), B, k);
    int nb = 0;
    for (int r = 0; r < B; ++r) {
      const int i = src_of[r];
      Hypothesis& h = out[i].hypotheses[0];
      const float* logits = st.scores(r);
      std::int32_t token;
      if (k < o.prefix.size())
        token = o.prefix[k];
      else
        token = detail::choose_token(logits, V, h.tokens, o, c.eos, rng[i], choice);
      h.log_prob += logits[token] - st.lse(r, k);
      st.append_attention(h, r, out[i].src_len);
      h.tokens.push_back(token);
      if (token == c.eos || int(h.tokens.size()) >= max_len[i]) continue;
      parents[nb] = r;
      prev[nb] = token;
      next_src[nb] = i;
      ++nb;
    }
    if (nb > 0 && nb < B) st.reorder(parents.data(), nb);
    std::swap(src_of, next_src);
    B = nb;
  }
  for (auto& r : out) {
    Hypothesis& h = r.hypotheses[0];
    h.finished = !h.tokens.empty() && h.tokens.back() == c.eos;
    const float len = float(h.tokens.size());
    h.score = o.length_penalty > 0.f ? h.log_prob / std::pow(len, o.length_penalty) : h.log_prob;
  }
  return out;
}

}  // namespace attnseq
