// Beam search and sampling held to the semantics README.md states under "Decisions", on tiny hand-built
// models whose sequence probabilities this file computes itself, in double, from the weights: the beam's
// best is the exhaustive optimum of log p / length^alpha, scores and log probs are exact, the stopping
// rule, beam 1 = greedy; a seed gives one committed token sequence in every build (native and wasm);
// sampled tokens follow softmax(logits / T) (chi-square).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/model.hpp"

using namespace attnseq;

// Token sequences print as {4, 2} in failure messages.
namespace doctest {
template <>
struct StringMaker<std::vector<std::int32_t>> {
  static String convert(const std::vector<std::int32_t>& v) {
    std::string s = "{";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return (s + "}").c_str();
  }
};
}  // namespace doctest

namespace {

constexpr int kV = 8;  // target vocabulary: the four specials, then A B C D
constexpr std::int32_t kPad = 0, kBos = 1, kEos = 2, kUnk = 3, kA = 4, kB = 5, kC = 6, kD = 7;
using Table = std::vector<std::vector<double>>;  // [previous token][next token]
using Seq = std::vector<std::int32_t>;
const Seq kSrc = {4};  // the source does not matter: these models have no attention and a zero encoder

// A model whose next-token logits depend only on the previous token: style none, one GRU layer, one-hot
// embeddings, the update gate shut (z = sigmoid(-30)) and no recurrent weights, so s_k = tanh(20 e_prev)
// is the one-hot of the previous token and column `prev` of the output layer holds the logits after it.
// The encoder's weights are all zero, so s_0 = h_T = 0.
Model markov_model(const Table& logits) {
  ModelConfig c;
  c.cell = Cell::GRU;
  c.style = Style::None;
  c.src_vocab = 5;
  c.tgt_vocab = kV;
  c.src_emb = 1;
  c.tgt_emb = kV;
  c.enc_hidden = kV;
  c.dec_hidden = kV;
  Model m(c);
  float* emb = m.params().get("decoder.embedding.weight");   // (V, E)
  float* w_ih = m.params().get("decoder.rnn.weight_ih_l0");  // (3 Hd, E): rows r, z, n
  float* b_ih = m.params().get("decoder.rnn.bias_ih_l0");
  float* w_out = m.params().get("decoder.out.weight");  // (V, Hd)
  for (int i = 0; i < kV; ++i) {
    emb[i * kV + i] = 1.f;
    w_ih[(2 * kV + i) * kV + i] = 20.f;
    b_ih[kV + i] = -30.f;
    for (int j = 0; j < kV; ++j) w_out[j * kV + i] = float(logits[i][j]);
  }
  m.prepare();
  return m;
}

// Logits from unnormalised probabilities (softmax divides by the row's sum).
Table log_of(Table p) {
  for (auto& row : p)
    for (auto& x : row) x = std::log(x);
  return p;
}

// A row for the tokens that never matter much: distinct values, so no two candidates tie.
std::vector<double> filler(double base) {
  std::vector<double> r(kV);
  for (int i = 0; i < kV; ++i) r[i] = base * (1 + 0.07 * i);
  return r;
}

std::vector<double> softmax(const std::vector<double>& l, double temperature = 1.0) {
  const double m = *std::max_element(l.begin(), l.end());
  std::vector<double> p(l.size());
  double s = 0;
  for (std::size_t i = 0; i < l.size(); ++i) s += p[i] = std::exp((l[i] - m) / temperature);
  for (auto& x : p) x /= s;
  return p;
}

std::vector<double> log_softmax(const std::vector<double>& l) {
  const double m = *std::max_element(l.begin(), l.end());
  double s = 0;
  for (double x : l) s += std::exp(x - m);
  std::vector<double> r(l.size());
  for (std::size_t i = 0; i < l.size(); ++i) r[i] = l[i] - m - std::log(s);
  return r;
}

// README: beams rank by log p / length^alpha. Length is the number of target tokens, the final EOS
// included (as src/decode/beam.cpp counts it: tokens.size()), and alpha = 0 ranks by log p.
double ranked(double log_p, std::size_t length, double alpha) { return log_p / std::pow(double(length), alpha); }

// The model written out in double from its own weights: PyTorch's GRU (gates r, z, n), style none
// (logits = W_out s_k + b_out), s_0 = the encoder's final state. Any one-layer GRU/none model works.
class Reference {
 public:
  explicit Reference(const Model& m) {
    for (const char* n :
         {"encoder.embedding.weight", "encoder.rnn.weight_ih_l0", "encoder.rnn.weight_hh_l0", "encoder.rnn.bias_ih_l0",
          "encoder.rnn.bias_hh_l0", "decoder.embedding.weight", "decoder.rnn.weight_ih_l0", "decoder.rnn.weight_hh_l0",
          "decoder.rnn.bias_ih_l0", "decoder.rnn.bias_hh_l0", "decoder.out.weight", "decoder.out.bias"})
      w_.push_back(tensor(m, n));
    es_ = m.config().src_emb, et_ = m.config().tgt_emb, he_ = m.config().enc_hidden, hd_ = m.config().dec_hidden;
    v_ = m.config().tgt_vocab;
  }
  std::vector<double> start(const Seq& src) const {
    std::vector<double> h(he_, 0.0);
    for (auto t : src) gru(row(w_[0], t, es_), h, w_[1], w_[2], w_[3], w_[4]);
    return h;
  }
  // Feeds prev, advances h, returns the logits of the next token.
  std::vector<double> step(std::int32_t prev, std::vector<double>& h) const {
    gru(row(w_[5], prev, et_), h, w_[6], w_[7], w_[8], w_[9]);
    std::vector<double> l(v_);
    for (int i = 0; i < v_; ++i) {
      l[i] = w_[11][i];
      for (int j = 0; j < hd_; ++j) l[i] += w_[10][i * hd_ + j] * h[j];
    }
    return l;
  }
  double log_prob(const Seq& src, const Seq& tgt) const {
    auto h = start(src);
    double lp = 0;
    std::int32_t prev = kBos;
    for (auto t : tgt) {
      lp += log_softmax(step(prev, h))[t];
      prev = t;
    }
    return lp;
  }

