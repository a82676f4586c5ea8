// The shipped dates model (models/dates.safetensors): at least 99.5 % on every form (format and letter
// case) over a grid of dates that holds every month in both centuries (natively: every two-digit year too), exact
// match per form on held-out dates of seed 20261130 at the figure models/README.md states, the 16
// original forms at 100 % on 2,000 held-out dates, and the issues' own examples. Also the
// evaluation's bookkeeping: per-form counts and the outputs that are not calendar dates.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/vocab.hpp"
#include "train/evaluate.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"

#ifndef ATTNSEQ_MODELS_DIR
#define ATTNSEQ_MODELS_DIR "models"
#endif

using namespace attnseq;

namespace {
constexpr std::uint64_t kHeldOut = train::kHeldOutSeed;
Model shipped() { return load_checkpoint_file(std::string(ATTNSEQ_MODELS_DIR) + "/dates.safetensors"); }

std::string translate(const Model& m, const std::string& text, int max_length = 100) {
  const Vocab sv = Vocab::source(m.config()), tv = Vocab::target(m.config());
  const auto src = sv.encode(text);
  Encoded enc;
  m.encode(src.data(), int(src.size()), enc);
  DecodeOptions o;
  o.max_length = max_length;
  const auto h = decode(m, enc, o).hypotheses[0];
  return tv.decode(h.tokens.data(), h.tokens.size());
}
}  // namespace

// A random draw holds what the generator writes, as often as it writes it; this grid holds every form
// with every month, in both centuries, whatever the draw. Issue 23: `JAN 05 28` came out 2008-01-05 on
// 1-7 % of such dates while the held-out table said 100 %. Natively each form also meets every
// two-digit year; the wasm, reference-kernel and sanitizer builds run the lighter grid.
TEST_CASE("shipped dates model: at least 99.5% exact on every form, every month, in both centuries") {
#if defined(__EMSCRIPTEN__) || defined(ATTNSEQ_REFERENCE_KERNELS) || defined(__SANITIZE_ADDRESS__)
  constexpr int kPerMonth = 2;  // one year 1950-1999, one 2000-2049
#else
  constexpr int kPerMonth = 20;  // 10 per century; over the 12 months a form meets every two-digit year
#endif
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const Model m = shipped();
  std::vector<train::Example> ex;
  std::vector<int> form_of;
  std::vector<std::string> names;
  for (int f = 0; f < train::kDateFormats; ++f)
    for (int c = 0; c < train::kDateCases; ++c) {
      names.push_back(train::date_form_name(f, c));
      if (c > 0 && !train::date_format_has_letters(f)) continue;  // one form without letters
      for (int month = 1; month <= 12; ++month)
        for (int k = 0; k < kPerMonth; ++k) {
          // Even k in 1950-1999, odd k in 2000-2049, a different year and day for each k and month.
          const int year = 1950 + (k % 2) * 50 + (k / 2 + month * 7 + f * 11 + c * 5) % 50;
          const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
          const int day = 1 + (k * 17 + month * 5 + f * 7 + c) % (mdays[month - 1] + (month == 2 && leap));
          ex.push_back(train::render_date(year, month, day, f, c));
          form_of.push_back(f * train::kDateCases + c);
        }
    }
  const auto r = train::evaluate(m, ex, 1, 10, form_of, names);
  int forms = 0;
  for (const auto& s : r.forms) {
    if (!s.n) continue;
    ++forms;
    // At least 99.5 %, as on the held-out dates below: one miss in a form's 240 natively, none in 24.
    CHECK_MESSAGE(s.exact * 1000 >= 995 * s.n, s.name << ": " << s.exact << "/" << s.n);
  }
  CHECK(forms == 74 * 3 + 19);  // 74 formats with a month name in 3 letter cases, 19 numeric formats
  CHECK(r.not_calendar_dates == 0);
  MESSAGE("dates grid: exact " << r.exact << "/" << r.n << " over " << forms << " forms");
}

