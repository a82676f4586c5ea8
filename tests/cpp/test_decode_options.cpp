// The decode options' one table (src/decode/options.hpp): its rows are consistent, validate() and the
// command line read their ranges from it; and the coverage penalty ranks beam hypotheses by GNMT's
// formula. (The repetition guard and the length ratio: test_decode_semantics.cpp.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <string>

#include "core/errors.hpp"
#include "decode/decode.hpp"
#include "decode/options.hpp"
#include "test_util.hpp"

using namespace attnseq;
using namespace attnseq::test;

namespace {
// "max_length_ratio" -> "maxLengthRatio".
std::string camel(const std::string& key) {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i)
    out += key[i] == '_' ? char(std::toupper(static_cast<unsigned char>(key[++i]))) : key[i];
  return out;
}
}  // namespace

TEST_CASE("the decode options' table: one name scheme, defaults inside their ranges, get and set agree") {
  std::set<std::string> keys, js, flags;
  const DecodeOptions d;
  for (const DecodeOptionSpec& s : decode_option_table()) {
    CAPTURE(s.key);
    CHECK(keys.insert(s.key).second);
    CHECK(js.insert(s.js).second);
    CHECK(std::string(s.js) == camel(s.key));
    if (*s.flag) {
      std::string f = std::string("--") + s.key;
      std::replace(f.begin(), f.end(), '_', '-');
      CHECK(std::string(s.flag) == f);
      CHECK(flags.insert(s.flag).second);
      CHECK(decode_option_by_flag(s.flag) == &s);
    }
    CHECK(decode_option_by_js(s.js) == &s);
    CHECK(*s.help);
    CHECK(s.scope != 0u);
    CHECK(s.min <= s.max);
    CHECK(option_value_error(s, s.get(d), s.key).empty());
    for (double x : {s.min, s.max}) {
      DecodeOptions o;
      s.set(o, x);
      CHECK(s.get(o) == x);
      CHECK(option_value_error(s, x, s.key).empty());
    }
    if (s.kind != OptionKind::Flag) {
      CHECK(option_value_error(s, s.max + 1, "X") == "X is " + number_text(s.max + 1) + "; it must be in [" +
                                                         number_text(s.min) + ", " + number_text(s.max) + "]" +
                                                         (*s.note ? std::string(" (") + s.note + ")" : ""));
      CHECK_FALSE(option_value_error(s, std::nan(""), "X").empty());
    }
    if (s.kind == OptionKind::Integer) CHECK(option_value_error(s, s.min + 0.5, "X") == "X must be an integer");
  }
  CHECK(decode_option_by_js("bem") == nullptr);
  CHECK(decode_option_by_flag("--trace") == nullptr);  // the command lines do not print traces
}

TEST_CASE("validate() refuses each new option's bad values, naming the option") {
  Model m(small_config(Cell::GRU, Style::Luong, Score::Dot));
  randomize(m, 3);
  Encoded enc;
  const std::vector<std::int32_t> src = {4, 5, 6};
  m.encode(src.data(), 3, enc);
  auto refused = [&](DecodeOptions o, const std::string& what) {
    CHECK_THROWS_WITH_AS(decode(m, enc, o), doctest::Contains(what.c_str()), std::invalid_argument);
  };
  DecodeOptions o;
  o.no_repeat_ngram = 65;
  refused(o, "no_repeat_ngram is 65; it must be in [0, 64]");
  o = {};
  o.max_length_ratio = -1.f;
  refused(o, "max_length_ratio is -1; it must be in [0, 64] (0 = no such limit)");
  o.max_length_ratio = std::nanf("");
  refused(o, "max_length_ratio is nan");
  o = {};
  o.coverage_penalty = 0.5f;
  refused(o, "coverage_penalty ranks the hypotheses of a beam search: beam must be at least 2, not 1");
  o.beam = 3;
  o.coverage_penalty = 11.f;
  refused(o, "coverage_penalty is 11; it must be in [0, 10]");
  Model none(small_config(Cell::GRU, Style::None, Score::Dot));
  randomize(none, 3);
  Encoded e2;
  none.encode(src.data(), 3, e2);
  o.coverage_penalty = 0.5f;
  CHECK_THROWS_WITH_AS(decode(none, e2, o), doctest::Contains("this model has none"), std::invalid_argument);
}

TEST_CASE("coverage_penalty: finished hypotheses rank by log p / length^alpha + beta x sum log min(coverage, 1)") {
  for (const ModelConfig& c : {small_config(Cell::GRU, Style::Luong, Score::General),
                               small_config(Cell::LSTM, Style::Bahdanau, Score::Additive)}) {
    CAPTURE(describe(c));
    Model m(c);
    randomize(m, 11, 0.8f);
    const std::vector<std::int32_t> src = {4, 9, 5, 12, 7, 6};
    Encoded enc;
    m.encode(src.data(), int(src.size()), enc);
    DecodeOptions o;
    o.beam = 4;
    o.max_length = 9;
    const auto plain = decode(m, enc, o);
    o.coverage_penalty = 0.f;
    decode_checks::check_same(decode(m, enc, o), plain);  // 0 is no penalty, bit for bit
    for (float beta : {0.2f, 1.f, 5.f}) {
      CAPTURE(beta);
      o.coverage_penalty = beta;
      o.trace = true;
      const auto r = decode(m, enc, o);
      REQUIRE(!r.hypotheses.empty());
      const std::size_t T = src.size();
      for (std::size_t i = 0; i < r.hypotheses.size(); ++i) {
        const auto& h = r.hypotheses[i];
        double cp = 0;
        for (std::size_t t = 0; t < T; ++t) {
          double cov = 0;
          for (std::size_t k = 0; k < h.tokens.size(); ++k) cov += h.attention[k * T + t];
          cp += std::log(std::min(std::max(cov, 1e-6), 1.0));
        }
        const double want = h.log_prob / std::pow(double(h.tokens.size()), 1.0) + beta * cp;
        CHECK(h.score == doctest::Approx(want).epsilon(1e-5));
        if (i > 0) CHECK(r.hypotheses[i - 1].score >= h.score);
        // The trace's ended node of this hypothesis carries the same score.
        bool found = false;
        for (const auto& node : r.trace[h.tokens.size() - 1])
          if (node.ended && node.token == h.tokens.back() && node.score == h.score) found = true;
        CHECK(found);
      }
    }
  }
}

TEST_CASE("the guard, the ratio and the coverage penalty keep a batch's results equal to each source's alone") {
  Model m(small_config(Cell::GRU, Style::Luong, Score::Dot));
  randomize(m, 5, 0.9f);
  const auto srcs = decode_checks::sources(9, m.config().src_vocab);
  for (int beam : {1, 3}) {
    DecodeOptions o;
    o.beam = beam;
    o.no_repeat_ngram = 2;
    o.max_length_ratio = 1.5f;
    if (beam > 1) o.coverage_penalty = 0.4f;
    const auto batch = translate_batch(m, srcs, o, 8);
    for (std::size_t i = 0; i < srcs.size(); ++i) {
      CAPTURE(i);
      Encoded enc;
      m.encode(srcs[i].data(), int(srcs[i].size()), enc);
      decode_checks::check_same(batch[i], decode(m, enc, o));
      CHECK(int(batch[i].hypotheses[0].tokens.size()) <= int(std::ceil(1.5 * double(srcs[i].size()))) + 1);
    }
  }
}