 private:
  static std::vector<double> tensor(const Model& m, const std::string& name) {
    const auto& specs = m.params().specs;
    for (const auto& s : specs)
      if (s.name == name) {
        const float* p = m.params().get(name);
        return std::vector<double>(p, p + s.numel());
      }
    FAIL("no parameter " << name);
    return {};
  }
  static std::vector<double> row(const std::vector<double>& w, std::int32_t r, int n) {
    return std::vector<double>(w.begin() + std::size_t(r) * n, w.begin() + std::size_t(r + 1) * n);
  }
  static double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
  static void gru(const std::vector<double>& x, std::vector<double>& h, const std::vector<double>& wih,
                  const std::vector<double>& whh, const std::vector<double>& bih, const std::vector<double>& bhh) {
    const std::size_t H = h.size(), I = x.size();
    std::vector<double> gi(3 * H), gh(3 * H);
    for (std::size_t g = 0; g < 3 * H; ++g) {
      gi[g] = bih[g];
      gh[g] = bhh[g];
      for (std::size_t i = 0; i < I; ++i) gi[g] += wih[g * I + i] * x[i];
      for (std::size_t j = 0; j < H; ++j) gh[g] += whh[g * H + j] * h[j];
    }
    for (std::size_t i = 0; i < H; ++i) {
      const double r = sigmoid(gi[i] + gh[i]), z = sigmoid(gi[H + i] + gh[H + i]);
      const double n = std::tanh(gi[2 * H + i] + r * gh[2 * H + i]);
      h[i] = (1 - z) * n + z * h[i];
    }
  }
  std::vector<std::vector<double>> w_;
  int es_ = 0, et_ = 0, he_ = 0, hd_ = 0, v_ = 0;
};

struct Optimum {
  double score = -INFINITY, runner_up = -INFINITY;  // the best score and the best other sequence's
  Seq tokens;
};

// Every hypothesis a search may return: ended by EOS within max_len tokens, or max_len tokens unended.
// Enumerates them all (V^max_len) through the reference and keeps the best of each alpha.
std::vector<Optimum> exhaustive(const Reference& ref, int max_len, const std::vector<double>& alphas) {
  std::vector<Optimum> best(alphas.size());
  Seq seq;
  std::function<void(std::vector<double>, double)> grow = [&](std::vector<double> h, double lp) {
    const auto ls = log_softmax(ref.step(seq.empty() ? kBos : seq.back(), h));
    for (std::int32_t t = 0; t < kV; ++t) {
      seq.push_back(t);
      if (t == kEos || int(seq.size()) == max_len) {
        for (std::size_t a = 0; a < alphas.size(); ++a) {
          const double s = ranked(lp + ls[t], seq.size(), alphas[a]);
          if (s > best[a].score)
            best[a].runner_up = best[a].score, best[a].score = s, best[a].tokens = seq;
          else
            best[a].runner_up = std::max(best[a].runner_up, s);
        }
      } else {
        grow(h, lp + ls[t]);
      }
      seq.pop_back();
    }
  };
  grow(ref.start(kSrc), 0.0);
  return best;
}

// The same optimum by dynamic programming, for lengths too long to enumerate: the decoder is Markov in
// the previous token (its state keeps z = sigmoid(-30) ~ 1e-13 of the past), so the best sequence of
// each length ending in t extends the best one, one token shorter, ending in some token.
Optimum viterbi(const Reference& ref, int max_len, double alpha) {
  std::vector<std::vector<double>> trans(kV);
  for (std::int32_t p = 0; p < kV; ++p) {
    auto h = ref.start(kSrc);
    trans[p] = log_softmax(ref.step(p, h));
  }
  Optimum best;
  std::vector<std::pair<double, Seq>> live = {{0.0, {}}};  // best prefix ending in each token
  for (int n = 1; n <= max_len; ++n) {
    std::vector<std::pair<double, Seq>> next(kV, {-INFINITY, {}});
    for (const auto& [lp, s] : live) {
      if (lp == -INFINITY) continue;
      const auto& ls = trans[s.empty() ? kBos : s.back()];
      for (std::int32_t t = 0; t < kV; ++t) {
        if (t == kEos || n == max_len) {
          const double sc = ranked(lp + ls[t], n, alpha);
          if (sc > best.score) {
            best.runner_up = best.score, best.score = sc, best.tokens = s;
            best.tokens.push_back(t);
          } else {
            best.runner_up = std::max(best.runner_up, sc);
          }
        }
        if (t != kEos && lp + ls[t] > next[t].first) {
          next[t] = {lp + ls[t], s};
          next[t].second.push_back(t);
        }
      }
    }
    live = std::move(next);
  }
  return best;
}

// What every returned hypothesis must satisfy, whatever the search did.
void check_hypotheses(const Model& m, const Encoded& enc, const Reference& ref, const DecodeResult& r, double alpha,
                      int max_len) {
  for (std::size_t i = 0; i < r.hypotheses.size(); ++i) {
    const auto& h = r.hypotheses[i];
    CAPTURE(i);
    REQUIRE(!h.tokens.empty());
    CHECK(std::count(h.tokens.begin(), h.tokens.end(), kEos) == (h.finished ? 1 : 0));
    CHECK(h.finished == (h.tokens.back() == kEos));
    if (!h.finished) CHECK(int(h.tokens.size()) == max_len);
    const double lp = ref.log_prob(kSrc, h.tokens);
    CHECK(h.log_prob == doctest::Approx(lp).epsilon(1e-5));
    CHECK(h.score == doctest::Approx(ranked(h.log_prob, h.tokens.size(), alpha)).epsilon(1e-6));
    CHECK(h.score == doctest::Approx(ranked(lp, h.tokens.size(), alpha)).epsilon(1e-5));
    // Forcing the tokens through a Session gives the same log-softmax values, summed.
    DecodeOptions f;
    f.max_length = max_len;
    Session s(m, enc, f);
    double sum = 0;
    for (auto t : h.tokens) sum += s.step(t).log_prob;
    CHECK(sum == doctest::Approx(h.log_prob).epsilon(1e-5));
    if (i > 0) {
      CHECK(r.hypotheses[i - 1].score >= h.score);
      CHECK(r.hypotheses[i - 1].tokens != h.tokens);
    }
  }
}

// "A EOS" has the better total log p (-1.05 vs -1.20); "B C D EOS" the better mean per token (-0.30
// vs -0.52): alpha = 0 must pick the first and alpha >= 0.5 the second.
Table two_answers() {
  Table p(kV);
  p[kPad] = filler(1.0), p[kEos] = filler(1.3), p[kUnk] = filler(0.9);
  p[kBos] = {0.011, 0.004, 0.021, 0.006, 0.5, 0.35, 0.062, 0.046};
  p[kA] = {0.012, 0.003, 0.7, 0.005, 0.09, 0.075, 0.06, 0.055};
  p[kB] = {0.008, 0.002, 0.012, 0.004, 0.006, 0.009, 0.95, 0.009};
  p[kC] = {0.007, 0.002, 0.013, 0.004, 0.005, 0.008, 0.011, 0.95};
  p[kD] = {0.006, 0.002, 0.95, 0.004, 0.012, 0.009, 0.007, 0.01};
  return log_of(p);
}

// Two answers again: "A EOS" (short, likely) and "B B B ..." (unlikely first token, then B after B with
// probability 0.99), whose score under alpha = 1 keeps rising with its length. weight_b sets p(B | BOS).
Table slow_starter(double weight_b) {
  Table p(kV);
  p[kPad] = filler(1.0), p[kEos] = filler(1.3), p[kUnk] = filler(0.9), p[kC] = filler(1.1), p[kD] = filler(0.8);
  p[kBos] = {0.0145, 0.007, 0.029, 0.0174, 0.8, weight_b, 0.0435, 0.0333};
  p[kA] = {0.01, 0.002, 0.8, 0.006, 0.15, 0.012, 0.011, 0.009};
  p[kB] = {0.0009, 0.0002, 0.005, 0.0006, 0.0011, 0.99, 0.0013, 0.0009};
  return log_of(p);
}

Encoded encode(const Model& m) {
  Encoded e;
  m.encode(kSrc.data(), int(kSrc.size()), e);
  return e;
}

DecodeResult run_beam(const Model& m, const Encoded& enc, int beam, int max_len, double alpha, int hyps = 0) {
  DecodeOptions o;
  o.beam = beam;
  o.max_length = max_len;
  o.length_penalty = float(alpha);
  o.num_hypotheses = hyps;
  return decode(m, enc, o);
}

}  // namespace

