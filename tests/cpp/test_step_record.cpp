// The step record (src/decode/step_record.hpp), the one definition of what crosses to JavaScript per
// decoder step: its fields tile the record with no gap or overlap and have the sizes the model and the
// source give, and write_step_record puts in each field exactly what the Session holds (the top-k
// re-derived here from the logits), writing nothing outside the record (ASan build).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "decode/step_record.hpp"
#include "test_util.hpp"

using namespace attnseq;
using L = StepRecordLayout;

namespace {

void check_tiles(const L& lay, const ModelConfig& c, int T) {
  std::size_t end = 0;
  std::set<std::string> names;
  for (int f = 0; f < L::kFieldCount; ++f) {
    CAPTURE(L::name(L::Field(f)));
    CHECK(lay.fields[f].offset == end);  // no gap, no overlap
    end += lay.fields[f].length;
    names.insert(L::name(L::Field(f)));
  }
  CHECK(end == lay.size);
  CHECK(names.size() == std::size_t(L::kFieldCount));
  CHECK(names.count("") == 0);
  for (auto f : {L::Token, L::LogProb, L::Done, L::Forced, L::Index, L::TopkCount}) CHECK(lay[f].length == 1);
  CHECK(lay[L::Query].length == std::size_t(c.dec_hidden));
  CHECK(lay[L::Context].length == std::size_t(c.enc_out()));
  CHECK(lay[L::Scores].length == std::size_t(T));
  CHECK(lay[L::Attention].length == std::size_t(T));
  CHECK(lay[L::Logits].length == std::size_t(c.tgt_vocab));
  CHECK(lay[L::TopkIds].length == std::size_t(kMaxTopk));
  CHECK(lay[L::TopkProbs].length == std::size_t(kMaxTopk));
}

template <class V>
void check_field(const std::vector<float>& rec, const L& lay, L::Field f, const V& want) {
  CAPTURE(L::name(f));
  for (std::size_t i = 0; i < lay[f].length; ++i) {
    CAPTURE(i);
    REQUIRE(rec[lay[f].offset + i] == want[i]);
  }
}

}  // namespace

TEST_CASE("step record: the fields tile the record, sized from the model and the source") {
  for (bool bidir : {false, true})
    for (int T : {1, 3, 40}) {
      auto c = test::small_config(Cell::LSTM, Style::Bahdanau, Score::Additive, bidir);
      CAPTURE(bidir);
      CAPTURE(T);
      check_tiles(step_record_layout(c, T), c, T);
    }
  CHECK(std::string(L::name(L::Token)) == "token");
  CHECK(std::string(L::name(L::TopkProbs)) == "topkProbs");
}

TEST_CASE("step record: every field holds what the session holds after each step") {
  struct Case {
    Cell cell;
    Style style;
    Score score;
    bool bidir;
    int topk;
  };
  for (const Case& k : {Case{Cell::GRU, Style::Luong, Score::Dot, false, 5},
                        Case{Cell::LSTM, Style::Bahdanau, Score::Additive, true, 64},
                        Case{Cell::GRU, Style::None, Score::Dot, false, 0}}) {
    const auto c = test::small_config(k.cell, k.style, k.score, k.bidir);
    CAPTURE(to_string(k.style));
    Model m(c);
    test::randomize(m, 11);
    const std::int32_t src[] = {4, 9, 5, 12, 6};
    Encoded enc;
    m.encode(src, 5, enc);
    DecodeOptions o;
    o.max_length = 6;
    Session s(m, enc, o);
    const L lay = step_record_layout(c, enc.T);
    check_tiles(lay, c, enc.T);
    std::vector<float> rec(lay.size, std::numeric_limits<float>::quiet_NaN());
    std::vector<std::int32_t> idx(kMaxTopk);
    for (int step = 0; step < 4; ++step) {
      CAPTURE(step);
      const float override_row[] = {0.f, 0.f, 1.f, 0.f, 0.f};
      const bool force = step == 1 || s.done();  // a finished session takes only forced tokens
      s.step(force ? 7 : -1, step == 2 && k.style != Style::None ? override_row : nullptr);
      write_step_record(lay, s, k.topk, idx.data(), rec.data());
      const auto& last = s.last();
      const auto& st = s.state();
      CHECK(rec[lay[L::Token].offset] == float(last.token));
      CHECK(rec[lay[L::LogProb].offset] == last.log_prob);
      CHECK(rec[lay[L::Done].offset] == (last.done ? 1.f : 0.f));
      CHECK(rec[lay[L::Forced].offset] == (force ? 1.f : 0.f));
      CHECK(rec[lay[L::Index].offset] == float(step));
      check_field(rec, lay, L::Query, st.query);
      check_field(rec, lay, L::Context, st.context);
      check_field(rec, lay, L::Scores, st.scores);
      check_field(rec, lay, L::Attention, st.attention);
      check_field(rec, lay, L::Logits, st.logits);
      if (step == 2 && k.style != Style::None) CHECK(rec[lay[L::Attention].offset + 2] == 1.f);
      // Top-k: the most probable tokens best first, probabilities from a double-precision softmax.
      const std::size_t V = std::size_t(c.tgt_vocab), n = std::min<std::size_t>(std::size_t(k.topk), V);
      REQUIRE(rec[lay[L::TopkCount].offset] == float(n));
      double mx = -1e300, sum = 0;
      for (std::size_t v = 0; v < V; ++v) mx = std::max(mx, double(st.logits[v]));
      for (std::size_t v = 0; v < V; ++v) sum += std::exp(double(st.logits[v]) - mx);
      std::vector<std::int32_t> order(V);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return st.logits[a] > st.logits[b]; });
      for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i);
        const float id = rec[lay[L::TopkIds].offset + i];
        CHECK(st.logits[std::size_t(id)] == st.logits[std::size_t(order[i])]);  // ties may come in either order
        CHECK(std::abs(rec[lay[L::TopkProbs].offset + i] - std::exp(double(st.logits[std::size_t(id)]) - mx) / sum) <
              1e-6);
      }
      for (std::size_t i = n; i < std::size_t(kMaxTopk); ++i) {  // the unused candidates are left alone
        CHECK(std::isnan(rec[lay[L::TopkIds].offset + i]));
        CHECK(std::isnan(rec[lay[L::TopkProbs].offset + i]));
      }
    }
  }
}
