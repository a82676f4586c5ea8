// The Moses pipeline (moses.hpp), one part per script. Each Perl substitution s/A/B/g is one pass from left to
// right in which a character serves one match only, as in Perl: English "a'b'c" becomes a 'b'c, since the b that
// the first match took cannot begin a second. normalize-punctuation.perl reads bytes (it sets no UTF-8 layer), so
// it runs on the UTF-8 bytes here too; lowercase.perl and tokenizer.perl read characters.
#include "train/moses.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>

#include "train/text_units.hpp"

namespace attnseq::train {
namespace {

enum class Lang { kEn, kDe, kFr };

Lang parse_lang(const std::string& lang) {
  if (lang == "en") return Lang::kEn;
  if (lang == "de") return Lang::kDe;
  if (lang == "fr") return Lang::kFr;
  throw std::invalid_argument("moses: unknown language '" + lang + "' (en, de or fr)");
}

// One pass of s/(L)MID(R)/$1WITH$2/g, where L and R each match one character that satisfies them (nullptr: no
// such character in the pattern) and MID is literal and not empty. Trying MID's occurrences in order is trying
// the match's possible starts in order, as the regex engine does.
template <class C>
std::basic_string<C> substitute(std::basic_string_view<C> s, bool (*left)(C), std::basic_string_view<C> mid,
                                bool (*right)(C), std::basic_string_view<C> with) {
  const std::size_t l = left ? 1 : 0, r = right ? 1 : 0;
  std::basic_string<C> out;
  std::size_t done = 0;  // s[0, done) is in out
  for (std::size_t at = s.find(mid, l); at != s.npos && at + mid.size() + r <= s.size(); at = s.find(mid, at + 1)) {
    const std::size_t start = at - l, end = at + mid.size() + r;
    if (start < done || (left && !left(s[start])) || (right && !right(s[end - 1]))) continue;
    if (out.empty()) out.reserve(s.size() + 16);
    out.append(s.substr(done, at - done));
    out.append(with);
    if (right) out += s[end - 1];
    done = end;
  }
  if (done == 0) return std::basic_string<C>(s);
  out.append(s.substr(done));
  return out;
}

// s/ +/ /g
template <class C>
std::basic_string<C> squeeze_spaces(std::basic_string_view<C> s) {
  std::basic_string<C> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == C(' ') && i > 0 && s[i - 1] == C(' '))) out += s[i];
  return out;
}

// ---- Unicode as Perl sees it --------------------------------------------------------------------------------

// The tokenizer's character classes as bits: \p{IsAlpha} (Unicode's Alphabetic), \p{IsAlnum} (Alphabetic or a
// decimal digit), \p{IsN} (any number: 7, ², ½, Ⅻ) and \p{IsLower} (Unicode's Lowercase).
constexpr std::uint8_t kAlpha = 1, kDigit = 2, kNumber = 4, kLower = 8;

