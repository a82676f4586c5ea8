// Beam search. The live hypotheses are the rows of one DecoderState, so each step is one batched
// product per weight matrix. Candidates are the top `beam` tokens of each row; the best `beam`
// non-EOS candidates live on, EOS candidates finish. Stops when `beam` hypotheses have finished and
// the best live one can no longer beat them, or at max_length (live ones then finish unended). Attention rows are
// recovered by backtracking.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "decode/decode.hpp"
#include "kernels/kernels.hpp"

namespace attnseq {
namespace {

struct Candidate {
  std::int32_t parent, token;
  float log_prob;
};

struct History {  // one decoder step of every live row
  std::vector<std::int32_t> parent, token;
  std::vector<float> attention;  // (rows, T)
};

Hypothesis backtrack(const std::vector<History>& hist, std::size_t step, std::int32_t row, std::size_t T) {
  Hypothesis h;
  h.tokens.resize(step + 1);
  h.attention.resize((step + 1) * T);
  for (std::size_t k = step + 1; k-- > 0;) {
    h.tokens[k] = hist[k].token[row];
    std::copy_n(&hist[k].attention[row * T], T, &h.attention[k * T]);
    row = hist[k].parent[row];
  }
  return h;
}

float normalised(float log_prob, std::size_t len, float penalty) {
  return penalty > 0.f ? log_prob / std::pow(float(len), penalty) : log_prob;
}

}  // namespace

DecodeResult beam_search(const Model& model, const Encoded& enc, const DecodeOptions& o) {
  validate(o, model.config(), enc.T);
  const auto& c = model.config();
  const int K = o.beam;
  const std::size_t V = c.tgt_vocab, T = enc.T;
  const int max_len = effective_max_length(o, enc.T);
  // num_hypotheses only truncates the answer: the search (and so its best) is the same for any value.
  const std::size_t wanted = o.num_hypotheses > 0 ? o.num_hypotheses : K;

  DecoderState st;
  model.start(enc, st, K);
  std::vector<std::int32_t> prev(K, c.bos), parents(K), top_idx(K);
  std::vector<float> live_lp(K, 0.f), top_val(K);
  std::vector<Candidate> cands;
  cands.reserve(std::size_t(K) * K);
  std::vector<History> hist;
  std::vector<Hypothesis> finished;
  int B = 1;

  for (int k = 0; k < max_len && B > 0; ++k) {
    model.step(enc, st, prev.data(), B);
    cands.clear();
    for (int b = 0; b < B; ++b) {
      const float* l = &st.logits[b * V];
      const float lse = kernels::logsumexp(l, V);
      if (std::size_t(k) < o.prefix.size()) {
        cands.push_back({b, o.prefix[k], live_lp[b] + l[o.prefix[k]] - lse});
        continue;
      }
      const std::size_t n = std::min<std::size_t>(K, V);
      kernels::topk(l, V, n, top_idx.data(), top_val.data());
      for (std::size_t i = 0; i < n; ++i) cands.push_back({b, top_idx[i], live_lp[b] + top_val[i] - lse});
    }
    std::stable_sort(cands.begin(), cands.end(),
                     [](const Candidate& a, const Candidate& b) { return a.log_prob > b.log_prob; });

    // Row b of the state holds the hypothesis hist[k-1] row b ended with (k = 0: just BOS).
    int nb = 0;
    std::vector<std::pair<std::int32_t, std::int32_t>> kept;  // (parent row, token) of survivors
    const bool last = k + 1 == max_len;
    for (const auto& cd : cands) {
      if (nb >= K) break;
      if (cd.token == c.eos || last) {
        Hypothesis hy;
        if (k > 0) hy = backtrack(hist, k - 1, cd.parent, T);
        hy.tokens.push_back(cd.token);
        hy.attention.insert(hy.attention.end(), &st.weights[cd.parent * T], &st.weights[cd.parent * T] + T);
        hy.log_prob = cd.log_prob;
        hy.finished = cd.token == c.eos;
        hy.score = normalised(hy.log_prob, hy.tokens.size(), o.length_penalty);
        finished.push_back(std::move(hy));
        continue;
      }
      kept.push_back({cd.parent, cd.token});
      live_lp[nb] = cd.log_prob;
      ++nb;
    }
    if (nb == 0) break;
    if (finished.size() >= std::size_t(K)) {
      // Keep the best `beam` finished; stop once none of them can be overtaken by the best live
      // hypothesis at its current length (log p only falls as it grows; the heuristic of HF/fairseq).
      std::stable_sort(finished.begin(), finished.end(),
                       [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
      finished.resize(K);
      if (finished.back().score >= normalised(live_lp[0], std::size_t(k) + 1, o.length_penalty)) break;
    }
    // Record this step for the survivors: row r came from parent kept[r].first and emitted kept[r].second.
    History rec;
    for (int r = 0; r < nb; ++r) {
      parents[r] = kept[r].first;
      prev[r] = kept[r].second;
      rec.parent.push_back(kept[r].first);
      rec.token.push_back(kept[r].second);
      rec.attention.insert(rec.attention.end(), &st.weights[kept[r].first * T], &st.weights[kept[r].first * T] + T);
    }
    hist.push_back(std::move(rec));
    model.reorder(st, parents.data(), nb);
    B = nb;
  }
  std::stable_sort(finished.begin(), finished.end(),
                   [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
  if (finished.size() > wanted) finished.resize(wanted);
  DecodeResult r;
  r.src_len = enc.T;
  r.hypotheses = std::move(finished);
  return r;
}

}  // namespace attnseq
