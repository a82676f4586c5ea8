// Model and decoding invariants on random models of every configuration: attention rows are
// distributions over the real source only; beam 1 equals greedy; a hand-driven step loop reproduces
// decode(); the table and matrix paths agree; step allocates nothing; bad input leaves state intact.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "test_util.hpp"

using namespace attnseq;

namespace {

using test::describe;

std::vector<std::int32_t> source(int n, unsigned seed, int vocab) {
  std::vector<std::int32_t> s(n);
  for (int i = 0; i < n; ++i) s[i] = 4 + int((seed * 7919u + i * 104729u) % unsigned(vocab - 4));
  return s;
}

}  // namespace

TEST_CASE("attention rows are distributions over the source, zero elsewhere") {
  for (const auto& cfg : test::covering_configs()) {
    if (!cfg.has_attention()) continue;
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 11, 1.0f);
    for (int T : {1, 2, 7, 13}) {
      auto src = source(T, T, cfg.src_vocab);
      Encoded enc;
      m.encode(src.data(), T, enc);
      DecodeOptions o;
      o.beam = 3;
      o.max_length = 6;
      const auto r = decode(m, enc, o);
      for (const auto& h : r.hypotheses) {
        REQUIRE(h.attention.size() == h.tokens.size() * std::size_t(T));
        for (std::size_t k = 0; k < h.tokens.size(); ++k) {
          float s = 0;
          for (int t = 0; t < T; ++t) {
            CHECK(h.attention[k * T + t] >= 0.f);
            s += h.attention[k * T + t];
          }
          CHECK(s == doctest::Approx(1.0f).epsilon(1e-5));
        }
      }
    }
  }
}

TEST_CASE("step writes no weight past the source length, even in a larger state") {
  // A state started for a long source keeps its buffers; a shorter source must not read stale columns.
  Model m(test::small_config(Cell::GRU, Style::Luong, Score::Dot));
  test::randomize(m, 3, 1.0f);
  auto lng = source(12, 1, 23), sht = source(4, 2, 23);
  Encoded e1, e2;
  m.encode(lng.data(), 12, e1);
  m.encode(sht.data(), 4, e2);
  DecoderState st;
  m.start(e1, st, 2);
  std::int32_t prev[2] = {1, 1};
  m.step(e1, st, prev, 2);
  m.start(e2, st, 2);
  std::fill(st.attention.begin(), st.attention.end(), 7.f);
  m.step(e2, st, prev, 2);
  for (int b = 0; b < 2; ++b) {
    float s = 0;
    for (int t = 0; t < 4; ++t) s += st.attention[b * 4 + t];
    CHECK(s == doctest::Approx(1.0f).epsilon(1e-5));
  }
  CHECK(st.attention.size() == 2u * 4u);
}

TEST_CASE("beam size 1 equals greedy, beam hypotheses are sorted and distinct") {
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 5, 1.0f);
    auto src = source(6, 9, cfg.src_vocab);
    Encoded enc;
    m.encode(src.data(), 6, enc);
    DecodeOptions g;
    g.max_length = 10;
    const auto greedy = greedy_or_sample(m, enc, g);
    const auto beam1 = beam_search(m, enc, g);
    REQUIRE(beam1.hypotheses.size() == 1);
    CHECK(beam1.hypotheses[0].tokens == greedy.hypotheses[0].tokens);
    CHECK(beam1.hypotheses[0].log_prob == doctest::Approx(greedy.hypotheses[0].log_prob).epsilon(1e-5));
    for (std::size_t i = 0; i < greedy.hypotheses[0].attention.size(); ++i)
      CHECK(beam1.hypotheses[0].attention[i] == doctest::Approx(greedy.hypotheses[0].attention[i]).epsilon(1e-5));
    DecodeOptions b4 = g;
    b4.beam = 4;
    const auto beam = decode(m, enc, b4);
    CHECK(beam.hypotheses.size() >= 1);
    for (std::size_t i = 1; i < beam.hypotheses.size(); ++i) {
      CHECK(beam.hypotheses[i - 1].score >= beam.hypotheses[i].score);
      CHECK(beam.hypotheses[i - 1].tokens != beam.hypotheses[i].tokens);
    }
  }
}

