// Beam search, for one source or many at once. The live hypotheses are the rows of one DecoderState, so
// each step is one batched product per weight matrix. Candidates are the top `beam` tokens of each row; the best `beam`
// non-EOS candidates live on, EOS candidates finish. Stops when `beam` hypotheses have finished and
// the best live one can no longer beat them, or at max_length (live ones then finish unended). Attention rows are
// recovered by backtracking.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "decode/decode.hpp"
#include "decode/members.hpp"
#include "kernels/kernels.hpp"

namespace attnseq {
namespace {

struct Candidate {
  std::int32_t parent, token;
  float log_prob;
};

struct History {  // one decoder step of every live row
  std::vector<std::int32_t> parent, token;
  Hypothesis attention;  // the rows' attention, one T-row per live row (an ensemble's members' too)
};

Hypothesis backtrack(const std::vector<History>& hist, std::size_t step, std::int32_t row, std::size_t T, int members) {
  Hypothesis h;
  h.tokens.resize(step + 1);
  h.attention.resize((step + 1) * T);
  if (members > 1) h.member_attention.assign(std::size_t(members), std::vector<float>((step + 1) * T));
  for (std::size_t k = step + 1; k-- > 0;) {
    h.tokens[k] = hist[k].token[row];
    const Hypothesis& a = hist[k].attention;
    std::copy_n(&a.attention[row * T], T, &h.attention[k * T]);
    for (std::size_t m = 0; m < h.member_attention.size(); ++m)
      std::copy_n(&a.member_attention[m][row * T], T, &h.member_attention[m][k * T]);
    row = hist[k].parent[row];
  }
  return h;
}

float normalised(float log_prob, std::size_t len, float penalty) {
  return penalty > 0.f ? log_prob / std::pow(float(len), penalty) : log_prob;
}

// GNMT's coverage penalty (Wu et al. 2016, eq. 14): beta * sum over source tokens i of
// log min(c_i, 1), where c_i is the attention token i received over all of the hypothesis's steps.
// It is 0 for a hypothesis that gave every source token a whole step's worth of attention, and
// falls as tokens go unread. A token read not at all (float32 weights are exactly 0 when scores are
// far apart) counts as read 1e-6: the penalty stays finite, and ranks by how many went unread.
float coverage_term(const std::vector<float>& attention, std::size_t rows, std::size_t T, float beta) {
  double sum = 0.0;
  for (std::size_t i = 0; i < T; ++i) {
    double c = 0.0;
    for (std::size_t k = 0; k < rows; ++k) c += double(attention[k * T + i]);
    sum += std::log(std::min(std::max(c, 1e-6), 1.0));
  }
  return float(double(beta) * sum);
}

}  // namespace

// The sources' live rows sit in one DecoderState, source after source, each source's rows together;
// source i's block is rows [off_i, off_i + B_i). Everything per source (candidates, finished list,
// history, stop rule) is what beam search does for that source alone; only the products are shared.
std::vector<DecodeResult> beam_search(const Ensemble& e, const Encoded* const* encs, int n, const DecodeOptions& o) {
  const auto& c = e.config();
  const int M = e.size();
  const int K = o.beam;
  const std::size_t V = c.tgt_vocab, N = n;
  // num_hypotheses only truncates the answer: the search (and so its best) is the same for any value.
  const std::size_t wanted = o.num_hypotheses > 0 ? o.num_hypotheses : K;
  struct Source {
    int max_len = 0, live = 1;  // live: rows in the state (0: done)
    std::vector<float> live_lp;
    std::vector<History> hist;
    std::vector<Hypothesis> finished;
    std::vector<std::vector<BeamNode>> trace;       // o.trace: every step's nodes
    std::vector<std::int32_t> live_node;            // o.trace: live row -> its node in the last step
    std::vector<std::vector<std::int32_t>> tokens;  // o.no_repeat_ngram: each live row's tokens so far
  };
  std::vector<Source> S(N);
  for (std::size_t i = 0; i < N; ++i) {
    validate(o, c, encs[i * M]->T);
    S[i].max_len = effective_max_length(o, encs[i * M]->T);
    S[i].live_lp.assign(K, 0.f);
    if (o.no_repeat_ngram > 0) S[i].tokens.assign(1, {});
  }
  std::vector<float> masked(o.no_repeat_ngram > 0 ? V : 0);
  std::vector<std::int32_t> banned;
  std::vector<std::vector<std::int32_t>> next_tokens;
  detail::Members st(e, encs, n, n * K);
  std::vector<std::int32_t> prev(N * K, c.bos), next_prev(N * K), parents(N * K), top_idx(K);
  std::vector<int> row_src(N * K), next_src(N * K);
  for (std::size_t i = 0; i < N; ++i) row_src[i] = int(i);
  std::vector<float> top_val(K);
  std::vector<Candidate> cands;
  cands.reserve(std::size_t(K) * K);
  std::vector<std::pair<std::int32_t, std::int32_t>> kept;  // (parent row within the source, token)
  int B = n;

  for (int k = 0; B > 0; ++k) {
    st.step(row_src.data(), prev.data(), B, std::size_t(k));
    int nb = 0, off = 0;
    for (std::size_t i = 0; i < N; ++i) {
      Source& s = S[i];
      if (s.live == 0) continue;
      const std::size_t T = encs[i * M]->T;
      const int rows = s.live;
      cands.clear();
      for (int b = 0; b < rows; ++b) {
        const float* l = st.scores(off + b);
        const float lse = st.lse(off + b, std::size_t(k));
        if (std::size_t(k) < o.prefix.size()) {
          cands.push_back({b, o.prefix[k], s.live_lp[b] + l[o.prefix[k]] - lse});
          continue;
        }
        const std::size_t m = std::min<std::size_t>(K, V);
        const float* allowed = l;
        if (o.no_repeat_ngram > 0) {
          detail::repeated_ngram_tokens(s.tokens[b].data(), s.tokens[b].size(), o.no_repeat_ngram, c.eos, banned);
          allowed = detail::without(l, V, banned, masked.data());
        }
        kernels::topk(allowed, V, m, top_idx.data(), top_val.data());
        for (std::size_t j = 0; j < m; ++j)  // a token the guard refused is no candidate (V small, many refused)
          if (top_val[j] != -std::numeric_limits<float>::infinity())
            cands.push_back({b, top_idx[j], s.live_lp[b] + top_val[j] - lse});
      }
      std::stable_sort(cands.begin(), cands.end(),
                       [](const Candidate& a, const Candidate& b) { return a.log_prob > b.log_prob; });

      // Row b of the source's block holds the hypothesis hist[k-1] row b ended with (k = 0: just BOS).
      int kb = 0;
      kept.clear();
      const bool last = k + 1 == s.max_len;
      std::vector<BeamNode>* nodes = nullptr;
      std::vector<std::int32_t> node_of_row;
      if (o.trace) {
        s.trace.emplace_back();
        nodes = &s.trace.back();
      }
      for (const auto& cd : cands) {
        if (kb >= K) break;
        const bool ends = cd.token == c.eos || last;
        Hypothesis hy;
        if (ends) {
          if (k > 0) hy = backtrack(s.hist, k - 1, cd.parent, T, M);
          hy.tokens.push_back(cd.token);
          st.append_attention(hy, off + cd.parent, int(T));
          hy.log_prob = cd.log_prob;
          hy.finished = cd.token == c.eos;
          hy.score = normalised(hy.log_prob, hy.tokens.size(), o.length_penalty);
          if (o.coverage_penalty > 0.f)
            hy.score += coverage_term(hy.attention, hy.tokens.size(), T, o.coverage_penalty);
        }
        if (nodes) {
          if (!ends) node_of_row.push_back(std::int32_t(nodes->size()));
          nodes->push_back({k > 0 ? s.live_node[cd.parent] : -1, cd.token, cd.log_prob,
                            ends ? hy.score : normalised(cd.log_prob, std::size_t(k) + 1, o.length_penalty), ends});
        }
        if (ends) {
          s.finished.push_back(std::move(hy));
          continue;
        }
        kept.push_back({cd.parent, cd.token});
        s.live_lp[kb] = cd.log_prob;
        ++kb;
      }
      bool done = kb == 0;
      if (!done && s.finished.size() >= std::size_t(K)) {
        // Keep the best `beam` finished; stop once none of them can be overtaken by the best live
        // hypothesis at its current length (log p only falls as it grows; the heuristic of HF/fairseq).
        std::stable_sort(s.finished.begin(), s.finished.end(),
                         [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
        s.finished.resize(K);
        done = s.finished.back().score >= normalised(s.live_lp[0], std::size_t(k) + 1, o.length_penalty);
      }
      if (!done) {
        // Record this step for the survivors: row r came from parent kept[r].first and emitted kept[r].second.
        History rec;
        for (int r = 0; r < kb; ++r) {
          parents[nb + r] = off + kept[r].first;
          next_prev[nb + r] = kept[r].second;
          next_src[nb + r] = int(i);
          rec.parent.push_back(kept[r].first);
          rec.token.push_back(kept[r].second);
          st.append_attention(rec.attention, off + kept[r].first, int(T));
        }
        s.hist.push_back(std::move(rec));
        if (o.no_repeat_ngram > 0) {
          next_tokens.resize(std::size_t(kb));
          for (int r = 0; r < kb; ++r) {
            next_tokens[r] = s.tokens[kept[r].first];
            next_tokens[r].push_back(kept[r].second);
          }
          std::swap(s.tokens, next_tokens);
        }
        nb += kb;
      }
      if (nodes) s.live_node = std::move(node_of_row);
      off += rows;
      s.live = done ? 0 : kb;
    }
    if (nb > 0) st.reorder(parents.data(), nb);
    std::swap(prev, next_prev);
    std::swap(row_src, next_src);
    B = nb;
  }
  std::vector<DecodeResult> out(N);
  for (std::size_t i = 0; i < N; ++i) {
    auto& f = S[i].finished;
    std::stable_sort(f.begin(), f.end(), [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
    if (f.size() > wanted) f.resize(wanted);
    out[i].src_len = encs[i * M]->T;
    out[i].hypotheses = std::move(f);
    out[i].trace = std::move(S[i].trace);
  }
  return out;
}

}  // namespace attnseq