TEST_CASE("beam search returns the exhaustive optimum of log p / length^alpha, and alpha picks the winner") {
  const Model m = markov_model(two_answers());
  const Reference ref(m);
  const Encoded enc = encode(m);
  for (float v : enc.init_h) CHECK(v == 0.f);  // s_0 = 0, as the reference assumes
  const int max_len = 6;
  const std::vector<double> alphas = {0, 0.5, 1, 2};
  const auto best = exhaustive(ref, max_len, alphas);
  // The design: the winner changes between alpha 0 and 0.5, each by a clear margin (no near-tie).
  CHECK(best[0].tokens == Seq{kA, kEos});
  for (std::size_t a = 1; a < alphas.size(); ++a) CHECK(best[a].tokens == Seq{kB, kC, kD, kEos});
  for (const auto& b : best) CHECK(b.score - b.runner_up > 1e-2);
  CHECK(viterbi(ref, max_len, 1.0).tokens == best[2].tokens);  // the DP used below agrees with enumeration

  for (std::size_t a = 0; a < alphas.size(); ++a) {
    for (int beam : {2, 3, 4}) {
      CAPTURE(alphas[a]);
      CAPTURE(beam);
      const auto r = run_beam(m, enc, beam, max_len, alphas[a]);
      REQUIRE(!r.hypotheses.empty());
      CHECK(int(r.hypotheses.size()) <= beam);
      CHECK(r.hypotheses[0].tokens == best[a].tokens);
      CHECK(r.hypotheses[0].score == doctest::Approx(best[a].score).epsilon(1e-5));
      check_hypotheses(m, enc, ref, r, alphas[a], max_len);
    }
  }
  // Length counts the EOS: "B C D EOS" under alpha = 1 scores log p / 4, not log p / 3.
  const auto r = run_beam(m, enc, 2, max_len, 1.0);
  REQUIRE(r.hypotheses[0].tokens.size() == 4);
  CHECK(r.hypotheses[0].score == doctest::Approx(r.hypotheses[0].log_prob / 4).epsilon(1e-6));
}

