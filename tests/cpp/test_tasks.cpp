// Built-in training tasks (src/train/tasks.hpp): determinism, complete vocabularies, alignments in
// range; dates (every format and letter case, every date, weekdays, the ISO target, the alignment
// conventions, no numeric source read two ways, the calendar-date check);
// en-ko (particles by batchim, the seed sentence, the parser agreeing with the sampler); reverse and
// copy; the TSV task and its refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "test_util.hpp"
#include "train/tasks.hpp"

using namespace attnseq;
using namespace attnseq::train;
using Words = std::vector<std::string>;
using Links = std::vector<std::pair<int, int>>;

namespace {

using test::error_of;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string join(const Words& w, const char* sep = "") {
  std::string s;
  for (std::size_t i = 0; i < w.size(); ++i) s += (i ? sep : "") + w[i];
  return s;
}

bool same(const Example& a, const Example& b) { return a.src == b.src && a.tgt == b.tgt && a.align == b.align; }

// Checks the invariants every task keeps on n samples; returns the samples.
std::vector<Example> check_task(const Task& t, std::size_t n) {
  const auto sv = t.src_vocab(), tv = t.tgt_vocab();
  for (const auto* v : {&sv, &tv}) {
    REQUIRE(v->size() > 4);
    CHECK(Words(v->begin(), v->begin() + 4) == Words{"<pad>", "<s>", "</s>", "<unk>"});
    CHECK(std::is_sorted(v->begin() + 4, v->end()));
    CHECK(std::adjacent_find(v->begin() + 4, v->end()) == v->end());
  }
  const std::set<std::string> src_set(sv.begin(), sv.end()), tgt_set(tv.begin(), tv.end());
  const auto ex = sample_n(t, 12345, n);
  REQUIRE(ex.size() == n);
  for (const auto& e : ex) {
    REQUIRE(!e.src.empty());
    REQUIRE(!e.tgt.empty());
    for (const auto& s : e.src)
      REQUIRE_MESSAGE(src_set.count(s), t.name() << ": source token \"" << s << "\" not in vocab");
    for (const auto& s : e.tgt)
      REQUIRE_MESSAGE(tgt_set.count(s), t.name() << ": target token \"" << s << "\" not in vocab");
    for (const auto& [i, j] : e.align) {
      REQUIRE(i >= 0);
      REQUIRE(i < int(e.src.size()));
      REQUIRE(j >= 0);
      REQUIRE(j < int(e.tgt.size()));
    }
  }
  return ex;
}

}  // namespace

TEST_CASE("tasks: factory names the valid tasks") {
  for (const auto& name : task_names()) {
    auto t = make_task(name);
    CHECK(t->name() == name);
  }
  const std::string err = error_of([] { make_task("french"); });
  CHECK(contains(err, "\"french\""));
  for (const char* n : {"dates", "en-ko", "reverse", "copy"}) CHECK(contains(err, n));
  CHECK(make_task("dates")->tokenizer() == TokenizerKind::Char);
  CHECK(make_task("en-ko")->tokenizer() == TokenizerKind::Word);
  CHECK(make_task("reverse")->tokenizer() == TokenizerKind::Char);
  CHECK(make_vocab({"b", "a", "<unk>", "b"}) == Words{"<pad>", "<s>", "</s>", "<unk>", "a", "b"});
}

TEST_CASE("tasks: deterministic, complete vocabularies, alignments in range") {
  for (const auto& name : task_names()) {
    CAPTURE(name);
    auto t = make_task(name);
    check_task(*t, 5000);
    const auto a = sample_n(*t, 7, 50), b = sample_n(*t, 7, 50), c = sample_n(*t, 8, 50);
    bool all_same = true, any_diff = false;
    for (int i = 0; i < 50; ++i) {
      all_same = all_same && same(a[i], b[i]);
      any_diff = any_diff || !same(a[i], c[i]);
    }
    CHECK(all_same);
    CHECK(any_diff);
    // sample_n is the task's sample() on Rng(seed).
    Rng rng(7);
    CHECK(same(t->sample(rng), a[0]));
    CHECK(same(t->sample(rng), a[1]));
  }
}