TEST_CASE("shipped dates model: at least 99.5% exact on held-out dates of every form") {
  const Model m = shipped();
  const auto set = train::date_eval_set(kHeldOut, 8000);
  const auto r = train::evaluate(m, set.examples, 1, 10, set.form_of, set.form_names);
  int forms = 0;
  for (const auto& f : r.forms) {
    if (!f.n) continue;  // the unused case slots of formats without letters
    ++forms;
    CHECK_MESSAGE(f.n >= 10, f.name);  // 8000 dates: about 29 per form with letters, 86 without
    CHECK_MESSAGE(double(f.exact) / f.n >= 0.995, f.name << ": " << f.exact << "/" << f.n);
  }
  CHECK(forms == 74 * 3 + 19);  // as the grid above
  MESSAGE("dates exact " << r.exact_rate() << " on " << r.n << "; not calendar dates " << r.not_calendar_dates);
}

TEST_CASE("shipped dates model: the 16 original forms stay at 100% on 2000 held-out dates") {
  const Model m = shipped();
  Rng rng(kHeldOut);
  std::vector<train::Example> ex;
  for (int i = 0; i < 2000; ++i) {
    const auto s = train::sample_date(rng);
    ex.push_back(train::render_date(s.year, s.month, s.day, s.format % 16, 0));  // written as before
  }
  const auto r = train::evaluate(m, ex);
  CHECK(r.exact == 2000);
  CHECK(r.not_calendar_dates == 0);
}

TEST_CASE("shipped dates model: the issues' examples, read by the documented conventions") {
  const Model m = shipped();
  const std::pair<const char*, const char*> cases[] = {
      {"JUL 21, 2015", "2015-07-21"}, {"NOV 30 1964", "1964-11-30"},     {"19JUL1972", "1972-07-19"},
      {"14.08.2004", "2004-08-14"},   {"26-04-2013", "2013-04-26"},      {"2021-08-14", "2021-08-14"},
      {"110719", "2019-11-07"},       {"07/21/2015", "2015-07-21"},      {"2015.07.21", "2015-07-21"},
      {"20150721", "2015-07-21"},     {"14aug04", "2004-08-14"},         {"2004.8.14", "2004-08-14"},
      {"2004/08/14", "2004-08-14"},   {"MARCH 3RD, 2018", "2018-03-03"}, {"march 3 2018", "2018-03-03"},
      {"JAN 05 28", "2028-01-05"},    {"JUN 05, 30", "2030-06-05"},  // issue 23
  };
  for (const auto& c : cases)
    CHECK_MESSAGE(translate(m, c.first) == c.second, c.first);  // no structured binding: clang 14 cannot capture one
}

TEST_CASE("evaluate: per-form counts and outputs that are not calendar dates, against a direct count") {
  // An untrained model writes garbage: the report's counts must equal a direct decode of each example.
  auto task = train::make_task("dates");
  ModelConfig c;
  c.src_tokenizer = c.tgt_tokenizer = TokenizerKind::Char;
  c.src_tokens = task->src_vocab();
  c.tgt_tokens = task->tgt_vocab();
  c.src_vocab = int(c.src_tokens.size());
  c.tgt_vocab = int(c.tgt_tokens.size());
  c.src_emb = c.tgt_emb = 8;
  c.enc_hidden = c.dec_hidden = 8;
  Model m(c);
  train::initialize(m, 3);
  m.prepare();
  const auto set = train::date_eval_set(kHeldOut, 300);
  const auto r = train::evaluate(m, set.examples, 1, 10, set.form_of, set.form_names);
  int bad = 0, n = 0, exact = 0;
  for (const auto& e : set.examples) {
    std::string src, ref;
    for (const auto& t : e.src) src += t;
    for (const auto& t : e.tgt) ref += t;
    const std::string out = translate(m, src, 30);  // evaluate's limit: twice the target, plus 10
    bad += !train::is_calendar_date(out);
    exact += out == ref;
  }
  CHECK(r.date_refs == 300);
  CHECK(r.not_calendar_dates == bad);
  CHECK(bad > 0);
  CHECK(r.exact == exact);
  for (const auto& f : r.forms) n += f.n;
  CHECK(n == 300);
  // The same examples as the task's own sampler, in order.
  const auto plain = train::sample_n(*task, kHeldOut, 300);
  for (std::size_t i = 0; i < plain.size(); ++i)
    CHECK((plain[i].src == set.examples[i].src && plain[i].tgt == set.examples[i].tgt));
  // A reference that is no date (another task) is not counted.
  train::Example x;
  x.src = {"a"};
  x.tgt = {"1"};
  CHECK(train::evaluate(m, {x}).date_refs == 0);
  CHECK_THROWS_AS(train::evaluate(m, {x}, 1, 10, {5}, {"one"}), std::invalid_argument);
}