// The beam's trace (DecodeOptions::trace, the page's "beam unfolding"): every node's path, followed
// through its parents, has the log p the reference computes; live nodes are at most `beam` per step
// and are the ones the next step extends; every returned hypothesis is an ended node of the trace;
// and tracing changes nothing about the search.
TEST_CASE("beam trace: each step's hypotheses, where each came from, and their exact log p") {
  for (const Table& table : {two_answers(), slow_starter(0.06)}) {
    const Model m = markov_model(table);
    const Reference ref(m);
    const Encoded enc = encode(m);
    for (int beam : {2, 3}) {
      for (double alpha : {0.0, 1.0}) {
        CAPTURE(beam);
        CAPTURE(alpha);
        DecodeOptions o;
        o.beam = beam;
        o.max_length = 6;
        o.length_penalty = float(alpha);
        const DecodeResult plain = decode(m, enc, o);
        CHECK(plain.trace.empty());
        o.trace = true;
        const DecodeResult r = decode(m, enc, o);
        REQUIRE(r.hypotheses.size() == plain.hypotheses.size());
        for (std::size_t h = 0; h < r.hypotheses.size(); ++h) {
          CHECK(r.hypotheses[h].tokens == plain.hypotheses[h].tokens);
          CHECK(r.hypotheses[h].score == plain.hypotheses[h].score);
        }
        REQUIRE(!r.trace.empty());
        CHECK(r.trace.size() <= 6);
        auto path = [&](std::size_t k, std::int32_t i) {
          Seq toks(k + 1);
          for (std::size_t j = k + 1; j-- > 0;) {
            toks[j] = r.trace[j][std::size_t(i)].token;
            i = r.trace[j][std::size_t(i)].parent;
          }
          CHECK(i == -1);
          return toks;
        };
        for (std::size_t k = 0; k < r.trace.size(); ++k) {
          const auto& nodes = r.trace[k];
          int live = 0;
          for (std::size_t i = 0; i < nodes.size(); ++i) {
            const BeamNode& n = nodes[i];
            live += !n.ended;
            if (k == 0) {
              CHECK(n.parent == -1);
            } else {
              REQUIRE(n.parent >= 0);
              REQUIRE(std::size_t(n.parent) < r.trace[k - 1].size());
              CHECK_FALSE(r.trace[k - 1][std::size_t(n.parent)].ended);  // only live hypotheses grow
              CHECK(n.log_prob <= r.trace[k - 1][std::size_t(n.parent)].log_prob);
            }
            const Seq toks = path(k, std::int32_t(i));
            CHECK(n.log_prob == doctest::Approx(ref.log_prob(kSrc, toks)).epsilon(1e-5));
            CHECK(n.score == doctest::Approx(ranked(n.log_prob, k + 1, alpha)).epsilon(1e-6));
            CHECK(n.ended == (n.token == kEos || k + 1 == 6));
            if (i > 0) CHECK(nodes[i - 1].log_prob >= n.log_prob);  // ranked best first
          }
          CHECK(live <= beam);
          if (k + 1 < r.trace.size()) {  // the next step extends exactly this step's live nodes
            std::vector<int> children(nodes.size(), 0);
            for (const auto& n : r.trace[k + 1]) children[std::size_t(n.parent)]++;
            for (std::size_t i = 0; i < nodes.size(); ++i)
              if (nodes[i].ended) CHECK(children[i] == 0);
          }
        }
        for (const auto& h : r.hypotheses) {  // each answer ends a path of the trace
          const std::size_t k = h.tokens.size() - 1;
          REQUIRE(k < r.trace.size());
          bool found = false;
          for (std::size_t i = 0; i < r.trace[k].size(); ++i)
            found = found || (r.trace[k][i].ended && path(k, std::int32_t(i)) == h.tokens &&
                              r.trace[k][i].log_prob == h.log_prob);
          CHECK(found);
        }
      }
    }
  }
  // A trace records a beam: asked of greedy (beam 1), it is refused, naming why.
  const Model m = markov_model(two_answers());
  const Encoded enc = encode(m);
  DecodeOptions o;
  o.trace = true;
  CHECK_THROWS_WITH_AS(decode(m, enc, o), doctest::Contains("beam must be at least 2"), std::invalid_argument);
}

