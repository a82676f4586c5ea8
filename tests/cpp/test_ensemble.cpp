// Ensembles (decode.hpp, Ensemble): N models decoding together rank tokens by their mean
// log-probability at every step, for greedy, sampling and beam search, and show the members' mean
// attention beside each member's own. An ensemble of one is its model, bit for bit; members that do
// not share vocabularies are refused, named.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "decode/step_record.hpp"
#include "test_util.hpp"

using namespace attnseq;

namespace {

using decode_checks::check_same;
using decode_checks::sources;

std::vector<DecodeOptions> option_sets() {
  std::vector<DecodeOptions> v(5);
  v[1].beam = 4;
  v[2].beam = 3, v[2].length_penalty = 0.6f, v[2].num_hypotheses = 2;
  v[3].temperature = 0.8f, v[3].seed = 11;
  v[4].prefix = {5, 6};
  return v;
}

// Greedy decoding of the ensemble written out by hand from each model's own single-row steps: the mean
// of the members' log-softmax, its argmax, and the mean attention.
struct ByHand {
  std::vector<std::int32_t> tokens;
  float log_prob = 0.f;
  std::vector<float> attention;
  std::vector<std::vector<float>> member_attention;
};

ByHand greedy_by_hand(const std::vector<const Model*>& ms, const std::vector<std::int32_t>& src, int max_len) {
  const std::size_t M = ms.size(), V = std::size_t(ms[0]->config().tgt_vocab), T = src.size();
  std::vector<Encoded> enc(M);
  std::vector<DecoderState> st(M);
  for (std::size_t m = 0; m < M; ++m) {
    ms[m]->encode(src.data(), int(T), enc[m]);
    ms[m]->start(enc[m], st[m], 1);
  }
  ByHand r;
  r.member_attention.resize(M);
  std::int32_t prev = ms[0]->config().bos;
  for (int k = 0; k < max_len; ++k) {
    std::vector<float> mean(V, 0.f), att(T, 0.f);
    for (std::size_t m = 0; m < M; ++m) {
      ms[m]->step(enc[m], st[m], &prev, 1);
      const float lse = checked_logsumexp(st[m].logits.data(), V, std::size_t(k));
      for (std::size_t v = 0; v < V; ++v) mean[v] += st[m].logits[v] - lse;
      for (std::size_t t = 0; t < T; ++t) att[t] += st[m].attention[t];
      r.member_attention[m].insert(r.member_attention[m].end(), st[m].attention.begin(), st[m].attention.begin() + T);
    }
    for (auto& x : mean) x *= 1.f / float(M);
    for (auto& x : att) x *= 1.f / float(M);
    std::size_t best = 0;
    for (std::size_t v = 1; v < V; ++v)
      if (mean[v] > mean[best]) best = v;
    r.tokens.push_back(std::int32_t(best));
    r.log_prob += mean[best];
    r.attention.insert(r.attention.end(), att.begin(), att.end());
    prev = std::int32_t(best);
    if (prev == ms[0]->config().eos) break;
  }
  return r;
}

// The ensemble's log-probability of a given token sequence, step by step by hand.
float forced_log_prob(const std::vector<const Model*>& ms, const std::vector<std::int32_t>& src,
                      const std::vector<std::int32_t>& tokens) {
  const std::size_t M = ms.size(), V = std::size_t(ms[0]->config().tgt_vocab);
  std::vector<Encoded> enc(M);
  std::vector<DecoderState> st(M);
  for (std::size_t m = 0; m < M; ++m) {
    ms[m]->encode(src.data(), int(src.size()), enc[m]);
    ms[m]->start(enc[m], st[m], 1);
  }
  std::int32_t prev = ms[0]->config().bos;
  float lp = 0.f;
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    float s = 0.f;
    for (std::size_t m = 0; m < M; ++m) {
      ms[m]->step(enc[m], st[m], &prev, 1);
      s += st[m].logits[tokens[k]] - checked_logsumexp(st[m].logits.data(), V, k);
    }
    lp += s * (1.f / float(M));
    prev = tokens[k];
  }
  return lp;
}

}  // namespace