TEST_CASE("beam hypotheses' scores and alignments are reproduced by forcing their tokens") {
  Model m(test::small_config(Cell::LSTM, Style::Bahdanau, Score::Additive, true));
  test::randomize(m, 8, 1.0f);
  auto src = source(5, 4, 23);
  Encoded enc;
  m.encode(src.data(), 5, enc);
  DecodeOptions o;
  o.beam = 5;
  o.max_length = 8;
  const auto r = decode(m, enc, o);
  for (const auto& h : r.hypotheses) {
    DecodeOptions f;
    f.max_length = 8;
    Session s(m, enc, f);
    float lp = 0;
    for (std::size_t k = 0; k < h.tokens.size(); ++k) {
      lp += s.step(h.tokens[k]).log_prob;
      for (int t = 0; t < 5; ++t)
        CHECK(s.state().attention[t] == doctest::Approx(h.attention[k * 5 + t]).epsilon(1e-5));
    }
    CHECK(lp == doctest::Approx(h.log_prob).epsilon(1e-4));
  }
}

TEST_CASE("a hand-driven step loop reproduces decode(), tables and matrices agree") {
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 21, 1.0f);
    auto src = source(9, 3, cfg.src_vocab);
    Encoded enc;
    m.encode(src.data(), 9, enc);
    DecodeOptions o;
    o.max_length = 12;
    const auto r = decode(m, enc, o);
    // By hand: start, step with the argmax of the logits, until EOS.
    DecoderState st;
    m.start(enc, st, 1);
    std::int32_t prev = cfg.bos;
    std::vector<std::int32_t> toks;
    std::vector<float> logits_tab;
    for (int k = 0; k < 12; ++k) {
      m.step(enc, st, &prev, 1);
      logits_tab.insert(logits_tab.end(), st.logits.begin(), st.logits.begin() + cfg.tgt_vocab);
      std::int32_t best = 0;
      for (int v = 1; v < cfg.tgt_vocab; ++v)
        if (st.logits[v] > st.logits[best]) best = v;
      toks.push_back(best);
      prev = best;
      if (best == cfg.eos) break;
    }
    CHECK(toks == r.hypotheses[0].tokens);
    // The plain matrix path gives the same logits.
    m.prepare(false, false);
    CHECK_FALSE(m.uses_token_tables());
    CHECK_FALSE(m.uses_packed_weights());
    Encoded enc2;
    m.encode(src.data(), 9, enc2);
    DecoderState st2;
    m.start(enc2, st2, 1);
    for (std::size_t k = 0; k < toks.size(); ++k) {
      const std::int32_t p = k == 0 ? cfg.bos : toks[k - 1];
      m.step(enc2, st2, &p, 1);
      for (int v = 0; v < cfg.tgt_vocab; ++v)
        CHECK(st2.logits[v] == doctest::Approx(logits_tab[k * cfg.tgt_vocab + v]).epsilon(1e-4));
    }
  }
}

TEST_CASE("step allocates nothing: buffers keep their addresses and capacity") {
  Model m(test::small_config(Cell::GRU, Style::Luong, Score::Additive, false, true));
  test::randomize(m, 2);
  auto src = source(8, 1, 23);
  Encoded enc;
  m.encode(src.data(), 8, enc);
  DecoderState st;
  m.start(enc, st, 4);
  const float* ptrs[] = {st.h.data(), st.logits.data(), st.attention.data(), st.gi.data(), st.attn_scratch.data()};
  std::int32_t prev[4] = {1, 5, 6, 7};
  for (int k = 0; k < 20; ++k) {
    m.step(enc, st, prev, 1 + k % 4);
    std::int32_t parents[4] = {0, 0, 0, 0};
    m.reorder(st, parents, 1 + (k + 1) % 4 > st.B ? st.B : 1 + (k + 1) % 4);
  }
  const float* after[] = {st.h.data(), st.logits.data(), st.attention.data(), st.gi.data(), st.attn_scratch.data()};
  for (int i = 0; i < 5; ++i) CHECK(ptrs[i] == after[i]);
}