TEST_CASE("beam size 1 is greedy: the reference's argmax chain, under any length penalty") {
  const Model m = markov_model(two_answers());
  const Reference ref(m);
  const Encoded enc = encode(m);
  const int max_len = 6;
  Seq chain;
  auto h = ref.start(kSrc);
  for (std::int32_t prev = kBos; int(chain.size()) < max_len && prev != kEos; prev = chain.back()) {
    const auto l = ref.step(prev, h);
    chain.push_back(std::int32_t(std::max_element(l.begin(), l.end()) - l.begin()));
  }
  CHECK(chain == Seq{kA, kEos});
  for (double alpha : {0.0, 1.0}) {
    CAPTURE(alpha);
    DecodeOptions o;
    o.max_length = max_len;
    o.length_penalty = float(alpha);
    const auto greedy = decode(m, enc, o);  // beam 1 goes to greedy_or_sample
    const auto beam1 = beam_search(m, enc, o);
    REQUIRE(greedy.hypotheses.size() == 1);
    REQUIRE(beam1.hypotheses.size() == 1);
    CHECK(greedy.hypotheses[0].tokens == chain);
    CHECK(beam1.hypotheses[0].tokens == chain);
    CHECK(beam1.hypotheses[0].log_prob == doctest::Approx(greedy.hypotheses[0].log_prob).epsilon(1e-6));
    CHECK(beam1.hypotheses[0].score == doctest::Approx(greedy.hypotheses[0].score).epsilon(1e-6));
    check_hypotheses(m, enc, ref, greedy, alpha, max_len);
    check_hypotheses(m, enc, ref, beam1, alpha, max_len);
  }
  // Greedy misses the alpha = 1 optimum that a beam of 2 finds (previous test), so the two differ here.
  CHECK(run_beam(m, enc, 2, max_len, 1.0).hypotheses[0].tokens != chain);
}