TEST_CASE("an ensemble of one decodes as its model does, bit for bit, on every configuration") {
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(test::describe(cfg));
    Model m(cfg);
    test::randomize(m, 3, 1.0f);
    const Ensemble one(std::vector<const Model*>{&m});
    const auto src = sources(6, cfg.src_vocab);
    for (const auto& o : option_sets()) {
      CAPTURE(o.beam);
      CAPTURE(o.temperature);
      const auto single = translate_batch(m, src, o), ens = translate_batch(one, src, o);
      for (std::size_t i = 0; i < src.size(); ++i) {
        CAPTURE(i);
        check_same(single[i], ens[i]);
        for (const auto& h : ens[i].hypotheses) CHECK(h.member_attention.empty());
      }
    }
  }
}

TEST_CASE("an ensemble of different models: greedy is the argmax of the members' mean log-probability") {
  // Members differ in everything but the vocabularies: cell, style, score, sizes, int8.
  auto a_cfg = test::small_config(Cell::GRU, Style::Luong, Score::General, true, true);
  auto b_cfg = test::small_config(Cell::LSTM, Style::Bahdanau, Score::Additive, false, false, 2, true);
  b_cfg.dec_hidden = 12, b_cfg.tgt_emb = 5;
  auto c_cfg = test::small_config(Cell::GRU, Style::Luong, Score::Dot);
  Model a(a_cfg), b(b_cfg), c(c_cfg);
  test::randomize(a, 21, 1.0f);
  test::randomize(b, 22, 1.0f);
  test::randomize(c, 23, 1.0f);
  c.quantize();
  const std::vector<const Model*> ms = {&a, &b, &c};
  const Ensemble e(ms);
  const auto src = sources(7, a_cfg.src_vocab);
  DecodeOptions o;
  const auto got = translate_batch(e, src, o);
  int differs_from_a = 0;
  const auto alone_a = translate_batch(a, src, o);
  for (std::size_t i = 0; i < src.size(); ++i) {
    CAPTURE(i);
    const auto& h = got[i].hypotheses[0];
    const ByHand want = greedy_by_hand(ms, src[i], effective_max_length(o, int(src[i].size())));
    CHECK(h.tokens == want.tokens);
    CHECK(h.log_prob == want.log_prob);
    CHECK(h.attention == want.attention);
    REQUIRE(h.member_attention.size() == 3);
    for (int m = 0; m < 3; ++m) CHECK(h.member_attention[m] == want.member_attention[m]);
    // The mean attention of each step is a distribution over the source.
    const std::size_t T = src[i].size();
    for (std::size_t k = 0; k < h.tokens.size(); ++k) {
      float sum = 0.f;
      for (std::size_t t = 0; t < T; ++t) sum += h.attention[k * T + t];
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
    differs_from_a += alone_a[i].hypotheses[0].tokens != h.tokens;
  }
  CHECK(differs_from_a > 0);  // the other members changed something: the test is not of member a alone
}

TEST_CASE("ensemble beam search: every hypothesis's log-probability is the members' mean, summed over its tokens") {
  auto a_cfg = test::small_config(Cell::GRU, Style::Luong, Score::General, true, true);
  auto b_cfg = test::small_config(Cell::LSTM, Style::Luong, Score::Dot);
  Model a(a_cfg), b(b_cfg);
  test::randomize(a, 31, 1.0f);
  test::randomize(b, 32, 1.0f);
  const std::vector<const Model*> ms = {&a, &b};
  const Ensemble e(ms);
  const auto src = sources(6, a_cfg.src_vocab);
  DecodeOptions o;
  o.beam = 4;
  o.length_penalty = 0.8f;
  const auto got = translate_batch(e, src, o);
  for (std::size_t i = 0; i < src.size(); ++i) {
    CAPTURE(i);
    REQUIRE(!got[i].hypotheses.empty());
    float prev_score = INFINITY;
    for (const auto& h : got[i].hypotheses) {
      CHECK(h.log_prob == doctest::Approx(forced_log_prob(ms, src[i], h.tokens)).epsilon(1e-5));
      CHECK(h.score <= prev_score);  // best first
      prev_score = h.score;
      CHECK(h.member_attention.size() == 2);
      CHECK(h.attention.size() == h.tokens.size() * src[i].size());
    }
    // At beam 1 the search is a beam of one; it finds the greedy output.
    DecodeOptions b1 = o;
    b1.beam = 1;
    const auto g = translate_batch(e, {src[i]}, b1);
    std::vector<Encoded> enc(2);
    a.encode(src[i].data(), int(src[i].size()), enc[0]);
    b.encode(src[i].data(), int(src[i].size()), enc[1]);
    const Encoded* encs[2] = {&enc[0], &enc[1]};
    const auto bs = beam_search(e, encs, 1, b1);
    CHECK(bs[0].hypotheses[0].tokens == g[0].hypotheses[0].tokens);
  }
}

TEST_CASE("an ensemble's batch gives each source what it gets alone, for any group size and thread count") {
  auto a_cfg = test::small_config(Cell::GRU, Style::Bahdanau, Score::Additive, true);
  auto b_cfg = test::small_config(Cell::GRU, Style::Luong, Score::General, false, true);
  Model a(a_cfg), b(b_cfg);
  test::randomize(a, 41, 1.0f);
  test::randomize(b, 42, 1.0f);
  const Ensemble e(std::vector<const Model*>{&a, &b});
  const auto src = sources(9, a_cfg.src_vocab);
  for (const auto& o : option_sets()) {
    CAPTURE(o.beam);
    std::vector<DecodeResult> each;
    for (const auto& s : src) each.push_back(translate_batch(e, {s}, o)[0]);
    for (int rows : {1, 5, 256})
      for (int threads : {1, 2}) {
        CAPTURE(rows);
        CAPTURE(threads);
        const auto all = translate_batch(e, src, o, rows, threads);
        for (std::size_t i = 0; i < src.size(); ++i) check_same(all[i], each[i]);
      }
  }
}

TEST_CASE("an ensemble of a model with itself ranks as the model does") {
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(test::describe(cfg));
    Model m(cfg);
    test::randomize(m, 7, 1.0f);
    const Ensemble twice(std::vector<const Model*>{&m, &m});
    const auto src = sources(5, cfg.src_vocab);
    for (int beam : {1, 3}) {
      DecodeOptions o;
      o.beam = beam;
      CAPTURE(beam);
      const auto single = translate_batch(m, src, o), ens = translate_batch(twice, src, o);
      for (std::size_t i = 0; i < src.size(); ++i) {
        REQUIRE(single[i].hypotheses.size() == ens[i].hypotheses.size());
        for (std::size_t h = 0; h < single[i].hypotheses.size(); ++h) {
          CHECK(single[i].hypotheses[h].tokens == ens[i].hypotheses[h].tokens);
          CHECK(single[i].hypotheses[h].log_prob == doctest::Approx(ens[i].hypotheses[h].log_prob).epsilon(1e-5));
          CHECK(single[i].hypotheses[h].attention == ens[i].hypotheses[h].attention);  // (w + w) / 2 = w
        }
      }
    }
  }
}