TEST_CASE("sampling: same seed same output, temperature near 0 is greedy") {
  Model m(test::small_config(Cell::GRU, Style::Luong, Score::General));
  test::randomize(m, 4, 1.0f);
  auto src = source(5, 8, 23);
  Encoded enc;
  m.encode(src.data(), 5, enc);
  DecodeOptions s;
  s.temperature = 1.5f;
  s.seed = 42;
  s.max_length = 15;
  const auto a = decode(m, enc, s), b = decode(m, enc, s);
  CHECK(a.hypotheses[0].tokens == b.hypotheses[0].tokens);
  bool differs = false;
  for (std::uint64_t seed = 1; seed < 20 && !differs; ++seed) {
    s.seed = seed;
    differs = decode(m, enc, s).hypotheses[0].tokens != a.hypotheses[0].tokens;
  }
  CHECK(differs);
  s.temperature = 1e-4f;
  DecodeOptions g;
  g.max_length = 15;
  CHECK(decode(m, enc, s).hypotheses[0].tokens == decode(m, enc, g).hypotheses[0].tokens);
}

TEST_CASE("a forced prefix is kept, in greedy and beam alike") {
  Model m(test::small_config(Cell::GRU, Style::Luong, Score::Dot));
  test::randomize(m, 6, 1.0f);
  auto src = source(4, 2, 23);
  Encoded enc;
  m.encode(src.data(), 4, enc);
  for (int beam : {1, 3}) {
    DecodeOptions o;
    o.beam = beam;
    o.prefix = {7, 8, 9};
    o.max_length = 10;
    const auto r = decode(m, enc, o);
    for (const auto& h : r.hypotheses) {
      REQUIRE(h.tokens.size() >= 3);
      CHECK(h.tokens[0] == 7);
      CHECK(h.tokens[1] == 8);
      CHECK(h.tokens[2] == 9);
    }
  }
}

TEST_CASE("save then load gives bit-identical outputs") {
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 77, 1.0f);
    const auto bytes = save_checkpoint(m);
    Model m2 = load_checkpoint(bytes.data(), bytes.size());
    CHECK(m2.params().data == m.params().data);
    auto src = source(7, 5, cfg.src_vocab);
    Encoded e1, e2;
    m.encode(src.data(), 7, e1);
    m2.encode(src.data(), 7, e2);
    DecodeOptions o;
    o.beam = 2;
    o.max_length = 6;
    const auto r1 = decode(m, e1, o), r2 = decode(m2, e2, o);
    REQUIRE(r1.hypotheses.size() == r2.hypotheses.size());
    for (std::size_t i = 0; i < r1.hypotheses.size(); ++i) {
      CHECK(r1.hypotheses[i].tokens == r2.hypotheses[i].tokens);
      CHECK(std::memcmp(r1.hypotheses[i].attention.data(), r2.hypotheses[i].attention.data(),
                        r1.hypotheses[i].attention.size() * sizeof(float)) == 0);
      CHECK(r1.hypotheses[i].score == r2.hypotheses[i].score);
    }
  }
}