TEST_CASE("beam search stops once beam hypotheses have ended and no live one can overtake them at its length") {
  // After three tokens "A EOS" and "A A EOS" have ended (beam 2). Whether a live hypothesis can still
  // overtake "A A EOS" at length 3 is bounded by the best any three non-EOS tokens can score.
  const double alpha = 1;
  auto best_live_at_3 = [&](const Reference& ref) {
    double best = -INFINITY;
    for (int i = 0; i < kV * kV * kV; ++i) {
      const Seq s = {i % kV, i / kV % kV, i / (kV * kV)};
      if (std::count(s.begin(), s.end(), kEos) == 0) best = std::max(best, ranked(ref.log_prob(kSrc, s), 3, alpha));
    }
    return best;
  };
  const Seq a_eos = {kA, kEos}, a_a_eos = {kA, kA, kEos};

  SUBCASE("no live hypothesis can overtake at its current length: the search ends at length 3") {
    const Model m = markov_model(slow_starter(0.055));
    const Reference ref(m);
    const Encoded enc = encode(m);
    const double worst_ended = ranked(ref.log_prob(kSrc, a_a_eos), 3, alpha);
    REQUIRE(best_live_at_3(ref) < worst_ended - 0.1);
    CHECK(ranked(ref.log_prob(kSrc, Seq(3, kB)), 3, alpha) == doctest::Approx(best_live_at_3(ref)));
    for (int max_len : {4, 8, 20}) {
      CAPTURE(max_len);
      // B B B is live at length 3 (beam 2: it is the best non-EOS prefix); had the search gone on to
      // max_len, B^max_len would have ended it unended and outscored "A A EOS".
      CHECK(ranked(ref.log_prob(kSrc, Seq(max_len, kB)), max_len, alpha) > worst_ended);
      const auto r = run_beam(m, enc, 2, max_len, alpha);
      REQUIRE(r.hypotheses.size() == 2);
      CHECK(r.hypotheses[0].tokens == a_eos);
      CHECK(r.hypotheses[1].tokens == a_a_eos);
      for (const auto& h : r.hypotheses) CHECK(h.finished);
      check_hypotheses(m, enc, ref, r, alpha, max_len);
    }
    // The rule compares at the current length only (README), so it gives up B^20, which would
    // have scored best: the documented price of stopping early.
    const auto opt = viterbi(ref, 20, alpha);
    CHECK(opt.tokens == Seq(20, kB));
    CHECK(opt.score > ranked(ref.log_prob(kSrc, a_eos), 2, alpha));
    // With alpha = 0 log p only falls as a hypothesis grows, so stopping early is exact.
    const auto r0 = run_beam(m, enc, 2, 20, 0.0);
    CHECK(r0.hypotheses[0].tokens == viterbi(ref, 20, 0.0).tokens);
  }

  SUBCASE("a live hypothesis can still overtake at its current length: the search goes on to max_length") {
    const Model m = markov_model(slow_starter(0.15));  // only p(B | BOS) differs
    const Reference ref(m);
    const Encoded enc = encode(m);
    const double worst_ended = ranked(ref.log_prob(kSrc, a_a_eos), 3, alpha);
    REQUIRE(best_live_at_3(ref) > worst_ended + 0.1);
    const int max_len = 20;
    const auto r = run_beam(m, enc, 2, max_len, alpha);
    const auto opt = viterbi(ref, max_len, alpha);
    CHECK(opt.tokens == Seq(max_len, kB));
    CHECK(opt.score - opt.runner_up > 1e-3);
    REQUIRE(r.hypotheses.size() == 2);
    CHECK(r.hypotheses[0].tokens == opt.tokens);
    CHECK_FALSE(r.hypotheses[0].finished);  // it ran to max_length
    CHECK(r.hypotheses[1].tokens == a_eos);
    check_hypotheses(m, enc, ref, r, alpha, max_len);
  }

  SUBCASE("num_hypotheses only truncates the answer: the search still waits for beam ended hypotheses") {
    const Model m = markov_model(slow_starter(0.15));
    const Reference ref(m);
    const Encoded enc = encode(m);
    const auto all = run_beam(m, enc, 2, 20, alpha);
    const auto one = run_beam(m, enc, 2, 20, alpha, 1);
    REQUIRE(one.hypotheses.size() == 1);
    CHECK(one.hypotheses[0].tokens == all.hypotheses[0].tokens);
    CHECK(one.hypotheses[0].score == all.hypotheses[0].score);
    check_hypotheses(m, enc, ref, one, alpha, 20);
  }
}

namespace {

// Logits in quarters: exact in float, and so are logits / T for T = 0.5 and 2.
Table quarter_logits() {
  return {{0, -0.5, -1, 0.5, 0.25, 0, -0.25, 0.75},      {0, 0.5, -0.5, 0.25, 1, -0.25, 0.75, -1},
          {0.5, 0, -1, 0, 0.25, 0.5, -0.5, 0},           {-0.5, 0.25, -1.5, 0, 0.5, 1, 0.75, 0.25},
          {-1, -0.5, -1.5, -0.75, 0.25, 1.25, 0.5, 0},   {-1, -1.25, -1.75, -0.5, 0.75, -0.25, 1.5, 0.25},
          {-0.75, -1, -1.25, -1, 0.5, 0.25, -0.5, 1.25}, {-1.25, -0.75, -0.25, -0.5, 1, 0.5, 0.25, -0.25}};
}

double chi_square(const std::vector<int>& counts, const std::vector<double>& p) {
  double n = 0, x = 0;
  for (int c : counts) n += c;
  for (std::size_t i = 0; i < p.size(); ++i) x += (counts[i] - n * p[i]) * (counts[i] - n * p[i]) / (n * p[i]);
  return x;
}

}  // namespace