TEST_CASE("an ensemble refuses members that do not share vocabularies, naming the one that differs") {
  const auto cfg = test::small_config(Cell::GRU, Style::Luong, Score::Dot);
  Model a(cfg), b(cfg);
  auto other_cfg = cfg;
  other_cfg.tgt_vocab = 20;
  Model other(other_cfg);
  CHECK(test::error_of([&] {
          Ensemble(std::vector<const Model*>{&a, &b, &other}, {"a.st", "b.st", "c.st"});
        }) == "ensemble: c.st does not share a.st's vocabularies: its target vocabulary has 20 tokens, not 19");
  auto eos_cfg = cfg;
  eos_cfg.eos = 3, eos_cfg.unk = 2;
  Model eos(eos_cfg);
  CHECK(test::error_of([&] {
          Ensemble(std::vector<const Model*>{&a, &eos});
        }) ==
        "ensemble: model 2 does not share model 1's vocabularies: its special ids pad/bos/eos/unk are 0/1/3/2, not "
        "0/1/2/3");
  // Text vocabularies: the same sizes, one token different.
  auto text = cfg;
  text.set_tokenizer(TokenizerKind::Char);
  for (int i = 0; i < text.src_vocab; ++i) text.src_tokens.push_back("s" + std::to_string(i));
  for (int i = 0; i < text.tgt_vocab; ++i) text.tgt_tokens.push_back("t" + std::to_string(i));
  auto text2 = text;
  text2.tgt_tokens[7] = "x";
  auto folded = text;
  folded.src_case = CaseFold::Lower;
  Model t1(text), t2(text2), t3(folded);
  CHECK(test::error_of([&] {
          Ensemble(std::vector<const Model*>{&t1, &t2});
        }) == "ensemble: model 2 does not share model 1's vocabularies: its target token 7 is 'x', not 't7'");
  auto jamo = text;
  jamo.src_jamo = true;
  Model t4(jamo);
  CHECK(test::error_of([&] {
          Ensemble(std::vector<const Model*>{&t1, &t4});
        }) ==
        "ensemble: model 2 does not share model 1's vocabularies: its source reads Hangul as jamo, not syllables");
  CHECK(test::error_of([&] {
          Ensemble(std::vector<const Model*>{&t1, &t3});
        }) == "ensemble: model 2 does not share model 1's vocabularies: its source folding is 'lower', not 'keep'");
  CHECK(test::error_of([&] {
          Ensemble(std::vector<const Model*>{&t1, &a});
        }).find("does not share") != std::string::npos);
  CHECK(test::error_of([&] { Ensemble(std::vector<const Model*>{}); }) == "an ensemble needs at least one model");
  CHECK(test::error_of([&] { Ensemble(std::vector<const Model*>(17, &a)); }) == "an ensemble of 17 models; at most 16");
  CHECK(test::error_of([&] {
          Ensemble(std::vector<const Model*>{&a, &b}, {"only one"});
        }) == "an ensemble of 2 models was given 1 names");
  // A refused ensemble leaves its models usable.
  test::randomize(a, 1);
  CHECK(translate_batch(a, {{5, 6, 7}}, DecodeOptions{})[0].hypotheses.size() == 1);
}