TEST_CASE("bad input is refused with a clear error and the engine stays usable") {
  Model m(test::small_config(Cell::GRU, Style::Luong, Score::Dot));
  test::randomize(m, 1, 1.0f);
  Encoded enc;
  std::vector<std::int32_t> good = source(5, 1, 23);
  CHECK_THROWS_WITH_AS(m.encode(good.data(), 0, enc), doctest::Contains("empty"), std::invalid_argument);
  std::vector<std::int32_t> bad = {4, 5, 99};
  CHECK_THROWS_WITH_AS(m.encode(bad.data(), 3, enc), doctest::Contains("id 99"), std::invalid_argument);
  bad = {4, -1};
  CHECK_THROWS_WITH_AS(m.encode(bad.data(), 2, enc), doctest::Contains("id -1"), std::invalid_argument);
  std::vector<std::int32_t> lng(kMaxSourceLength + 1, 4);
  CHECK_THROWS_WITH_AS(m.encode(lng.data(), int(lng.size()), enc), doctest::Contains("maximum is 1024"),
                       std::invalid_argument);
  m.encode(good.data(), 5, enc);
  DecodeOptions o;
  o.beam = 0;
  CHECK_THROWS_WITH_AS(decode(m, enc, o), doctest::Contains("beam is 0"), std::invalid_argument);
  o.beam = 65;
  CHECK_THROWS_AS(decode(m, enc, o), std::invalid_argument);
  o = DecodeOptions{};
  o.max_length = 5000;
  CHECK_THROWS_WITH_AS(decode(m, enc, o), doctest::Contains("max_length is 5000"), std::invalid_argument);
  o = DecodeOptions{};
  o.temperature = NAN;
  CHECK_THROWS_WITH_AS(decode(m, enc, o), doctest::Contains("temperature"), std::invalid_argument);
  o = DecodeOptions{};
  o.prefix = {4, 400};
  CHECK_THROWS_WITH_AS(decode(m, enc, o), doctest::Contains("id 400"), std::invalid_argument);
  o = DecodeOptions{};
  o.temperature = 1.f;
  o.beam = 2;
  CHECK_THROWS_WITH_AS(decode(m, enc, o), doctest::Contains("beam 1"), std::invalid_argument);

  // A session: a step after EOS without a forced token is refused; a bad override changes nothing.
  DecodeOptions so;
  so.max_length = 3;
  Session s(m, enc, so);
  std::vector<float> ov(5, 0.f);
  CHECK_THROWS_WITH_AS(s.step(-1, ov.data()), doctest::Contains("sums to 0"), std::invalid_argument);
  ov[2] = NAN;
  CHECK_THROWS_WITH_AS(s.step(-1, ov.data()), doctest::Contains("finite"), std::invalid_argument);
  CHECK(s.length() == 0);
  CHECK_THROWS_WITH_AS(s.step(19), doctest::Contains("outside the target vocabulary"), std::invalid_argument);
  s.step(m.config().eos);
  CHECK(s.done());
  CHECK_THROWS_WITH_AS(s.step(), doctest::Contains("force a token"), std::invalid_argument);
  s.step(5);  // forcing continues
  CHECK(s.length() == 2);
  // The engine still answers correctly after all of that.
  DecodeOptions ok;
  ok.max_length = 6;
  const auto r1 = decode(m, enc, ok);
  Encoded fresh;
  m.encode(good.data(), 5, fresh);
  const auto r2 = decode(m, fresh, ok);
  CHECK(r1.hypotheses[0].tokens == r2.hypotheses[0].tokens);
}

TEST_CASE("an attention override changes the context to the chosen source position") {
  Model m(test::small_config(Cell::GRU, Style::Luong, Score::Dot));
  test::randomize(m, 12, 1.0f);
  auto src = source(6, 3, 23);
  Encoded enc;
  m.encode(src.data(), 6, enc);
  DecodeOptions o;
  Session s(m, enc, o);
  std::vector<float> ov(6, 0.f);
  ov[4] = 2.f;  // renormalised to 1
  s.step(-1, ov.data());
  CHECK(s.state().attention[4] == 1.f);
  const std::size_t Ho = m.config().enc_out();
  for (std::size_t i = 0; i < Ho; ++i) CHECK(s.state().context[i] == doctest::Approx(enc.memory[4 * Ho + i]));
}