// Code points first..last have the classes `even` at even offsets from first and `odd` at odd ones (which folds
// the alternating capital and small letters of Latin Extended and Cyrillic into one row): 9 a lowercase letter,
// 1 another letter, 6 a decimal digit, 4 another number, and a code point in no row 0. Derived from Unicode 14's
// properties as Perl 5.36 reports them, for U+0000-U+052F (Basic Latin to Cyrillic Supplement), U+1D00-U+1FFF
// (Phonetic Extensions to Greek Extended), U+2000-U+218F (General Punctuation to Number Forms) and U+2C60-U+2C7F
// (Latin Extended-C), which hold the lowercase of every capital among them. A code point beyond these blocks is
// taken for a symbol, in none of the classes, which the tokenizer splits off on its own: what Perl does with the
// symbols and emoji that meet English, German and French text, but not with the letters of other scripts (Perl
// keeps a run of CJK characters whole), which neither the Multi30K data nor a model trained on it has.
struct ClassRun {
  char32_t first, last;
  std::uint8_t even, odd;
};
constexpr ClassRun kClassRuns[] = {
    {0x0030, 0x0039, 6, 6}, {0x0041, 0x005A, 1, 1}, {0x0061, 0x007A, 9, 9}, {0x00AA, 0x00AA, 9, 9},
    {0x00B2, 0x00B3, 4, 4}, {0x00B5, 0x00B5, 9, 9}, {0x00B9, 0x00B9, 4, 4}, {0x00BA, 0x00BA, 9, 9},
    {0x00BC, 0x00BE, 4, 4}, {0x00C0, 0x00D6, 1, 1}, {0x00D8, 0x00DE, 1, 1}, {0x00DF, 0x00F6, 9, 9},
    {0x00F8, 0x00FF, 9, 9}, {0x0100, 0x0137, 1, 9}, {0x0138, 0x0148, 9, 1}, {0x0149, 0x0178, 9, 1},
    {0x0179, 0x017E, 1, 9}, {0x017F, 0x0180, 9, 9}, {0x0181, 0x0182, 1, 1}, {0x0183, 0x0186, 9, 1},
    {0x0187, 0x0187, 1, 1}, {0x0188, 0x0188, 9, 9}, {0x0189, 0x018B, 1, 1}, {0x018C, 0x018D, 9, 9},
    {0x018E, 0x0191, 1, 1}, {0x0192, 0x0192, 9, 9}, {0x0193, 0x0194, 1, 1}, {0x0195, 0x0195, 9, 9},
    {0x0196, 0x0198, 1, 1}, {0x0199, 0x019B, 9, 9}, {0x019C, 0x019D, 1, 1}, {0x019E, 0x019E, 9, 9},
    {0x019F, 0x01A0, 1, 1}, {0x01A1, 0x01A6, 9, 1}, {0x01A7, 0x01AA, 1, 9}, {0x01AB, 0x01AE, 9, 1},
    {0x01AF, 0x01AF, 1, 1}, {0x01B0, 0x01B0, 9, 9}, {0x01B1, 0x01B3, 1, 1}, {0x01B4, 0x01B7, 9, 1},
    {0x01B8, 0x01B8, 1, 1}, {0x01B9, 0x01BA, 9, 9}, {0x01BB, 0x01BC, 1, 1}, {0x01BD, 0x01BF, 9, 9},
    {0x01C0, 0x01C5, 1, 1}, {0x01C6, 0x01C6, 9, 9}, {0x01C7, 0x01C8, 1, 1}, {0x01C9, 0x01C9, 9, 9},
    {0x01CA, 0x01CB, 1, 1}, {0x01CC, 0x01DC, 9, 1}, {0x01DD, 0x01EF, 9, 1}, {0x01F0, 0x01F0, 9, 9},
    {0x01F1, 0x01F2, 1, 1}, {0x01F3, 0x01F6, 9, 1}, {0x01F7, 0x01F8, 1, 1}, {0x01F9, 0x0233, 9, 1},
    {0x0234, 0x0239, 9, 9}, {0x023A, 0x023B, 1, 1}, {0x023C, 0x023C, 9, 9}, {0x023D, 0x023E, 1, 1},
    {0x023F, 0x0240, 9, 9}, {0x0241, 0x0241, 1, 1}, {0x0242, 0x0242, 9, 9}, {0x0243, 0x0246, 1, 1},
    {0x0247, 0x024F, 9, 1}, {0x0250, 0x0293, 9, 9}, {0x0294, 0x0294, 1, 1}, {0x0295, 0x02B8, 9, 9},
    {0x02B9, 0x02BF, 1, 1}, {0x02C0, 0x02C1, 9, 9}, {0x02C6, 0x02D1, 1, 1}, {0x02E0, 0x02E4, 9, 9},
    {0x02EC, 0x02EF, 1, 0}, {0x0345, 0x0345, 9, 9}, {0x0370, 0x0374, 1, 9}, {0x0376, 0x0376, 1, 1},
    {0x0377, 0x0377, 9, 9}, {0x037A, 0x037D, 9, 9}, {0x037F, 0x037F, 1, 1}, {0x0386, 0x0386, 1, 1},
    {0x0388, 0x038A, 1, 1}, {0x038B, 0x038E, 0, 1}, {0x038F, 0x038F, 1, 1}, {0x0390, 0x0390, 9, 9},
    {0x0391, 0x03A1, 1, 1}, {0x03A3, 0x03AB, 1, 1}, {0x03AC, 0x03CE, 9, 9}, {0x03CF, 0x03CF, 1, 1},
    {0x03D0, 0x03D1, 9, 9}, {0x03D2, 0x03D4, 1, 1}, {0x03D5, 0x03D7, 9, 9}, {0x03D8, 0x03EF, 1, 9},
    {0x03F0, 0x03F3, 9, 9}, {0x03F4, 0x03F4, 1, 1}, {0x03F5, 0x03F5, 9, 9}, {0x03F7, 0x03F7, 1, 1},
    {0x03F8, 0x03F8, 9, 9}, {0x03F9, 0x03FA, 1, 1}, {0x03FB, 0x03FC, 9, 9}, {0x03FD, 0x042F, 1, 1},
    {0x0430, 0x045F, 9, 9}, {0x0460, 0x0481, 1, 9}, {0x048A, 0x04C0, 1, 9}, {0x04C1, 0x04CE, 1, 9},
    {0x04CF, 0x052F, 9, 1}, {0x1D00, 0x1DBF, 9, 9}, {0x1DE7, 0x1DF4, 1, 1}, {0x1E00, 0x1E95, 1, 9},
    {0x1E96, 0x1E9D, 9, 9}, {0x1E9E, 0x1EFF, 1, 9}, {0x1F00, 0x1F07, 9, 9}, {0x1F08, 0x1F0F, 1, 1},
    {0x1F10, 0x1F15, 9, 9}, {0x1F18, 0x1F1D, 1, 1}, {0x1F20, 0x1F27, 9, 9}, {0x1F28, 0x1F2F, 1, 1},
    {0x1F30, 0x1F37, 9, 9}, {0x1F38, 0x1F3F, 1, 1}, {0x1F40, 0x1F45, 9, 9}, {0x1F48, 0x1F4D, 1, 1},
    {0x1F50, 0x1F57, 9, 9}, {0x1F58, 0x1F5F, 0, 1}, {0x1F60, 0x1F67, 9, 9}, {0x1F68, 0x1F6F, 1, 1},
    {0x1F70, 0x1F7D, 9, 9}, {0x1F80, 0x1F87, 9, 9}, {0x1F88, 0x1F8F, 1, 1}, {0x1F90, 0x1F97, 9, 9},
    {0x1F98, 0x1F9F, 1, 1}, {0x1FA0, 0x1FA7, 9, 9}, {0x1FA8, 0x1FAF, 1, 1}, {0x1FB0, 0x1FB4, 9, 9},
    {0x1FB6, 0x1FB7, 9, 9}, {0x1FB8, 0x1FBC, 1, 1}, {0x1FBE, 0x1FBE, 9, 9}, {0x1FC2, 0x1FC4, 9, 9},
    {0x1FC6, 0x1FC7, 9, 9}, {0x1FC8, 0x1FCC, 1, 1}, {0x1FD0, 0x1FD3, 9, 9}, {0x1FD6, 0x1FD7, 9, 9},
    {0x1FD8, 0x1FDB, 1, 1}, {0x1FE0, 0x1FE7, 9, 9}, {0x1FE8, 0x1FEC, 1, 1}, {0x1FF2, 0x1FF4, 9, 9},
    {0x1FF6, 0x1FF7, 9, 9}, {0x1FF8, 0x1FFC, 1, 1}, {0x2070, 0x2070, 4, 4}, {0x2071, 0x2071, 9, 9},
    {0x2074, 0x2079, 4, 4}, {0x207F, 0x207F, 9, 9}, {0x2080, 0x2089, 4, 4}, {0x2090, 0x209C, 9, 9},
    {0x2102, 0x2102, 1, 1}, {0x2107, 0x2107, 1, 1}, {0x210A, 0x210A, 9, 9}, {0x210B, 0x210D, 1, 1},
    {0x210E, 0x210F, 9, 9}, {0x2110, 0x2112, 1, 1}, {0x2113, 0x2113, 9, 9}, {0x2115, 0x2115, 1, 1},
    {0x2119, 0x211D, 1, 1}, {0x2124, 0x212A, 1, 0}, {0x212B, 0x212D, 1, 1}, {0x212F, 0x212F, 9, 9},
    {0x2130, 0x2133, 1, 1}, {0x2134, 0x2134, 9, 9}, {0x2135, 0x2138, 1, 1}, {0x2139, 0x2139, 9, 9},
    {0x213C, 0x213D, 9, 9}, {0x213E, 0x213F, 1, 1}, {0x2145, 0x2145, 1, 1}, {0x2146, 0x2149, 9, 9},
    {0x214E, 0x214E, 9, 9}, {0x2150, 0x215F, 4, 4}, {0x2160, 0x216F, 5, 5}, {0x2170, 0x217F, 13, 13},
    {0x2180, 0x2182, 5, 5}, {0x2183, 0x2183, 1, 1}, {0x2184, 0x2184, 9, 9}, {0x2185, 0x2188, 5, 5},
    {0x2189, 0x2189, 4, 4}, {0x2C60, 0x2C60, 1, 1}, {0x2C61, 0x2C61, 9, 9}, {0x2C62, 0x2C64, 1, 1},
    {0x2C65, 0x2C66, 9, 9}, {0x2C67, 0x2C6D, 1, 9}, {0x2C6E, 0x2C70, 1, 1}, {0x2C71, 0x2C71, 9, 9},
    {0x2C72, 0x2C72, 1, 1}, {0x2C73, 0x2C74, 9, 9}, {0x2C75, 0x2C75, 1, 1}, {0x2C76, 0x2C7D, 9, 9},
    {0x2C7E, 0x2C7F, 1, 1}};