namespace {

// Steps a Session to its end (or max steps), recording each step's record.
struct Stepped {
  std::vector<Session::Step> steps;
  std::vector<std::vector<float>> records;                   // write_step_record of each step
  std::vector<std::vector<std::vector<float>>> member_rows;  // [step][member]: the member's weights
};

Stepped step_through(Session& s, const StepRecordLayout& L, const std::vector<std::int32_t>& forced = {}) {
  Stepped out;
  std::vector<std::int32_t> idx(kMaxTopk);
  for (std::size_t k = 0; !s.done(); ++k) {
    out.steps.push_back(s.step(k < forced.size() ? forced[k] : -1));
    out.records.emplace_back(L.size, -7.f);
    write_step_record(L, s, 5, idx.data(), out.records.back().data());
    out.member_rows.emplace_back();
    for (int m = 0; m < s.members(); ++m) out.member_rows.back().push_back(s.member_state(m).attention);
  }
  return out;
}

}  // namespace

TEST_CASE("a step-by-step Session of an ensemble of one is the model's Session, bit for bit, step records included") {
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(test::describe(cfg));
    Model m(cfg);
    test::randomize(m, 5, 1.0f);
    for (const auto& src : sources(3, cfg.src_vocab)) {
      Encoded enc;
      m.encode(src.data(), int(src.size()), enc);
      const StepRecordLayout L = step_record_layout(cfg, enc.T);
      for (auto o : option_sets()) {
        if (o.beam != 1) continue;
        CAPTURE(o.temperature);
        Session single(m, enc, o), one(Ensemble(m), {&enc}, o);
        const Stepped a = step_through(single, L), b = step_through(one, L);
        REQUIRE(a.steps.size() == b.steps.size());
        for (std::size_t k = 0; k < a.steps.size(); ++k) {
          CHECK(a.steps[k].token == b.steps[k].token);
          CHECK(a.steps[k].log_prob == b.steps[k].log_prob);
          CHECK(a.steps[k].forced == b.steps[k].forced);
          CHECK(a.records[k] == b.records[k]);
        }
        CHECK(one.members() == 1);
      }
    }
  }
}