TEST_CASE("dates: the example formats, the ISO target and the weekday") {
  const Words expect = {"3 March 2018",
                        "March 3rd, 2018",
                        "Saturday, March 3, 2018",
                        "03/03/18",
                        "2018.03.03",
                        "3 mar 18",
                        "3 Mar 2018",
                        "March 3 2018",
                        "3/3/2018",
                        "Sat 3 Mar 2018",
                        "2018-3-3",
                        "the 3rd of March, 2018",
                        "Mar 3, 2018",
                        "20180303",
                        "3rd March 2018",
                        "03-Mar-2018",
                        "03.03.2018",
                        "3.3.2018",
                        "03-03-2018",
                        "3-3-2018",
                        "03.03.18",
                        "3-3-18",
                        "2018-03-03",
                        "2018.3.3",
                        "2018/03/03",
                        "03/03/2018",
                        "3/3/18",
                        "030318",
                        "03Mar2018",
                        "3mar18",
                        "Mar 3 2018",
                        "March 3, 2018",
                        "Sat, Mar 3, 2018",
                        "3rd Mar 2018",
                        "Saturday 3 March 2018",
                        "Mar 3rd 2018",
                        "03 Mar 18",
                        "Saturday, 3rd March 2018",
                        "3March2018",
                        "March 3rd 2018",
                        "3 March 18",
                        "03 March 2018",
                        "03 March 18",
                        "March 3rd, 18",
                        "Saturday, March 3, 18",
                        "Saturday, March 03, 2018",
                        "Saturday, March 03, 18",
                        "3 mar 2018",
                        "03 mar 18",
                        "03 mar 2018",
                        "3 Mar 18",
                        "03 Mar 2018",
                        "March 3 18",
                        "March 03 2018",
                        "March 03 18",
                        "Sat 3 Mar 18",
                        "Sat 03 Mar 2018",
                        "Sat 03 Mar 18",
                        "the 3rd of March, 18",
                        "Mar 3, 18",
                        "Mar 03, 2018",
                        "Mar 03, 18",
                        "3rd March 18",
                        "03-Mar-18",
                        "3-Mar-2018",
                        "3-Mar-18",
                        "3.3.18",
                        "03-03-18",
                        "03Mar18",
                        "3Mar2018",
                        "3Mar18",
                        "3mar2018",
                        "03mar18",
                        "03mar2018",
                        "Mar 3 18",
                        "Mar 03 2018",
                        "Mar 03 18",
                        "March 3, 18",
                        "March 03, 2018",
                        "March 03, 18",
                        "Sat, Mar 3, 18",
                        "Sat, Mar 03, 2018",
                        "Sat, Mar 03, 18",
                        "3rd Mar 18",
                        "Saturday 3 March 18",
                        "Saturday 03 March 2018",
                        "Saturday 03 March 18",
                        "Mar 3rd 18",
                        "Saturday, 3rd March 18",
                        "3March18",
                        "03March2018",
                        "03March18",
                        "March 3rd 18"};
  REQUIRE(int(expect.size()) == kDateFormats);
  for (int f = 0; f < kDateFormats; ++f) {
    const Example e = render_date(2018, 3, 3, f);
    CHECK(join(e.src) == expect[f]);
    CHECK(join(e.tgt) == "2018-03-03");
  }
  CHECK(join(render_date(1999, 12, 21, 3).src) == "12/21/99");  // MM/DD/YY
  CHECK(join(render_date(1999, 12, 21, 3).tgt) == "1999-12-21");
  CHECK(join(render_date(2001, 11, 11, 1).src) == "November 11th, 2001");
  CHECK(join(render_date(2022, 8, 22, 11).src) == "the 22nd of August, 2022");
  CHECK(join(render_date(2049, 12, 31, 2).src) == "Friday, December 31, 2049");
  CHECK(join(render_date(1950, 1, 1, 9).src) == "Sun 1 Jan 1950");
  CHECK(join(render_date(2000, 2, 29, 2).src) == "Tuesday, February 29, 2000");
  CHECK(join(render_date(1969, 7, 20, 5).src) == "20 jul 69");
  CHECK(join(render_date(1969, 7, 20, 5).tgt) == "1969-07-20");
  CHECK(join(render_date(2005, 1, 9, 3).src) == "01/09/05");
  CHECK(join(render_date(2005, 1, 9, 3).tgt) == "2005-01-09");
  CHECK(weekday(2018, 3, 3) == 5);
  CHECK(contains(error_of([] { render_date(2019, 2, 29, 0); }), "2019-2-29"));
  CHECK(contains(error_of([] { render_date(1949, 12, 31, 0); }), "1949"));
  CHECK(contains(error_of([] { render_date(2018, 3, 3, kDateFormats); }), std::to_string(kDateFormats)));
  CHECK(contains(error_of([] { render_date(2018, 3, 3, 0, kDateCases); }), std::to_string(kDateCases)));
  CHECK(contains(error_of([] { render_date(2018, 3, 3, 0, -1); }), "-1"));
}