std::uint8_t char_class(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9' ? 6 : c >= 'a' && c <= 'z' ? 9 : c >= 'A' && c <= 'Z' ? 1 : 0;
  const auto* run = std::upper_bound(std::begin(kClassRuns), std::end(kClassRuns), c,
                                     [](char32_t v, const ClassRun& r) { return v < r.first; });
  if (run == std::begin(kClassRuns)) return 0;
  --run;
  if (c > run->last) return 0;
  return (c - run->first) % 2 == 0 ? run->even : run->odd;
}

// Perl's lc: every `stride`-th code point from first to last lowercases to itself plus delta. Derived from Perl
// 5.36's lc for the same blocks as kClassRuns (elsewhere a character is kept as it is); U+0130, a capital I with
// a dot, alone lowercases to two characters, i and a combining dot above.
struct CaseRun {
  char32_t first, last;
  std::int32_t delta;
  std::uint32_t stride;
};
constexpr CaseRun kLowerRuns[] = {
    {0x0041, 0x005A, 32, 1},     {0x00C0, 0x00D6, 32, 1},     {0x00D8, 0x00DE, 32, 1},     {0x0100, 0x012E, 1, 2},
    {0x0132, 0x0136, 1, 2},      {0x0139, 0x0147, 1, 2},      {0x014A, 0x0176, 1, 2},      {0x0178, 0x0178, -121, 1},
    {0x0179, 0x017D, 1, 2},      {0x0181, 0x0181, 210, 1},    {0x0182, 0x0184, 1, 2},      {0x0186, 0x0186, 206, 1},
    {0x0187, 0x0187, 1, 1},      {0x0189, 0x018A, 205, 1},    {0x018B, 0x018B, 1, 1},      {0x018E, 0x018E, 79, 1},
    {0x018F, 0x018F, 202, 1},    {0x0190, 0x0190, 203, 1},    {0x0191, 0x0191, 1, 1},      {0x0193, 0x0193, 205, 1},
    {0x0194, 0x0194, 207, 1},    {0x0196, 0x0196, 211, 1},    {0x0197, 0x0197, 209, 1},    {0x0198, 0x0198, 1, 1},
    {0x019C, 0x019C, 211, 1},    {0x019D, 0x019D, 213, 1},    {0x019F, 0x019F, 214, 1},    {0x01A0, 0x01A4, 1, 2},
    {0x01A6, 0x01A6, 218, 1},    {0x01A7, 0x01A7, 1, 1},      {0x01A9, 0x01A9, 218, 1},    {0x01AC, 0x01AC, 1, 1},
    {0x01AE, 0x01AE, 218, 1},    {0x01AF, 0x01AF, 1, 1},      {0x01B1, 0x01B2, 217, 1},    {0x01B3, 0x01B5, 1, 2},
    {0x01B7, 0x01B7, 219, 1},    {0x01B8, 0x01B8, 1, 1},      {0x01BC, 0x01BC, 1, 1},      {0x01C4, 0x01C4, 2, 1},
    {0x01C5, 0x01C5, 1, 1},      {0x01C7, 0x01C7, 2, 1},      {0x01C8, 0x01C8, 1, 1},      {0x01CA, 0x01CA, 2, 1},
    {0x01CB, 0x01DB, 1, 2},      {0x01DE, 0x01EE, 1, 2},      {0x01F1, 0x01F1, 2, 1},      {0x01F2, 0x01F4, 1, 2},
    {0x01F6, 0x01F6, -97, 1},    {0x01F7, 0x01F7, -56, 1},    {0x01F8, 0x021E, 1, 2},      {0x0220, 0x0220, -130, 1},
    {0x0222, 0x0232, 1, 2},      {0x023A, 0x023A, 10795, 1},  {0x023B, 0x023B, 1, 1},      {0x023D, 0x023D, -163, 1},
    {0x023E, 0x023E, 10792, 1},  {0x0241, 0x0241, 1, 1},      {0x0243, 0x0243, -195, 1},   {0x0244, 0x0244, 69, 1},
    {0x0245, 0x0245, 71, 1},     {0x0246, 0x024E, 1, 2},      {0x0370, 0x0372, 1, 2},      {0x0376, 0x0376, 1, 1},
    {0x037F, 0x037F, 116, 1},    {0x0386, 0x0386, 38, 1},     {0x0388, 0x038A, 37, 1},     {0x038C, 0x038C, 64, 1},
    {0x038E, 0x038F, 63, 1},     {0x0391, 0x03A1, 32, 1},     {0x03A3, 0x03AB, 32, 1},     {0x03CF, 0x03CF, 8, 1},
    {0x03D8, 0x03EE, 1, 2},      {0x03F4, 0x03F4, -60, 1},    {0x03F7, 0x03F7, 1, 1},      {0x03F9, 0x03F9, -7, 1},
    {0x03FA, 0x03FA, 1, 1},      {0x03FD, 0x03FF, -130, 1},   {0x0400, 0x040F, 80, 1},     {0x0410, 0x042F, 32, 1},
    {0x0460, 0x0480, 1, 2},      {0x048A, 0x04BE, 1, 2},      {0x04C0, 0x04C0, 15, 1},     {0x04C1, 0x04CD, 1, 2},
    {0x04D0, 0x052E, 1, 2},      {0x1E00, 0x1E94, 1, 2},      {0x1E9E, 0x1E9E, -7615, 1},  {0x1EA0, 0x1EFE, 1, 2},
    {0x1F08, 0x1F0F, -8, 1},     {0x1F18, 0x1F1D, -8, 1},     {0x1F28, 0x1F2F, -8, 1},     {0x1F38, 0x1F3F, -8, 1},
    {0x1F48, 0x1F4D, -8, 1},     {0x1F59, 0x1F5F, -8, 2},     {0x1F68, 0x1F6F, -8, 1},     {0x1F88, 0x1F8F, -8, 1},
    {0x1F98, 0x1F9F, -8, 1},     {0x1FA8, 0x1FAF, -8, 1},     {0x1FB8, 0x1FB9, -8, 1},     {0x1FBA, 0x1FBB, -74, 1},
    {0x1FBC, 0x1FBC, -9, 1},     {0x1FC8, 0x1FCB, -86, 1},    {0x1FCC, 0x1FCC, -9, 1},     {0x1FD8, 0x1FD9, -8, 1},
    {0x1FDA, 0x1FDB, -100, 1},   {0x1FE8, 0x1FE9, -8, 1},     {0x1FEA, 0x1FEB, -112, 1},   {0x1FEC, 0x1FEC, -7, 1},
    {0x1FF8, 0x1FF9, -128, 1},   {0x1FFA, 0x1FFB, -126, 1},   {0x1FFC, 0x1FFC, -9, 1},     {0x2126, 0x2126, -7517, 1},
    {0x212A, 0x212A, -8383, 1},  {0x212B, 0x212B, -8262, 1},  {0x2132, 0x2132, 28, 1},     {0x2160, 0x216F, 16, 1},
    {0x2183, 0x2183, 1, 1},      {0x2C60, 0x2C60, 1, 1},      {0x2C62, 0x2C62, -10743, 1}, {0x2C63, 0x2C63, -3814, 1},
    {0x2C64, 0x2C64, -10727, 1}, {0x2C67, 0x2C6B, 1, 2},      {0x2C6D, 0x2C6D, -10780, 1}, {0x2C6E, 0x2C6E, -10749, 1},
    {0x2C6F, 0x2C6F, -10783, 1}, {0x2C70, 0x2C70, -10782, 1}, {0x2C72, 0x2C72, 1, 1},      {0x2C75, 0x2C75, 1, 1},
    {0x2C7E, 0x2C7F, -10815, 1}};