TEST_CASE(
    "a step-by-step Session of an ensemble decodes as greedy_or_sample does, and each member's state is its own") {
  auto a_cfg = test::small_config(Cell::GRU, Style::Luong, Score::General, true, true);
  auto b_cfg = test::small_config(Cell::LSTM, Style::Bahdanau, Score::Additive, false, false, 2, true);
  b_cfg.dec_hidden = 12, b_cfg.tgt_emb = 5;
  Model a(a_cfg), b(b_cfg);
  test::randomize(a, 51, 1.0f);
  test::randomize(b, 52, 1.0f);
  const Ensemble e(std::vector<const Model*>{&a, &b});
  for (const auto& src : sources(6, a_cfg.src_vocab)) {
    CAPTURE(src.size());
    std::vector<Encoded> enc(2);
    a.encode(src.data(), int(src.size()), enc[0]);
    b.encode(src.data(), int(src.size()), enc[1]);
    const StepRecordLayout L = step_record_layout(e.config(), enc[0].T, false);
    CHECK(L[StepRecordLayout::Query].length == 0);
    for (auto o : option_sets()) {
      if (o.beam != 1) continue;
      CAPTURE(o.temperature);
      const Encoded* encs[2] = {&enc[0], &enc[1]};
      const auto want = greedy_or_sample(e, encs, 1, o)[0].hypotheses[0];
      Session s(e, {&enc[0], &enc[1]}, o);
      CHECK(s.members() == 2);
      const Stepped got = step_through(s, L);
      REQUIRE(got.steps.size() == want.tokens.size());
      float log_prob = 0.f;
      const std::size_t T = src.size();
      for (std::size_t k = 0; k < got.steps.size(); ++k) {
        CAPTURE(k);
        CHECK(got.steps[k].token == want.tokens[k]);
        log_prob += got.steps[k].log_prob;
        const auto& rec = got.records[k];
        // The record's attention is the mean; each member's state holds its own row.
        const float* att = rec.data() + L[StepRecordLayout::Attention].offset;
        CHECK(std::vector<float>(att, att + T) ==
              std::vector<float>(want.attention.begin() + long(k * T), want.attention.begin() + long((k + 1) * T)));
        for (int m = 0; m < 2; ++m)
          CHECK(got.member_rows[k][m] == std::vector<float>(want.member_attention[m].begin() + long(k * T),
                                                            want.member_attention[m].begin() + long((k + 1) * T)));
        // The top-k probabilities come from the mean log-probabilities: they sum to at most 1, the best first.
        const float* p = rec.data() + L[StepRecordLayout::TopkProbs].offset;
        const int n = int(rec[L[StepRecordLayout::TopkCount].offset]);
        CHECK(n == 5);
        float sum = 0.f;
        for (int i = 0; i < n; ++i) {
          sum += p[i];
          CHECK((i == 0 || p[i] <= p[i - 1]));
        }
        CHECK(sum <= 1.f + 1e-5f);
        if (!got.steps[k].forced && o.temperature == 0.f)
          CHECK(rec[L[StepRecordLayout::TopkIds].offset] == float(got.steps[k].token));
      }
      CHECK(log_prob == doctest::Approx(want.log_prob).epsilon(1e-6));
      // Member records: each in its own model's layout, its own query.
      const StepRecordLayout Lb = step_record_layout(b_cfg, enc[1].T);
      std::vector<float> rb(Lb.size, 0.f);
      write_member_record(Lb, s, 1, rb.data());
      const auto& q = s.member_state(1).query;
      CHECK(std::vector<float>(rb.begin() + long(Lb[StepRecordLayout::Query].offset),
                               rb.begin() + long(Lb[StepRecordLayout::Query].offset + q.size())) == q);
    }
  }
}