TEST_CASE("dates: the issue's forms and their conventions") {
  auto iso = [](const Example& e) { return join(e.tgt); };
  // Dots or dashes with the year last are day first; year first is year-month-day; slashes with the
  // year last stay month first.
  CHECK(join(render_date(2004, 8, 14, 16).src) == "14.08.2004");
  CHECK(join(render_date(2004, 8, 14, 18).src) == "14-08-2004");
  CHECK(join(render_date(2004, 8, 14, 17).src) == "14.8.2004");
  CHECK(join(render_date(2004, 8, 4, 21).src) == "4-8-04");
  CHECK(iso(render_date(2004, 8, 4, 21)) == "2004-08-04");
  CHECK(join(render_date(1999, 12, 21, 20).src) == "21.12.99");
  CHECK(join(render_date(2004, 8, 14, 22).src) == "2004-08-14");
  CHECK(join(render_date(2004, 8, 14, 23).src) == "2004.8.14");
  CHECK(join(render_date(2004, 8, 14, 24).src) == "2004/08/14");
  CHECK(join(render_date(2015, 7, 21, 25).src) == "07/21/2015");
  CHECK(join(render_date(2015, 7, 21, 26).src) == "7/21/15");
  // Compact forms: eight digits are YYYYMMDD, six are MMDDYY.
  CHECK(join(render_date(2004, 8, 14, 13).src) == "20040814");
  CHECK(join(render_date(2019, 7, 11, 27).src) == "071119");
  CHECK(iso(render_date(2019, 7, 11, 27)) == "2019-07-11");
  CHECK(join(render_date(1972, 7, 19, 28, 2).src) == "19JUL1972");
  CHECK(join(render_date(2004, 8, 14, 29).src) == "14aug04");
  CHECK(join(render_date(2004, 8, 14, 28).src) == "14Aug2004");
  // Letter case applies to the whole source; numbers and punctuation are untouched.
  CHECK(join(render_date(2015, 7, 21, 12, 2).src) == "JUL 21, 2015");
  CHECK(join(render_date(1964, 11, 30, 30, 2).src) == "NOV 30 1964");
  CHECK(join(render_date(2018, 3, 3, 12, 1).src) == "mar 3, 2018");
  CHECK(join(render_date(2018, 3, 3, 0, 2).src) == "3 MARCH 2018");
  CHECK(join(render_date(2018, 3, 3, 11, 2).src) == "THE 3RD OF MARCH, 2018");
  CHECK(join(render_date(2018, 3, 3, 2, 1).src) == "saturday, march 3, 2018");
  CHECK(join(render_date(2018, 3, 3, 5, 0).src) == "3 mar 18");
  CHECK(join(render_date(2018, 3, 3, 5, 2).src) == "3 MAR 18");
  // Two-digit years: 50..99 -> 19YY, 00..49 -> 20YY, in every two-digit form.
  for (int f = 0; f < kDateFormats; ++f) {
    if (std::string(date_format_name(f)).find("YYYY") != std::string::npos) continue;
    CHECK(iso(render_date(1950, 1, 2, f)).substr(0, 4) == "1950");
    CHECK(iso(render_date(2049, 1, 2, f)).substr(0, 4) == "2049");
    CHECK(contains(join(render_date(1950, 1, 2, f).src), "50"));
    CHECK(contains(join(render_date(2049, 1, 2, f).src), "49"));
  }
  // Form names: a case suffix only where the format writes letters.
  CHECK(date_form_name(12, 2) == "Mon D, YYYY, upper case");
  CHECK(date_form_name(12, 0) == "Mon D, YYYY");
  CHECK(date_form_name(16, 2) == "DD.MM.YYYY");
  CHECK(date_format_has_letters(28));
  CHECK_FALSE(date_format_has_letters(27));
}

// The format whose name is `name`, or -1.
static int format_named(const std::string& name) {
  for (int f = 0; f < kDateFormats; ++f)
    if (name == date_format_name(f)) return f;
  return -1;
}