TEST_CASE("sampling: seed 10 at T = 0.5 gives the one committed sequence in every build") {
  // README: sampling uses splitmix64. Its published test vector (seed 1234567):
  Rng g(1234567);
  for (std::uint64_t want : {6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
                             4593380528125082431ull, 16408922859458223821ull})
    CHECK(g.next() == want);

  const Model m = markov_model(quarter_logits());
  const Reference ref(m);
  const Encoded enc = encode(m);
  DecodeOptions o;
  o.temperature = 0.5f;
  o.seed = 10;
  o.max_length = 24;
  // Computed outside the engine (splitmix64, a double softmax, the inverse CDF in token order) and
  // recomputed below; native, wasm SIMD and wasm scalar all run this case against it.
  const Seq committed = {kPad, kD, kA, kC, kD, kC, kD, kB, kD, kA, kB, kC, kPad, kD, kEos};
  const auto r = decode(m, enc, o);
  REQUIRE(r.hypotheses.size() == 1);
  CHECK(r.hypotheses[0].tokens == committed);
  CHECK(r.hypotheses[0].log_prob == doctest::Approx(ref.log_prob(kSrc, committed)).epsilon(1e-5));

  // Each token is the inverse-CDF draw of softmax(logits / T) at u = top 24 bits / 2^24 (as
  // src/decode/greedy.cpp maps them), and every u lies far (> 1e-3) from every CDF boundary, so float
  // rounding in any build's softmax cannot change a token.
  Rng u_rng(o.seed);
  auto h = ref.start(kSrc);
  double margin = 1;
  std::int32_t prev = kBos;
  for (std::size_t k = 0; k < committed.size(); ++k) {
    const auto p = softmax(ref.step(prev, h), o.temperature);
    const double u = double(u_rng.next() >> 40) / 16777216.0;
    double acc = 0;
    std::int32_t drawn = -1;
    for (std::int32_t t = 0; t < kV; ++t) {
      acc += p[t];
      margin = std::min(margin, std::abs(u - acc));
      if (drawn < 0 && u < acc) drawn = t;
    }
    CAPTURE(k);
    CHECK(drawn == committed[k]);
    prev = committed[k];
  }
  CHECK(margin > 1e-3);
}

TEST_CASE("sampling follows softmax(logits / T): chi-square fit of 2000 first tokens at T = 0.5 and T = 2") {
  const Model m = markov_model(quarter_logits());
  const Reference ref(m);
  const Encoded enc = encode(m);
  auto h = ref.start(kSrc);
  const auto logits = ref.step(kBos, h);
  // 7 degrees of freedom: a correct sampler exceeds 29.88 with probability 1e-4; the seeds are fixed,
  // so it passes or fails the same way every run.
  const double critical = 29.88;
  const int n = 2000;
  for (double temperature : {0.5, 2.0}) {
    CAPTURE(temperature);
    std::vector<int> counts(kV, 0);
    DecodeOptions o;
    o.temperature = float(temperature);
    o.max_length = 1;
    for (int seed = 0; seed < n; ++seed) {
      o.seed = std::uint64_t(seed);
      ++counts[decode(m, enc, o).hypotheses[0].tokens.at(0)];
    }
    const auto p = softmax(logits, temperature);
    for (double x : p) CHECK(n * x >= 5);  // every expected count large enough for the chi-square
    CHECK(chi_square(counts, p) < critical);
    // A sampler that ignored the temperature (T = 1) would fail by far.
    CHECK(chi_square(counts, softmax(logits, 1.0)) > 3 * critical);
  }
}

// The repetition guard (DecodeOptions::no_repeat_ngram) and the length ratio, on a model that loops:
// after BOS it writes A, after A it writes B, after B it writes A again, and EOS is never likely.
namespace {

Table looping() {
  Table p(kV);
  p[kPad] = filler(1.0), p[kEos] = filler(1.3), p[kUnk] = filler(0.9);
  p[kBos] = {0.01, 0.002, 0.02, 0.006, 0.6, 0.2, 0.1, 0.062};
  p[kA] = {0.01, 0.002, 0.03, 0.006, 0.05, 0.6, 0.2, 0.102};
  p[kB] = {0.01, 0.002, 0.04, 0.006, 0.5, 0.05, 0.25, 0.142};
  p[kC] = {0.01, 0.002, 0.3, 0.006, 0.35, 0.15, 0.08, 0.102};
  p[kD] = {0.01, 0.002, 0.45, 0.006, 0.2, 0.18, 0.1, 0.052};
  return log_of(p);
}

// Whether h followed by t would hold an n-gram twice: the n-gram (h's last n - 1 tokens, t) searched
// for among h's own n-grams, as the definition reads.
bool repeats(const Seq& h, std::int32_t t, int n) {
  if (n < 1 || h.size() + 1 < std::size_t(n)) return false;
  Seq g(h.end() - (n - 1), h.end());
  g.push_back(t);
  for (std::size_t j = 0; j + g.size() <= h.size(); ++j)
    if (std::equal(g.begin(), g.end(), h.begin() + long(j))) return true;
  return false;
}

// Greedy decoding under the guard, from the reference's logits in double.
Seq guarded_greedy(const Reference& ref, int n, int max_len) {
  auto h = ref.start(kSrc);
  Seq out;
  std::int32_t prev = kBos;
  while (int(out.size()) < max_len) {
    auto l = ref.step(prev, h);
    for (std::int32_t t = 0; t < kV; ++t)
      if (t != kEos && repeats(out, t, n)) l[t] = -1e300;
    prev = std::int32_t(std::max_element(l.begin(), l.end()) - l.begin());
    out.push_back(prev);
    if (prev == kEos) break;
  }
  return out;
}

}  // namespace