void append_lower(char32_t c, std::u32string& out) {
  if (c == 0x130) {
    out += U'i';
    out += char32_t(0x307);
    return;
  }
  const auto* run = std::upper_bound(std::begin(kLowerRuns), std::end(kLowerRuns), c,
                                     [](char32_t v, const CaseRun& r) { return v < r.first; });
  if (run != std::begin(kLowerRuns)) {
    --run;
    if (c <= run->last && (c - run->first) % run->stride == 0) c = char32_t(std::int32_t(c) + run->delta);
  }
  out += c;
}

// ---- normalize-punctuation.perl, on bytes -------------------------------------------------------------------
// The script's non-ASCII characters are written as \u escapes: UTF-8 bytes in GCC's and Clang's narrow literals.

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }  // [a-z] under /i
// \s on bytes: ASCII white space only.
bool is_byte_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// en: s/"([,.]+)/$1"/g, a quote goes after the commas and periods that follow it.
std::string quote_after_punct(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i + 1;
    while (s[i] == '"' && j < s.size() && (s[j] == ',' || s[j] == '.')) ++j;
    if (j > i + 1) {
      out.append(s.substr(i + 1, j - i - 1));
      out += '"';
      i = j;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// de, fr: s/(\.+)"(\s*[^<])/"$1$2/g, a quote goes before the periods in front of it unless a '<' or the end of
// the text follows it at once. The \s* backs off to let [^<] take its last space, so the line's own "\n" counts
// as that character: a period and a quote at the end of a line swap too, whatever the script's comment says.
std::string quote_before_periods(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '.') {
      out += s[i++];
      continue;
    }
    std::size_t q = i;  // the periods are i..q-1; a match starting inside them would meet the same quote
    while (q < s.size() && s[q] == '.') ++q;
    std::size_t end = std::string_view::npos;
    if (q < s.size() && s[q] == '"') {
      std::size_t k = q + 1;
      while (k < s.size() && is_byte_space(s[k])) ++k;
      if (k < s.size() && s[k] != '<')
        end = k + 1;
      else if (k > q + 1)
        end = k;
    }
    if (end == std::string_view::npos) {
      out.append(s.substr(i, q - i));
      i = q;
    } else {
      out += '"';
      out.append(s.substr(i, q - i));
      out.append(s.substr(q + 1, end - q - 1));
      i = end;
    }
  }
  return out;
}

