// `dates`: a human-written date between 1950-01-01 and 2049-12-31 in one of kDateFormats formats and
// one of kDateCases letter cases -> the ISO date "YYYY-MM-DD", both as characters. Gold links join
// each target digit to the source characters that determine it (year digits, month digits or month
// name, day digits); the '-' separators, weekdays, ordinal suffixes and filler words link to nothing.
// Conventions (slashes month first, dots/dashes day first, year first Y-M-D): docs/tasks.md.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "train/tasks.hpp"

namespace attnseq::train {
namespace {

constexpr int kFirstYear = 1950, kLastYear = 2049;  // two-digit years: 50..99 -> 19YY, 00..49 -> 20YY

const char* const kMonths[12] = {"January", "February", "March",     "April",   "May",      "June",
                                 "July",    "August",   "September", "October", "November", "December"};
const char* const kWeekdays[7] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

// Each format's name is also its pattern, which render_date writes: Weekday / Wkd (full and three-letter
// weekday), Month / Mon / mon (month name, three letters, three in lower case), YYYY / YY, MM / M
// (month with two digits or as few as it takes), DD / D (likewise the day), Dth (the day with its
// ordinal suffix); any other character, "the" and "of" included, is written as it stands.
const char* const kFormatNames[kDateFormats] = {
    "D Month YYYY",            // 3 March 2018
    "Month Dth, YYYY",         // March 3rd, 2018
    "Weekday, Month D, YYYY",  // Saturday, March 3, 2018
    "MM/DD/YY",                // 03/03/18
    "YYYY.MM.DD",              // 2018.03.03
    "D mon YY",                // 3 mar 18
    "D Mon YYYY",              // 3 Mar 2018
    "Month D YYYY",            // March 3 2018
    "M/D/YYYY",                // 3/3/2018
    "Wkd D Mon YYYY",          // Sat 3 Mar 2018
    "YYYY-M-D",                // 2018-3-3
    "the Dth of Month, YYYY",  // the 3rd of March, 2018
    "Mon D, YYYY",             // Mar 3, 2018
    "YYYYMMDD",                // 20180303
    "Dth Month YYYY",          // 3rd March 2018
    "DD-Mon-YYYY",             // 03-Mar-2018
    // Day first when the separators are dots or dashes and the year comes last (European use).
    "DD.MM.YYYY",  // 03.03.2018
    "D.M.YYYY",    // 3.3.2018
    "DD-MM-YYYY",  // 03-03-2018
    "D-M-YYYY",    // 3-3-2018
    "DD.MM.YY",    // 03.03.18
    "D-M-YY",      // 3-3-18
    // Year first is always year-month-day.
    "YYYY-MM-DD",  // 2018-03-03
    "YYYY.M.D",    // 2018.3.3
    "YYYY/MM/DD",  // 2018/03/03
    // Slashes with the year last stay month first (US).
    "MM/DD/YYYY",  // 03/03/2018
    "M/D/YY",      // 3/3/18
    "MMDDYY",      // 030318
    // Month names without spaces, commas, ordinals or weekdays, and with them in other places.
    "DDMonYYYY",                // 03Mar2018
    "DmonYY",                   // 3mar18
    "Mon D YYYY",               // Mar 3 2018
    "Month D, YYYY",            // March 3, 2018
    "Wkd, Mon D, YYYY",         // Sat, Mar 3, 2018
    "Dth Mon YYYY",             // 3rd Mar 2018
    "Weekday D Month YYYY",     // Saturday 3 March 2018
    "Mon Dth YYYY",             // Mar 3rd 2018
    "DD Mon YY",                // 03 Mar 18
    "Weekday, Dth Month YYYY",  // Saturday, 3rd March 2018
    "DMonthYYYY",               // 3March2018
    "Month Dth YYYY",           // March 3rd 2018
    // The other year width and day padding of every format above that names the month, and two-digit
    // years for the day-first numeric formats that lacked them (docs/tasks.md, "Formats": what people
    // write; issue 23 found `JAN 05 28` misread when no format put a two-digit year after a month name).
    "D Month YY",               // 3 March 18
    "DD Month YYYY",            // 03 March 2018
    "DD Month YY",              // 03 March 18
    "Month Dth, YY",            // March 3rd, 18
    "Weekday, Month D, YY",     // Saturday, March 3, 18
    "Weekday, Month DD, YYYY",  // Saturday, March 03, 2018
    "Weekday, Month DD, YY",    // Saturday, March 03, 18
    "D mon YYYY",               // 3 mar 2018
    "DD mon YY",                // 03 mar 18
    "DD mon YYYY",              // 03 mar 2018
    "D Mon YY",                 // 3 Mar 18
    "DD Mon YYYY",              // 03 Mar 2018
    "Month D YY",               // March 3 18
    "Month DD YYYY",            // March 03 2018
    "Month DD YY",              // March 03 18
    "Wkd D Mon YY",             // Sat 3 Mar 18
    "Wkd DD Mon YYYY",          // Sat 03 Mar 2018
    "Wkd DD Mon YY",            // Sat 03 Mar 18
    "the Dth of Month, YY",     // the 3rd of March, 18
    "Mon D, YY",                // Mar 3, 18
    "Mon DD, YYYY",             // Mar 03, 2018
    "Mon DD, YY",               // Mar 03, 18
    "Dth Month YY",             // 3rd March 18
    "DD-Mon-YY",                // 03-Mar-18
    "D-Mon-YYYY",               // 3-Mar-2018
    "D-Mon-YY",                 // 3-Mar-18
    "D.M.YY",                   // 3.3.18
    "DD-MM-YY",                 // 03-03-18
    "DDMonYY",                  // 03Mar18
    "DMonYYYY",                 // 3Mar2018
    "DMonYY",                   // 3Mar18
    "DmonYYYY",                 // 3mar2018
    "DDmonYY",                  // 03mar18
    "DDmonYYYY",                // 03mar2018
    "Mon D YY",                 // Mar 3 18
    "Mon DD YYYY",              // Mar 03 2018
    "Mon DD YY",                // Mar 03 18
    "Month D, YY",              // March 3, 18
    "Month DD, YYYY",           // March 03, 2018
    "Month DD, YY",             // March 03, 18
    "Wkd, Mon D, YY",           // Sat, Mar 3, 18
    "Wkd, Mon DD, YYYY",        // Sat, Mar 03, 2018
    "Wkd, Mon DD, YY",          // Sat, Mar 03, 18
    "Dth Mon YY",               // 3rd Mar 18
    "Weekday D Month YY",       // Saturday 3 March 18
    "Weekday DD Month YYYY",    // Saturday 03 March 2018
    "Weekday DD Month YY",      // Saturday 03 March 18
    "Mon Dth YY",               // Mar 3rd 18
    "Weekday, Dth Month YY",    // Saturday, 3rd March 18
    "DMonthYY",                 // 3March18
    "DDMonthYYYY",              // 03March2018
    "DDMonthYY",                // 03March18
    "Month Dth YY",             // March 3rd 18
};
const char* const kCaseNames[kDateCases] = {"as written", "lower case", "upper case"};

// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms).
int days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(int z, int& y, int& m, int& d) {
  z += 719468;
  const int era = (z >= 0 ? z : z - 146096) / 146097;
  const int doe = z - era * 146097;
  const int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = yoe + era * 400 + (m <= 2);
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
int days_in_month(int y, int m) {
  static const int n[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : n[m - 1];
}

std::string two(int v) { return std::string(1, char('0' + v / 10)) + char('0' + v % 10); }
std::string ordinal_suffix(int d) {
  if (d >= 11 && d <= 13) return "th";
  switch (d % 10) {
    case 1: return "st";
    case 2: return "nd";
    case 3: return "rd";
    default: return "th";
  }
}
std::string lower(std::string s) {
  for (auto& c : s) c = char(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return s;
}
std::string upper(std::string s) {
  for (auto& c : s) c = char(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

// Writes the source left to right and remembers where the year, month and day characters went.
struct Writer {
  std::string text;  // ASCII only, so byte position = character position
  std::vector<int> year, month, day;
  bool month_is_name = false;
  void lit(const std::string& s) { text += s; }
  void put(std::vector<int>& where, const std::string& s) {
    for (char c : s) {
      where.push_back(int(text.size()));
      text += c;
    }
  }
  void year4(int y) { put(year, std::to_string(y)); }
  void year2(int y) { put(year, two(y % 100)); }
  void month_name(const std::string& s) {
    month_is_name = true;
    put(month, s);
  }
};

// Links a target digit pair (positions t, t+1) to the source digits of a number written with 1 or 2
// digits: 2 digits link one to one; 1 digit ("3") determines both target digits ("03").
void link_pair(std::vector<std::pair<int, int>>& a, const std::vector<int>& src, int t, bool whole) {
  if (whole || src.size() == 1) {
    for (int k = 0; k < 2; ++k)
      for (int s : src) a.emplace_back(s, t + k);
  } else {
    a.emplace_back(src[0], t);
    a.emplace_back(src[1], t + 1);
  }
}

}  // namespace

const char* date_format_name(int format) {
  if (format < 0 || format >= kDateFormats)
    throw std::invalid_argument("date format " + std::to_string(format) + " outside 0.." +
                                std::to_string(kDateFormats - 1));
  return kFormatNames[format];
}

bool date_format_has_letters(int format) {
  const std::string name = lower(date_format_name(format));
  return name.find("mon") != std::string::npos;  // "Month", "Mon" or "mon"; no other name has "mon"
}

std::string date_form_name(int format, int letter_case) {
  if (letter_case < 0 || letter_case >= kDateCases)
    throw std::invalid_argument("letter case " + std::to_string(letter_case) + " outside 0.." +
                                std::to_string(kDateCases - 1));
  std::string name = date_format_name(format);
  if (letter_case != 0 && date_format_has_letters(format)) name += std::string(", ") + kCaseNames[letter_case];
  return name;
}

bool is_calendar_date(const std::string& iso) {
  if (iso.size() != 10 || iso[4] != '-' || iso[7] != '-') return false;
  for (int k : {0, 1, 2, 3, 5, 6, 8, 9})
    if (iso[k] < '0' || iso[k] > '9') return false;
  const int y = std::stoi(iso.substr(0, 4)), m = std::stoi(iso.substr(5, 2)), d = std::stoi(iso.substr(8, 2));
  return m >= 1 && m <= 12 && d >= 1 && d <= days_in_month(y, m);
}

int weekday(int year, int month, int day) {
  const int z = days_from_civil(year, month, day);  // 1970-01-01 was a Thursday (3 with Monday = 0)
  return ((z % 7) + 7 + 3) % 7;
}

Example render_date(int y, int m, int d, int format, int letter_case) {
  date_form_name(format, letter_case);  // validates both
  if (y < kFirstYear || y > kLastYear || m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
    throw std::invalid_argument("date " + std::to_string(y) + "-" + std::to_string(m) + "-" + std::to_string(d) +
                                " is not a valid date between 1950-01-01 and 2049-12-31");
  const std::string month = kMonths[m - 1], mon = month.substr(0, 3);
  const std::string wday = kWeekdays[weekday(y, m, d)], wkd = wday.substr(0, 3);
  const std::string ds = std::to_string(d), ms = std::to_string(m);
  // The format's name is its pattern (kFormatNames).
  Writer w;
  const std::string_view pattern = kFormatNames[format];
  for (std::size_t at = 0; at < pattern.size();) {
    auto field = [&](const char* f) {
      const std::size_t n = std::char_traits<char>::length(f);
      if (pattern.compare(at, n, f) != 0) return false;
      at += n;
      return true;
    };
    // Longer fields first: "Month" before "Mon", "YYYY" before "YY", "Dth" and "DD" before "D".
    if (field("Weekday"))
      w.lit(wday);
    else if (field("Wkd"))
      w.lit(wkd);
    else if (field("Month"))
      w.month_name(month);
    else if (field("Mon"))
      w.month_name(mon);
    else if (field("mon"))
      w.month_name(lower(mon));
    else if (field("YYYY"))
      w.year4(y);
    else if (field("YY"))
      w.year2(y);
    else if (field("MM"))
      w.put(w.month, two(m));
    else if (field("M"))
      w.put(w.month, ms);
    else if (field("Dth"))
      w.put(w.day, ds), w.lit(ordinal_suffix(d));
    else if (field("DD"))
      w.put(w.day, two(d));
    else if (field("D"))
      w.put(w.day, ds);
    else
      w.lit(std::string(1, pattern[at++]));  // a separator, or "the" and "of"
  }
  // Letter case applies to the whole source (month, weekday, ordinal suffix, "the"/"of") and moves
  // no character, so the alignment positions stay as written.
  if (letter_case == 1) w.text = lower(w.text);
  if (letter_case == 2) w.text = upper(w.text);

  Example e;
  for (char c : w.text) e.src.emplace_back(1, c);
  const std::string iso = std::to_string(y) + "-" + two(m) + "-" + two(d);
  for (char c : iso) e.tgt.emplace_back(1, c);
  // Year: four digits link one to one; two digits "18" link to target "1","8", and the implied
  // century "20" (or "19") links to both source digits, which are what determine it.
  if (w.year.size() == 4) {
    for (int k = 0; k < 4; ++k) e.align.emplace_back(w.year[k], k);
  } else {
    link_pair(e.align, w.year, 0, true);
    link_pair(e.align, w.year, 2, false);
  }
  link_pair(e.align, w.month, 5, w.month_is_name);  // a month name links to both month digits
  link_pair(e.align, w.day, 8, false);
  std::sort(e.align.begin(), e.align.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  return e;
}

DateSample sample_date(Rng& rng) {
  static const int first = days_from_civil(kFirstYear, 1, 1), last = days_from_civil(kLastYear, 12, 31);
  DateSample s;
  civil_from_days(first + int(uniform_index(rng, std::size_t(last - first + 1))), s.year, s.month, s.day);
  s.format = int(uniform_index(rng, kDateFormats));
  // Drawn for every format (numeric ones ignore it) so the draws per example are always three.
  s.letter_case = int(uniform_index(rng, kDateCases));
  s.example = render_date(s.year, s.month, s.day, s.format, s.letter_case);
  return s;
}

namespace {

class DatesTask final : public Task {
 public:
  std::string name() const override { return "dates"; }
  TokenizerKind tokenizer() const override { return TokenizerKind::Char; }
  Example sample(Rng& rng) const override { return sample_date(rng).example; }

  // Every character any format can write in any letter case: digits, punctuation, and the letters
  // of the month and weekday names, ordinal suffixes and "the ... of", in lower and upper case.
  std::vector<std::string> src_vocab() const override {
    std::vector<std::string> pieces = {"0123456789", " ,./-", "st nd rd th", "the of"};
    for (const char* m : kMonths) pieces.push_back(m);
    for (const char* d : kWeekdays) pieces.push_back(d);
    for (std::size_t k = 2, n = pieces.size(); k < n; ++k) {
      pieces.push_back(lower(pieces[k]));
      pieces.push_back(upper(pieces[k]));
    }
    std::vector<std::string> chars;
    for (const auto& p : pieces)
      for (char c : p) chars.emplace_back(1, c);
    return make_vocab(std::move(chars));
  }
  std::vector<std::string> tgt_vocab() const override {
    return make_vocab({"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-"});
  }
};

}  // namespace

std::unique_ptr<Task> make_dates_task() { return std::make_unique<DatesTask>(); }

}  // namespace attnseq::train