TEST_CASE(
    "no_repeat_ngram: greedy, sampling, the session and beam search never repeat an n-gram, and log p stays the "
    "model's") {
  const Model m = markov_model(looping());
  const Reference ref(m);
  const Encoded enc = encode(m);
  const int max_len = 14;
  DecodeOptions o;
  o.max_length = max_len;
  // Unguarded, it loops: A B A B ... to max_length.
  const auto loop = decode(m, enc, o).hypotheses[0];
  CHECK(loop.tokens == Seq{kA, kB, kA, kB, kA, kB, kA, kB, kA, kB, kA, kB, kA, kB});
  CHECK_FALSE(loop.finished);
  for (int n : {1, 2, 3, 4}) {
    CAPTURE(n);
    o.no_repeat_ngram = n;
    o.beam = 1;
    const auto g = decode(m, enc, o).hypotheses[0];
    CHECK(g.tokens == guarded_greedy(ref, n, max_len));
    // The guard forbids, it does not renormalise: log p is the model's for the tokens chosen.
    CHECK(g.log_prob == doctest::Approx(ref.log_prob(kSrc, g.tokens)).epsilon(1e-5));
    // The session chooses the same tokens, step by step.
    Session s(m, enc, o);
    while (!s.done()) s.step();
    CHECK(s.tokens() == g.tokens);
    // Sampling draws only allowed tokens; beam search keeps only allowed hypotheses.
    DecodeOptions t = o;
    t.temperature = 1.5f;
    DecodeOptions b = o;
    b.beam = 4;
    std::vector<Seq> outputs;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      t.seed = seed;
      outputs.push_back(decode(m, enc, t).hypotheses[0].tokens);
    }
    const auto beam = decode(m, enc, b);
    for (const auto& h : beam.hypotheses) {
      outputs.push_back(h.tokens);
      CHECK(h.log_prob == doctest::Approx(ref.log_prob(kSrc, h.tokens)).epsilon(1e-5));
    }
    for (const Seq& out : outputs) {
      CAPTURE(out);
      for (std::size_t k = 0; k < out.size(); ++k)
        if (out[k] != kEos) CHECK_FALSE(repeats(Seq(out.begin(), out.begin() + long(k)), out[k], n));
    }
  }
  // A forced prefix is not refused by the guard (it is what the caller asked for), and what follows it is.
  o.no_repeat_ngram = 2;
  o.prefix = {kA, kB, kA, kB};
  const auto forced = decode(m, enc, o).hypotheses[0];
  REQUIRE(forced.tokens.size() > 4);
  CHECK(Seq(forced.tokens.begin(), forced.tokens.begin() + 4) == o.prefix);
  CHECK(forced.tokens[4] != kA);  // "B A" is in the prefix already
}

TEST_CASE("max_length_ratio: at most ceil(ratio x source tokens) tokens before EOS, within max_length") {
  const Model m = markov_model(looping());
  DecodeOptions o;
  CHECK(effective_max_length(o, 7) == 24);  // 2 x 7 + 10
  o.max_length_ratio = 0.5f;
  CHECK(effective_max_length(o, 7) == 5);  // ceil(3.5) = 4 tokens, then EOS
  o.max_length_ratio = 1.f;
  CHECK(effective_max_length(o, 7) == 8);
  o.max_length = 6;
  CHECK(effective_max_length(o, 7) == 6);  // max_length still holds
  o.max_length = 0;
  o.max_length_ratio = 64.f;
  CHECK(effective_max_length(o, 7) == 24);  // the automatic limit still holds
  // The looping model stops there, unfinished.
  Encoded enc;
  const Seq src = {4, 4, 4};
  m.encode(src.data(), int(src.size()), enc);
  for (int beam : {1, 3}) {
    DecodeOptions r;
    r.beam = beam;
    r.max_length_ratio = 1.f;
    const auto h = decode(m, enc, r).hypotheses[0];
    CHECK(h.tokens.size() == 4);
    CHECK_FALSE(h.finished);
  }
}