std::string normalize(std::string_view line, Lang lang) {
  // The script sees each line with its "\n" (see quote_before_periods).
  std::string s(line);
  s += '\n';
  s.erase(std::remove(s.begin(), s.end(), '\r'), s.end());
  auto replace = [&s](std::string_view from, std::string_view to) {
    s = substitute<char>(s, nullptr, from, nullptr, to);
  };
  auto squeeze = [&s] { s = squeeze_spaces<char>(s); };

  // Spaces around brackets and before punctuation.
  replace("(", " (");
  replace(")", ") ");
  squeeze();
  s = substitute<char>(
      s, [](char c) { return c == ')'; }, " ",
      [](char c) { return c == '.' || c == '!' || c == ':' || c == '?' || c == ';' || c == ','; }, "");
  replace("( ", "(");
  replace(" )", ")");
  s = substitute<char>(
      s, is_ascii_digit, " ", [](char c) { return c == '%'; }, "");
  replace(" :", ":");
  replace(" ;", ";");

  // Quotes, dashes and the ellipsis to ASCII. The script's last rule for acute accents (two of them to a double
  // quote) can never match: each one has become an apostrophe by then.
  replace("`", "'");
  replace("''", " \" ");
  replace("\u201E", "\"");
  replace("\u201C", "\"");
  replace("\u201D", "\"");
  replace("\u2013", "-");
  replace("\u2014", " - ");
  squeeze();
  replace("\u00B4", "'");
  s = substitute<char>(s, is_ascii_letter, "\u2018", is_ascii_letter, "'");
  s = substitute<char>(s, is_ascii_letter, "\u2019", is_ascii_letter, "'");
  // The script of 2016 made the other single quotes double; since November 2019 it makes U+2018 and U+201A
  // apostrophes. The Multi30K references do not tell the two apart; this follows the older one.
  replace("\u2018", "\"");
  replace("\u201A", "\"");
  replace("\u2019", "\"");
  replace("''", "\"");
  replace("\u2026", "...");

  // French guillemets with their non-breaking spaces, then the other non-breaking spaces that stand before
  // punctuation or units.
  replace("\u00A0\u00AB\u00A0", " \"");
  replace("\u00AB\u00A0", "\"");
  replace("\u00AB", "\"");
  replace("\u00A0\u00BB\u00A0", "\" ");
  replace("\u00A0\u00BB", "\"");
  replace("\u00BB", "\"");
  replace("\u00A0%", "%");
  replace("n\u00BA\u00A0", "n\u00BA ");
  replace("\u00A0:", ":");
  replace("\u00A0\u00BAC", " \u00BAC");
  replace("\u00A0cm", " cm");
  replace("\u00A0?", "?");
  replace("\u00A0!", "!");
  replace("\u00A0;", ";");
  replace(",\u00A0", ", ");
  squeeze();

  if (lang == Lang::kEn) {
    s = quote_after_punct(s);
  } else {
    replace(",\"", "\",");
    s = quote_before_periods(s);
  }
  // A non-breaking space between two digits: a period in en, a comma in de and fr.
  s = substitute<char>(s, is_ascii_digit, "\u00A0", is_ascii_digit, lang == Lang::kEn ? "." : ",");
  s.pop_back();  // the "\n"
  return s;
}