TEST_CASE("an ensemble Session's attention override (a what-if): every member attends with the row") {
  auto cfg = test::small_config(Cell::GRU, Style::Luong, Score::General);
  Model a(cfg), b(cfg);
  test::randomize(a, 71, 1.0f);
  test::randomize(b, 72, 1.0f);
  const Ensemble e(std::vector<const Model*>{&a, &b});
  const std::vector<std::int32_t> src = {5, 6, 7, 8};
  std::vector<Encoded> enc(2);
  a.encode(src.data(), 4, enc[0]);
  b.encode(src.data(), 4, enc[1]);
  const std::vector<float> row = {0.f, 0.f, 1.f, 0.f};
  // Each member, alone, with the same override at step 2 (and the ensemble's tokens fed in).
  Session both(e, {&enc[0], &enc[1]}, DecodeOptions{});
  Session sa(a, enc[0], DecodeOptions{}), sb(b, enc[1], DecodeOptions{});
  for (int k = 0; k < 4; ++k) {
    CAPTURE(k);
    const float* o = k == 2 ? row.data() : nullptr;
    const std::int32_t t = both.step(-1, o).token;
    sa.step(t, o);
    sb.step(t, o);
    CHECK(both.member_state(0).attention == sa.state().attention);  // bit for bit
    CHECK(both.member_state(1).attention == sb.state().attention);
    CHECK(both.member_state(0).logits == sa.state().logits);
    CHECK(both.member_state(1).logits == sb.state().logits);
    if (k == 2)
      for (int i = 0; i < 4; ++i) CHECK(both.attention()[i] == row[std::size_t(i)]);  // the mean shown is the row
  }
  CHECK(sa.state().attention != std::vector<float>(sa.state().attention.size(), 0.f));
  // An ensemble of one with an override is its model's Session with it, bit for bit.
  const Ensemble one(std::vector<const Model*>{&a});
  Session s1(one, {&enc[0]}, DecodeOptions{}), s0(a, enc[0], DecodeOptions{});
  CHECK(s1.step(-1, row.data()).token == s0.step(-1, row.data()).token);
  CHECK(s1.member_state(0).logits == s0.state().logits);
}

TEST_CASE("an ensemble Session: forced tokens, and what it refuses") {
  auto cfg = test::small_config(Cell::GRU, Style::Luong, Score::Dot);
  Model a(cfg), b(cfg);
  test::randomize(a, 61, 1.0f);
  test::randomize(b, 62, 1.0f);
  const Ensemble e(std::vector<const Model*>{&a, &b});
  const std::vector<std::int32_t> src = {5, 6, 7};
  std::vector<Encoded> enc(2);
  a.encode(src.data(), 3, enc[0]);
  b.encode(src.data(), 3, enc[1]);
  Session s(e, {&enc[0], &enc[1]}, DecodeOptions{});
  const std::vector<float> bad = {1.f, -1.f, 0.f};
  CHECK(test::error_of([&] { s.step(-1, bad.data()); }) ==
        "step: attention override weight 1 is -1; weights must be finite and >= 0");
  CHECK(s.length() == 0);  // refused before any member changed
  const auto& st = s.step(9);
  CHECK(st.token == 9);
  CHECK(st.forced);
  CHECK(test::error_of([&] { Session(e, {&enc[0]}, DecodeOptions{}); }) ==
        "an ensemble of 2 models was given 1 encodings of the source");
  Encoded shorter;
  b.encode(src.data(), 2, shorter);
  CHECK(test::error_of([&] {
          Session(e, {&enc[0], &shorter}, DecodeOptions{});
        }) == "model 2 encoded the source as 2 tokens, model 1 as 3");
  DecodeOptions beam;
  beam.beam = 2;
  CHECK(test::error_of([&] {
          Session(e, {&enc[0], &enc[1]}, beam);
        }) == "a step-by-step session decodes one hypothesis (beam must be 1)");
}