TEST_CASE("dates: every format naming the month has both year widths and both day paddings") {
  // What people write (issue 23: `JAN 05 28`, `JUN 05, 30` were misread when no format put a two-digit
  // year after a month name): a month name makes any year width and day padding unambiguous, so each
  // such format's twins are formats too; so is the two-digit twin of a numeric format with separators
  // and the year last. Year-first and compact numeric formats keep their one width (docs/tasks.md).
  int twins = 0;
  for (int f = 0; f < kDateFormats; ++f) {
    const std::string name = date_format_name(f);
    const auto y4 = name.find("YYYY");
    const std::string other_year = y4 != std::string::npos
                                       ? name.substr(0, y4) + "YY" + name.substr(y4 + 4)
                                       : name.substr(0, name.find("YY")) + "YYYY" + name.substr(name.find("YY") + 2);
    std::vector<std::string> want;
    if (date_format_has_letters(f)) {
      want.push_back(other_year);
      const auto d = name.find('D');
      if (name.compare(d, 3, "Dth") != 0)  // ordinals have no padding
        want.push_back(name.compare(d, 2, "DD") == 0 ? name.substr(0, d) + name.substr(d + 1)
                                                     : name.substr(0, d) + "D" + name.substr(d));
    } else if (y4 != std::string::npos && y4 > 0 && name.find_first_of("./-") != std::string::npos) {
      want.push_back(other_year);
    }
    for (const auto& w : want) {
      CHECK_MESSAGE(format_named(w) >= 0, name << " has no twin " << w);
      ++twins;
    }
  }
  CHECK(twins == 74 * 2 - 14 + 6);  // 74 formats name the month (14 with ordinals); 6 numeric ones
  CHECK(join(render_date(2028, 1, 5, format_named("Mon DD YY"), 2).src) == "JAN 05 28");
  CHECK(join(render_date(2030, 6, 5, format_named("Mon DD, YY"), 2).src) == "JUN 05, 30");
  CHECK(join(render_date(2030, 6, 5, format_named("Mon DD, YY"), 2).tgt) == "2030-06-05");
  CHECK(join(render_date(1999, 12, 3, format_named("D.M.YY")).src) == "3.12.99");
}