// ---- tokenizer.perl, on code points -------------------------------------------------------------------------

// Perl's \s on characters: Python's white space less U+001C-U+001F.
bool is_perl_space(char32_t c) { return is_unicode_space(c) && !(c >= 0x1C && c <= 0x1F); }
bool is_alpha(char32_t c) { return char_class(c) & kAlpha; }
bool not_alpha(char32_t c) { return !is_alpha(c); }
bool is_number(char32_t c) { return char_class(c) & kNumber; }
bool not_number(char32_t c) { return !is_number(c); }
bool neither_alpha_nor_number(char32_t c) { return !(char_class(c) & (kAlpha | kNumber)); }
bool is_s(char32_t c) { return c == U's'; }

// One period of a run of two or more, which the script hides from its other rules as the word DOTMULTI (and
// DOTDOTMULTI, ...) and brings back at the end; beyond Unicode and beyond kRawByte's range, so no input has it.
constexpr char32_t kRunPeriod = 0x120000;

// Abbreviations whose period does not end a sentence, from the Moses project's nonbreaking-prefix lists
// (scripts/share/nonbreaking_prefixes/nonbreaking_prefix.{en,de,fr}, LGPL 2.1) as of December 2016, keeping only
// the entries that can decide anything here: the text is lowercased first, so an entry with a capital never
// matches (en's Mr, Dr, Jan, ...); one with a period inside and a letter (e.g, d.h, c.-à-d) is kept whole by the
// first rule in word_period_stays anyway; fr's n/réf has been split at its slash before the rule looks.
// Returns 1 for such an abbreviation, 2 for one that holds only before a number (en's pp), else 0.
int nonbreaking_prefix(std::u32string_view word, Lang lang) {
  static constexpr std::string_view kEn[] = {"rev", "v", "vs"};
  // de also lists every letter, the numbers 1-99 (ordinals: "am 5. Mai") and the Roman numerals up to xx.
  static constexpr std::string_view kDe[] = {
      "bzgl", "bzw", "ca",   "dergl", "dgl",   "etc", "evtl", "ff",   "ggf",   "ii", "iii", "iv",   "ix",
      "jun",  "pp",  "sen",  "sog",   "sogen", "spp", "usf",  "usw",  "vgl",   "vi", "vii", "viii", "vs",
      "xi",   "xii", "xiii", "xiv",   "xix",   "xv",  "xvi",  "xvii", "xviii", "xx", "zzt"};
  // fr also lists every letter but a, itself a French word ("il y a.").
  static constexpr std::string_view kFr[] = {
      "al",  "ann",   "apr", "art", "auj",  "av",      "boul",     "ca",      "cf",   "chap", "contr",
      "dir", "env",   "etc", "ex",  "fasc", "fig",     "fr",       "hab",     "ibid", "id",   "inf",
      "lib", "masc",  "ms",  "pl",  "pp",   "sec",     "sect",     "sing",    "sq",   "sqq",  "suiv",
      "sup", "suppl", "vb",  "vol", "vs",   "\u00E9d", "f\u00E9m", "t\u00E9l"};
  const bool one_letter = word.size() == 1 && word[0] >= U'a' && word[0] <= U'z';
  const std::string w = encode_utf8(word);
  auto listed = [&w](auto& list) { return std::find(std::begin(list), std::end(list), w) != std::end(list); };
  switch (lang) {
    case Lang::kEn:
      if (w == "pp") return 2;
      return listed(kEn) ? 1 : 0;
    case Lang::kDe: {
      const bool number = !w.empty() && w.size() <= 2 && w[0] >= '1' && w[0] <= '9' &&
                          std::all_of(w.begin(), w.end(), [](char c) { return is_ascii_digit(c); });
      return one_letter || number || listed(kDe) ? 1 : 0;
    }
    case Lang::kFr: return (one_letter && word[0] != U'a') || listed(kFr) ? 1 : 0;
  }
  return 0;
}