TEST_CASE("an encoding is decoded only by the model that made it") {
  // A wider model's memory read with this model's stride would run past the end of the buffer.
  Model small(test::small_config(Cell::GRU, Style::Luong, Score::Dot));
  ModelConfig wide_cfg = test::small_config(Cell::GRU, Style::Luong, Score::General, true);
  wide_cfg.enc_hidden = 24;
  wide_cfg.dec_hidden = 48;
  Model wide(wide_cfg);
  Model twin(test::small_config(Cell::GRU, Style::Luong, Score::Dot));  // same shapes: still another model
  test::randomize(small, 3, 1.0f);
  test::randomize(wide, 4, 1.0f);
  test::randomize(twin, 3, 1.0f);
  const auto src = source(6, 2, 23);
  Encoded e_small, e_wide;
  small.encode(src.data(), 6, e_small);
  wide.encode(src.data(), 6, e_wide);
  DecoderState st;
  CHECK_THROWS_WITH_AS(small.start(e_wide, st, 1), doctest::Contains("encoded by another model"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(wide.start(e_small, st, 1), doctest::Contains("encoded by another model"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(twin.start(e_small, st, 1), doctest::Contains("encoded by another model"),
                       std::invalid_argument);
  CHECK_THROWS_AS(decode(wide, e_small, DecodeOptions{}), std::invalid_argument);
  DecodeOptions beam;
  beam.beam = 3;
  CHECK_THROWS_AS(decode(small, e_wide, beam), std::invalid_argument);
  CHECK_THROWS_AS(Session(small, e_wide, DecodeOptions{}), std::invalid_argument);
  // A state started on the right model cannot be stepped with another model's encoding either.
  small.start(e_small, st, 1);
  const std::int32_t bos = small.config().bos;
  CHECK_THROWS_WITH_AS(small.step(e_wide, st, &bos, 1), doctest::Contains("encoded by another model"),
                       std::invalid_argument);
  // The models keep working, and a moved model keeps its identity.
  small.step(e_small, st, &bos, 1);
  Model moved = std::move(small);
  CHECK(decode(moved, e_small, DecodeOptions{}).hypotheses.size() == 1);
  CHECK(decode(wide, e_wide, DecodeOptions{}).hypotheses.size() == 1);
}

// The tensor table binds every tensor once: each spec's address is one field of Tensors (the tied
// output layer's is the embedding's), no field is left pointing elsewhere, and the addresses are the
// ones the names look up. A tensor added to param_specs without a binding fails here.
TEST_CASE("the tensor table binds each tensor to exactly one field, by name") {
  auto configs = test::covering_configs();
  configs.push_back(test::small_config(Cell::GRU, Style::Luong, Score::General, false, true, 2, true));
  configs.back().tgt_emb = configs.back().dec_hidden;
  configs.back().tie_embeddings = true;
  for (const auto& cfg : configs) {
    CAPTURE(describe(cfg));
    const Model m(cfg);
    const auto& p = m.params();
    const auto t = bind_tensors<const float*>(cfg, p.specs, p.offsets, p.data.data());
    std::vector<const float*> bound = {
        t.enc_emb, t.dec_emb, t.bridge,  t.bridge_bias,  t.att_general, t.att_query, t.att_query_bias,
        t.att_key, t.att_v,   t.combine, t.combine_bias, t.out,         t.out_bias};
    for (const auto* rnns : {&t.enc_rnn, &t.dec_rnn})
      for (const auto& r : *rnns) bound.insert(bound.end(), {r.w_ih, r.w_hh, r.b_ih, r.b_hh});
    CHECK(t.enc_rnn.size() == std::size_t(cfg.layers * (cfg.bidirectional ? 2 : 1)));
    CHECK(t.dec_rnn.size() == std::size_t(cfg.layers));
    for (const auto& s : p.specs) {
      CAPTURE(s.name);
      const float* at = p.find(s.name);
      const long n = long(std::count(bound.begin(), bound.end(), at));
      CHECK(n == (cfg.tie_embeddings && s.name == names::kDecEmb ? 2 : 1));
    }
    std::size_t nonnull = 0;
    for (const float* b : bound) nonnull += b != nullptr;
    CHECK(nonnull == p.specs.size() + (cfg.tie_embeddings ? 1 : 0));
    CHECK(t.out == (cfg.tie_embeddings ? t.dec_emb : p.find(names::kOut)));
  }
}