TEST_CASE("dates: letter case changes the letters and nothing else") {
  auto lower = [](std::string s) {
    for (auto& c : s) c = char(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return s;
  };
  auto upper = [](std::string s) {
    for (auto& c : s) c = char(c >= 'a' && c <= 'z' ? c - 32 : c);
    return s;
  };
  for (int f = 0; f < kDateFormats; ++f) {
    const Example e0 = render_date(2023, 9, 21, f, 0), e1 = render_date(2023, 9, 21, f, 1),
                  e2 = render_date(2023, 9, 21, f, 2);
    CHECK(join(e1.src) == lower(join(e0.src)));
    CHECK(join(e2.src) == upper(join(e0.src)));
    CHECK(e1.tgt == e0.tgt);
    CHECK(e2.tgt == e0.tgt);
    CHECK(e1.align == e0.align);
    CHECK(e2.align == e0.align);
    // Letters appear exactly in the formats said to have them.
    const std::string s = join(e0.src);
    const bool letters = std::any_of(s.begin(), s.end(), [](char c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; });
    CHECK_MESSAGE(letters == date_format_has_letters(f), date_format_name(f));
  }
}

TEST_CASE("dates: no numeric source is read as two dates") {
  // Every date of 25 years in every format without letters: a source string always means one date, so
  // the conventions (slashes month first, dots/dashes day first, year first Y-M-D) leave no clash. The
  // years are those whose two-digit forms (50..61, 00..12) could also be read as a day or a month.
  std::unordered_map<std::string, int> seen;
  seen.reserve(800000);
  int day = 0, clashes = 0;
  std::string first_clash;
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int y = 1950; y <= 2012; ++y)
    for (int m = 1; m <= 12; ++m) {
      if (y > 1961 && y < 2000) break;
      const int n = mdays[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
      for (int d = 1; d <= n; ++d, ++day)
        for (int f = 0; f < kDateFormats; ++f) {
          if (date_format_has_letters(f)) continue;
          const auto [it, fresh] = seen.emplace(join(render_date(y, m, d, f).src), day);
          if (!fresh && it->second != day && clashes++ == 0) first_clash = it->first;
        }
    }
  CHECK_MESSAGE(clashes == 0, "e.g. " << first_clash);
  CHECK(seen.size() > 9000u * 16);
}

TEST_CASE("dates: is_calendar_date against an independent month table") {
  CHECK(is_calendar_date("2013-02-28"));
  CHECK_FALSE(is_calendar_date("2013-02-30"));
  CHECK_FALSE(is_calendar_date("2013-02-29"));
  CHECK(is_calendar_date("2012-02-29"));
  CHECK(is_calendar_date("2000-02-29"));        // divisible by 400
  CHECK_FALSE(is_calendar_date("1900-02-29"));  // by 100, not 400
  CHECK_FALSE(is_calendar_date("2013-04-31"));
  CHECK_FALSE(is_calendar_date("2013-13-01"));
  CHECK_FALSE(is_calendar_date("2013-00-10"));
  CHECK_FALSE(is_calendar_date("2013-01-00"));
  for (const char* bad : {"", "2013-2-3", "2013-02-3", "20130203", "2013/02/03", "2013-02-03 ", "2013-0a-03",
                          "２０１３-02-03", "+013-02-03", "2013--2-03"})
    CHECK_MESSAGE(!is_calendar_date(bad), bad);
  // Every day 1..32 of every month 1950..2049: valid exactly up to the month's length.
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool ok = true;
  char buf[16];
  for (int y = 1950; y <= 2049; ++y)
    for (int m = 1; m <= 12; ++m)
      for (int d = 1; d <= 32; ++d) {
        const int n = mdays[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
        std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
        if (is_calendar_date(buf) != (d <= n)) {
          ok = false;
          FAIL_CHECK(buf);
        }
      }
  CHECK(ok);
}

TEST_CASE("dates: alignment conventions") {
  // "3 March 2018": day digit -> both day digits, every letter of March -> both month digits, year 1:1.
  Links want = {{8, 0}, {9, 1}, {10, 2}, {11, 3}};
  for (int t : {5, 6})
    for (int s = 2; s <= 6; ++s) want.emplace_back(s, t);
  want.insert(want.end(), {{0, 8}, {0, 9}});
  CHECK(render_date(2018, 3, 3, 0).align == want);
  // "03/03/18": the implied century "20" -> both year digits; "1","8" one to one.
  CHECK(render_date(2018, 3, 3, 3).align ==
        Links{{6, 0}, {7, 0}, {6, 1}, {7, 1}, {6, 2}, {7, 3}, {0, 5}, {1, 6}, {3, 8}, {4, 9}});
  // Compact "19JUL1972": day digits one to one, both month digits to every letter of JUL, year 1:1.
  Links compact = {{5, 0}, {6, 1}, {7, 2}, {8, 3}};
  for (int t : {5, 6})
    for (int s = 2; s <= 4; ++s) compact.emplace_back(s, t);
  compact.insert(compact.end(), {{0, 8}, {1, 9}});
  CHECK(render_date(1972, 7, 19, 28, 2).align == compact);
  // Six digits "071119" (MMDDYY): month and day one to one, the century "20" to both year digits.
  CHECK(render_date(2019, 7, 11, 27).align ==
        Links{{4, 0}, {5, 0}, {4, 1}, {5, 1}, {4, 2}, {5, 3}, {0, 5}, {1, 6}, {2, 8}, {3, 9}});
  // Day first "4.8.2004"-style (D.M.YYYY): one digit links to both target digits.
  CHECK(render_date(2004, 8, 4, 17).align == Links{{4, 0}, {5, 1}, {6, 2}, {7, 3}, {2, 5}, {2, 6}, {0, 8}, {0, 9}});
  // Ordinal suffixes, weekdays and filler words are linked to nothing: the month digits link to the
  // month name only, the day digits to the day digit only.
  for (int f : {1, 2, 9, 11, 14}) {
    const Example e = render_date(2018, 3, 3, f);
    std::set<int> month, day;
    for (const auto& [s, t] : e.align) {
      if (t == 5 || t == 6) month.insert(s);
      if (t == 8 || t == 9) day.insert(s);
    }
    std::string month_text;
    for (int s : month) month_text += e.src[s];
    CHECK(month_text == (f == 9 ? "Mar" : "March"));
    REQUIRE(day.size() == 1);
    CHECK(e.src[*day.begin()] == "3");
  }
}

TEST_CASE("dates: every weekday, and every fifth date in every form, against an independent calendar") {
  auto t = make_task("dates");
  const auto sv = t->src_vocab();
  // All characters are ASCII: byte-indexed tables keep this exhaustive loop fast.
  bool in_vocab[256] = {}, used[256] = {};
  for (std::size_t k = 4; k < sv.size(); ++k) {
    REQUIRE(sv[k].size() == 1);
    in_vocab[static_cast<unsigned char>(sv[k][0])] = true;
  }
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int wd = 6;  // 1950-01-01 was a Sunday (Monday = 0)
  long dates = 0;
  bool ok = true;
  for (int y = 1950; y <= 2049; ++y)
    for (int m = 1; m <= 12; ++m) {
      const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
      const int n = mdays[m - 1] + (m == 2 && leap);
      for (int d = 1; d <= n; ++d, wd = (wd + 1) % 7, ++dates) {
        ok = ok && weekday(y, m, d) == wd;
        if (dates % 5) continue;  // every fifth date (all weekdays, days and months) keeps this quick
        for (int f = 0; f < kDateFormats * kDateCases; ++f) {
          // The letter cases other than as written on every 15th date only (letters move nothing).
          if (f >= kDateFormats && (dates % 15 || !date_format_has_letters(f % kDateFormats))) continue;
          const Example e = render_date(y, m, d, f % kDateFormats, f / kDateFormats);
          for (const auto& s : e.src) {
            const auto c = static_cast<unsigned char>(s[0]);
            used[c] = true;
            ok = ok && s.size() == 1 && in_vocab[c];
          }
          const std::string iso = join(e.tgt);
          // The ISO target parses back to the date.
          ok = ok && iso.size() == 10 && std::stoi(iso.substr(0, 4)) == y && std::stoi(iso.substr(5, 2)) == m &&
               std::stoi(iso.substr(8, 2)) == d;
          // Every target digit is linked, the separators are not; links to digits agree with the target
          // except for the implied century and the zero padding.
          std::vector<int> linked(10, 0);
          for (const auto& [s, tt] : e.align) {
            ++linked[tt];
            const char c = e.src[s][0];
            const bool one_to_one = c >= '0' && c <= '9' && tt >= 2 && e.tgt[tt][0] != '0';
            if (one_to_one && tt != 5 && tt != 8) ok = ok && c == e.tgt[tt][0];
          }
          for (int k = 0; k < 10; ++k) ok = ok && ((k == 4 || k == 7) ? linked[k] == 0 : linked[k] > 0);
          if (!ok) FAIL("date " << y << "-" << m << "-" << d << " format " << f << ": " << join(e.src));
        }
      }
    }
  CHECK(ok);
  CHECK(dates == 36525);
  for (std::size_t k = 4; k < sv.size(); ++k)  // the vocab has nothing extra
    CHECK_MESSAGE(used[static_cast<unsigned char>(sv[k][0])], "never written: \"" << sv[k] << "\"");
}

TEST_CASE("dates: every form appears in 12000 samples, and sample_date matches the task") {
  auto t = make_task("dates");
  Rng a(99), b(99);
  std::vector<int> count(kDateFormats * kDateCases, 0);
  std::set<int> years;
  for (int i = 0; i < 12000; ++i) {
    const DateSample s = sample_date(a);
    ++count[s.format * kDateCases + s.letter_case];
    years.insert(s.year);
    CHECK(same(s.example, t->sample(b)));
    CHECK(same(s.example, render_date(s.year, s.month, s.day, s.format, s.letter_case)));
  }
  for (int f = 0; f < kDateFormats * kDateCases; ++f)
    CHECK_MESSAGE(count[f] > 0, date_form_name(f / kDateCases, f % kDateCases));
  CHECK(*years.begin() < 1960);
  CHECK(*years.rbegin() > 2040);
}

TEST_CASE("en-ko: the seed sentence and its alignment") {
  const Example e = translate_enko({"Jane", "went", "to", "the", "store"});
  CHECK(e.tgt == Words{"제인이", "가게에", "갔다"});
  CHECK(e.align == Links{{0, 0}, {4, 1}, {1, 2}});
  // ... and the sampler produces it.
  auto t = make_task("en-ko");
  Rng rng(1);
  bool seen = false;
  for (int i = 0; i < 50000 && !seen; ++i) {
    const Example s = t->sample(rng);
    seen = s.src == e.src && s.tgt == e.tgt && s.align == e.align;
  }
  CHECK(seen);
}

TEST_CASE("en-ko: word order, particles by batchim, verb forms") {
  auto ko = [](const Words& en) { return join(translate_enko(en).tgt, " "); };
  CHECK(ko({"Tom", "ate", "an", "apple"}) == "톰이 사과를 먹었다");
  CHECK(ko({"Mina", "read", "the", "book", "at", "the", "library"}) == "미나가 도서관에서 책을 읽었다");
  CHECK(ko({"Minho", "met", "Sora", "at", "the", "park"}) == "민호가 공원에서 소라를 만났다");
  CHECK(ko({"Sora", "came", "to", "the", "station"}) == "소라가 역에 왔다");
  CHECK(ko({"Jane", "bought", "a", "book"}) == "제인이 책을 샀다");
  CHECK(ko({"Mina", "bought", "an", "apple"}) == "미나가 사과를 샀다");
  CHECK(ko({"Sam", "saw", "a", "movie"}) == "샘이 영화를 봤다");
  CHECK(ko({"Emma", "drank", "coffee", "at", "the", "cafe"}) == "엠마가 카페에서 커피를 마셨다");
  CHECK(ko({"John", "drank", "the", "water"}) == "존이 물을 마셨다");
  CHECK(ko({"Yuna", "wrote", "a", "letter"}) == "유나가 편지를 썼다");
  CHECK(ko({"Jisu", "liked", "the", "park"}) == "지수가 공원을 좋아했다");
  CHECK(ko({"Tom", "liked", "Jane"}) == "톰이 제인을 좋아했다");
  CHECK(ko({"Minho", "studied", "at", "the", "library"}) == "민호가 도서관에서 공부했다");
  CHECK(ko({"Minho", "studied"}) == "민호가 공부했다");
  CHECK(ko({"Jane", "waited", "for", "Tom", "at", "the", "station"}) == "제인이 역에서 톰을 기다렸다");
  CHECK(ko({"Jane", "waited", "at", "the", "station"}) == "제인이 역에서 기다렸다");
  // Links: Korean word -> English content word only.
  CHECK(translate_enko({"Mina", "read", "the", "book", "at", "the", "library"}).align ==
        Links{{0, 0}, {6, 1}, {3, 2}, {1, 3}});

  CHECK(!has_batchim("사과"));
  CHECK(has_batchim("책"));
  CHECK(!has_batchim("미나"));
  CHECK(has_batchim("제인"));
  CHECK(contains(error_of([] { has_batchim("store"); }), "Hangul"));

  CHECK(contains(error_of([] { translate_enko({"Tom", "ate", "a", "apple"}); }), "word 2"));
  CHECK(contains(error_of([] { translate_enko({"Tom", "ate", "the", "book"}); }), "word 3"));
  CHECK(contains(error_of([] { translate_enko({"Tom", "ate", "apple"}); }), "word 2"));
  CHECK(contains(error_of([] { translate_enko({"Tom", "drank", "a", "milk"}); }), "word 2"));
  CHECK(contains(error_of([] { translate_enko({"Tom", "met", "Tom"}); }), "word 2"));
  CHECK(contains(error_of([] { translate_enko({"Jane", "went", "to", "the", "store", "today"}); }), "word 5"));
  CHECK(contains(error_of([] { translate_enko({"Jane", "went"}); }), "end of sentence"));
  CHECK(contains(error_of([] { translate_enko({"Bob", "went"}); }), "word 0"));
}

TEST_CASE("en-ko: parsing a sample's English gives back the sample, and subject and object particles vary") {
  auto t = make_task("en-ko");
  const auto ex = sample_n(*t, 2024, 3000);
  std::set<std::string> particles;
  std::set<std::size_t> lengths;
  for (const auto& e : ex) {
    REQUIRE_MESSAGE(same(translate_enko(e.src), e), join(e.src, " "));
    lengths.insert(e.src.size());
    for (const auto& w : e.tgt) {
      for (const char* p : {"이", "가", "을", "를", "에", "에서"})
        if (w.size() > std::string(p).size() && w.compare(w.size() - std::string(p).size(), std::string::npos, p) == 0)
          particles.insert(p);
    }
    // Each Korean word links to exactly one English word; articles and prepositions to nothing.
    REQUIRE(e.align.size() == e.tgt.size());
    for (const auto& [s, tt] : e.align) {
      const std::string& w = e.src[s];
      CHECK(w != "a");
      CHECK(w != "an");
      CHECK(w != "the");
      CHECK(w != "to");
      CHECK(w != "at");
      CHECK(w != "for");
    }
  }
  CHECK(particles.size() == 6);
  CHECK(*lengths.begin() == 2);
  CHECK(*lengths.rbegin() == 7);
}

TEST_CASE("reverse and copy: the target is the reverse / the copy, and lengths cover the range") {
  for (bool rev : {true, false}) {
    auto t = make_task(rev ? "reverse" : "copy", TaskOptions{3, 9});
    CHECK(t->src_vocab().size() == 24);
    std::set<std::size_t> lengths;
    for (const auto& e : sample_n(*t, 5, 2000)) {
      const int n = int(e.src.size());
      lengths.insert(n);
      Words want = e.src;
      if (rev) std::reverse(want.begin(), want.end());
      REQUIRE(e.tgt == want);
      REQUIRE(int(e.align.size()) == n);
      for (int j = 0; j < n; ++j) REQUIRE(e.align[j] == std::make_pair(rev ? n - 1 - j : j, j));
    }
    CHECK(lengths == std::set<std::size_t>{3, 4, 5, 6, 7, 8, 9});
  }
  std::set<std::size_t> lengths;
  for (const auto& e : sample_n(*make_task("copy"), 3, 5000)) lengths.insert(e.src.size());
  CHECK(lengths.size() == 60);
  CHECK(*lengths.begin() == 1);
  CHECK(*lengths.rbegin() == 60);
  CHECK(contains(error_of([] { make_task("reverse", TaskOptions{0, 5}); }), "min_len 0"));
  CHECK(contains(error_of([] { make_task("copy", TaskOptions{5, 4}); }), "max_len 4"));
  CHECK(contains(error_of([] { make_task("copy", TaskOptions{1, 5000}); }), "5000"));
}

TEST_CASE("tsv: parses, builds the vocab from the data, samples every line") {
  auto t = make_tsv_task("hello world\t안녕 세계\r\ngood morning\t좋은 아침\n\nhello\t안녕\n", TokenizerKind::Word);
  CHECK(t->name() == "tsv");
  CHECK(t->tokenizer() == TokenizerKind::Word);
  CHECK(t->src_vocab() == Words{"<pad>", "<s>", "</s>", "<unk>", "good", "hello", "morning", "world"});
  CHECK(t->tgt_vocab() == Words{"<pad>", "<s>", "</s>", "<unk>", "세계", "아침", "안녕", "좋은"});
  std::set<std::string> seen;
  for (const auto& e : check_task(*t, 300)) {
    CHECK(e.align.empty());
    seen.insert(join(e.src, " ") + "|" + join(e.tgt, " "));
  }
  CHECK(seen == std::set<std::string>{"hello world|안녕 세계", "good morning|좋은 아침", "hello|안녕"});

  // A third column (manythings.org / Tatoeba attribution) is ignored.
  auto three = make_tsv_task("Go.\tVa !\tCC-BY 2.0 (France)\n", TokenizerKind::Word);
  CHECK(three->tgt_vocab() == Words{"<pad>", "<s>", "</s>", "<unk>", "!", "Va"});
  CHECK(contains(error_of([] { make_tsv_task("Go.\t\tCC-BY\n", TokenizerKind::Word); }), "line 1: empty target"));

  auto c = make_tsv_task("ab\t가나", TokenizerKind::Char);
  Rng rng(0);
  CHECK(c->sample(rng).tgt == Words{"가", "나"});
  CHECK(c->src_vocab().size() == 6);
}

TEST_CASE("tsv: bad lines are refused with their line number") {
  auto err = [](const std::string& text, TokenizerKind k = TokenizerKind::Word) {
    return error_of([&] { make_tsv_task(text, k); });
  };
  CHECK(contains(err("a\tb\nno tab here\n"), "line 2: no tab"));
  CHECK(contains(err("a\tb\nc\td\n\t x\n"), "line 3: empty source"));
  CHECK(contains(err("a\tb\nc\t   \n"), "line 2: empty target"));
  CHECK(contains(err("a\tb\nc\t\n", TokenizerKind::Char), "line 2: empty target"));
  CHECK(contains(err("a\tb\nok\tfine\nbad \xff\tx\n"), "line 3: source: invalid UTF-8 at byte 4"));
  CHECK(contains(err(""), "no examples"));
  CHECK(contains(err("a\tb", TokenizerKind::Ids), "char or word"));
  std::string many;
  for (int i = 0; i <= kMaxTsvLines; ++i) many += "a\tb\n";
  CHECK(contains(err(many), "1000001 lines"));
}