// Whether the period of a word "pre." stays on it: when pre has a period and a letter (an abbreviation like "u.s"),
// when pre is a listed prefix, when the next word starts with a lowercase letter (after lowercasing, nearly every
// word that starts with a letter), or before a number for a numbers-only prefix. The text's last word has no next word
// (next is null), and an empty next word (two spaces in a row) starts with nothing. From November 2018 on the
// script splits the last word's period whatever the word; the references were made before, under this rule.
bool word_period_stays(std::u32string_view pre, const std::u32string_view* next, Lang lang) {
  const bool has_period = pre.find(U'.') != std::u32string_view::npos;
  if (has_period && std::any_of(pre.begin(), pre.end(), is_alpha)) return true;
  const int prefix = nonbreaking_prefix(pre, lang);
  if (prefix == 1) return true;
  if (next && !next->empty() && (char_class(next->front()) & kLower)) return true;
  return prefix == 2 && next && !next->empty() && next->front() >= U'0' && next->front() <= U'9';
}

// tokenizer.perl's tokenize() on one line (without its "\n"), up to and including the restored periods; XML
// escaping is left to the caller.
std::u32string tokenize(std::u32string_view line, Lang lang) {
  // A line of white space alone is printed as it is.
  if (std::all_of(line.begin(), line.end(), is_perl_space)) return std::u32string(line);

  // White space to single spaces, control characters dropped, no space at either end.
  std::u32string t;
  t.reserve(line.size() + 2);
  bool in_space = true;  // the script pads the line with a space on each side first
  for (char32_t c : line) {
    if (is_perl_space(c)) {
      if (!in_space) t += U' ';
      in_space = true;
    } else if (c >= 0x20) {
      t += c;
      in_space = false;
    }
  }
  t = squeeze_spaces<char32_t>(t);  // dropping a control character can bring two spaces together
  if (!t.empty() && t.front() == U' ') t.erase(0, 1);
  if (!t.empty() && t.back() == U' ') t.pop_back();

  // Every character but letters, digits, spaces and . ' ` , - stands alone.
  std::u32string u;
  u.reserve(t.size() * 2);
  for (char32_t c : t) {
    const bool keep = (char_class(c) & (kAlpha | kDigit)) || c == U' ' || c == U'.' || c == U'\'' || c == U'`' ||
                      c == U',' || c == U'-';
    if (keep) {
      u += c;
    } else {
      u += U' ';
      u += c;
      u += U' ';
    }
  }

  // A run of periods ("...") stands alone: a space before it, and one after it unless it ends the text.
  t.clear();
  for (std::size_t i = 0; i < u.size();) {
    std::size_t j = i;
    while (j < u.size() && u[j] == U'.') ++j;
    if (j - i >= 2) {
      t += U' ';
      t.append(j - i, kRunPeriod);
      if (j < u.size()) t += U' ';
      i = j;
    } else {
      t += u[i++];
    }
  }

  // Commas split off unless between two numbers ("5,300"); also one after a number at the end.
  t = substitute<char32_t>(t, not_number, U",", nullptr, U" , ");
  t = substitute<char32_t>(t, nullptr, U",", not_number, U" , ");
  if (t.size() >= 2 && t.back() == U',' && is_number(t[t.size() - 2])) {
    t.back() = U' ';
    t += U',';
  }

  // Apostrophes: English splits "john's" as john 's, French "l'homme" as l' homme, German splits them off.
  if (lang == Lang::kDe) {
    t = substitute<char32_t>(t, nullptr, U"'", nullptr, U" ' ");
  } else {
    const bool en = lang == Lang::kEn;
    t = substitute<char32_t>(t, not_alpha, U"'", not_alpha, U" ' ");
    t = substitute<char32_t>(t, en ? neither_alpha_nor_number : not_alpha, U"'", is_alpha, U" ' ");
    t = substitute<char32_t>(t, is_alpha, U"'", not_alpha, U" ' ");
    t = substitute<char32_t>(t, is_alpha, U"'", is_alpha, en ? U" '" : U"' ");
    if (en) t = substitute<char32_t>(t, is_number, U"'", is_s, U" '");  // 1990's
  }

  // A period at the end of a word splits off unless word_period_stays. Words are what lies between single
  // spaces, so two spaces in a row make an empty word; empty words at the end are dropped, as Perl's split does.
  std::vector<std::u32string_view> words;
  const std::u32string_view tv(t);
  for (std::size_t start = 0;;) {
    const std::size_t sp = tv.find(U' ', start);
    words.push_back(tv.substr(start, sp == std::u32string_view::npos ? sp : sp - start));
    if (sp == std::u32string_view::npos) break;
    start = sp + 1;
  }
  while (!words.empty() && words.back().empty()) words.pop_back();
  u.clear();
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::u32string_view w = words[i];
    u += w;
    if (w.size() >= 2 && w.back() == U'.' &&
        !word_period_stays(w.substr(0, w.size() - 1), i + 1 < words.size() ? &words[i + 1] : nullptr, lang)) {
      u.back() = U' ';
      u += U'.';
    }
    u += U' ';
  }
  t = squeeze_spaces<char32_t>(u);
  if (!t.empty() && t.front() == U' ') t.erase(0, 1);
  if (!t.empty() && t.back() == U' ') t.pop_back();

  // A period and an apostrophe at the very end split, leaving the script's trailing space.
  if (t.size() >= 2 && t.compare(t.size() - 2, 2, U".'") == 0) t.replace(t.size() - 2, 2, U" . ' ");

  std::replace(t.begin(), t.end(), kRunPeriod, char32_t(U'.'));
  return t;
}

// The tokenizer's XML escaping, on the way back to UTF-8.
std::string escape_and_encode(std::u32string_view t) {
  std::u32string out;
  out.reserve(t.size() + t.size() / 4);
  for (char32_t c : t) {
    switch (c) {
      case U'&': out += U"&amp;"; break;
      case U'|': out += U"&#124;"; break;
      case U'<': out += U"&lt;"; break;
      case U'>': out += U"&gt;"; break;
      case U'\'': out += U"&apos;"; break;
      case U'"': out += U"&quot;"; break;
      case U'[': out += U"&#91;"; break;
      case U']': out += U"&#93;"; break;
      default: out += c;
    }
  }
  return encode_utf8(out);
}

}  // namespace

std::string moses_lowercase(std::string_view line) {
  std::u32string out;
  out.reserve(line.size());
  for (char32_t c : decode_utf8(line)) append_lower(c, out);
  return encode_utf8(out);
}

std::string moses_normalize_punctuation(std::string_view line, const std::string& lang) {
  return normalize(line, parse_lang(lang));
}

std::string moses_tokenize_line(std::string_view line, const std::string& lang) {
  const Lang l = parse_lang(lang);
  return escape_and_encode(tokenize(decode_utf8(normalize(moses_lowercase(line), l)), l));
}

std::vector<std::string> moses_tokenize(std::string_view line, const std::string& lang) {
  return split_unicode_whitespace(decode_utf8(moses_tokenize_line(line, lang)));
}

}  // namespace attnseq::train
