// The pronunciation dictionary reader and the development split (src/train/pron_data.hpp).
// Parsing fills a local PronData and returns it only when every line passed, so a caller never sees
// part of a file.
#include "train/pron_data.hpp"

#include "core/lines.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "train/tasks.hpp"

namespace attnseq::train {

const std::vector<std::string>& arpabet_phonemes() {
  static const std::vector<std::string> set = {"AA", "AE", "AH", "AO", "AW", "AY", "B",  "CH", "D",  "DH",
                                               "EH", "ER", "EY", "F",  "G",  "HH", "IH", "IY", "JH", "K",
                                               "L",  "M",  "N",  "NG", "OW", "OY", "P",  "R",  "S",  "SH",
                                               "T",  "TH", "UH", "UW", "V",  "W",  "Y",  "Z",  "ZH"};
  return set;
}

bool is_arpabet(std::string_view phoneme) {
  const auto& set = arpabet_phonemes();
  return std::binary_search(set.begin(), set.end(), phoneme,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

std::size_t PronData::references() const {
  std::size_t n = 0;
  for (const auto& e : entries) n += e.refs.size();
  return n;
}

std::vector<std::string> split_phonemes(std::string_view ref) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < ref.size()) {
    while (i < ref.size() && ref[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < ref.size() && ref[i] != ' ') ++i;
    if (i > start) out.emplace_back(ref.substr(start, i - start));
  }
  return out;
}

namespace {

// A character for an error message: printable ASCII as itself, anything else as its byte value.
std::string describe(char ch) {
  const auto b = static_cast<unsigned char>(ch);
  if (b >= 0x21 && b < 0x7F) return std::string("'") + ch + "'";
  static const char* hex = "0123456789ABCDEF";
  return std::string("byte 0x") + hex[b >> 4] + hex[b & 15];
}

}  // namespace

const char* to_string(PronFormat f) { return f == PronFormat::Arpabet ? "arpabet" : "ipa"; }

PronFormat pron_format(const std::string& name, const std::string& what) {
  if (name == "arpabet") return PronFormat::Arpabet;
  if (name == "ipa") return PronFormat::Ipa;
  throw std::invalid_argument(what + " is arpabet or ipa, not '" + name + "'");
}

namespace {

// The byte length of the UTF-8 sequence at s[i] (1-4), or 0 where it is not valid UTF-8 (a stray
// continuation byte, a truncated sequence, an overlong form, a surrogate, above U+10FFFF).
std::size_t utf8_at(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if (n == 3 && ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0))) return 0;
  if (n == 4 && ((c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) >= 0x90))) return 0;
  return n;
}

// Why `text` (a word or a phone of an IPA file) cannot be read, or "" when it can: invalid UTF-8, or a
// control character (C0, DEL, C1), named with its position.
std::string ipa_problem(std::string_view text) {
  for (std::size_t i = 0, ch = 1; i < text.size(); ++ch) {
    const std::size_t n = utf8_at(text, i);
    if (n == 0) return "is not valid UTF-8 (byte " + std::to_string(i + 1) + ")";
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if (c < 0x20 || c == 0x7F || c1) return "has a control character (character " + std::to_string(ch) + ")";
    i += n;
  }
  return "";
}

}  // namespace

PronData parse_pron(std::string_view text, const std::string& name, PronFormat format) {
  const bool ipa = format == PronFormat::Ipa;
  PronData out;
  std::unordered_map<std::string, std::size_t> index;  // word -> position in out.entries
  std::size_t line_no = 0;
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(name + ":" + std::to_string(line_no) + ": " + what);
  };
  for_each_line(text, [&](std::string_view line, std::size_t number) {
    line_no = number;
    if (line.empty()) fail("empty line");
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos) fail("no tab between the word and its pronunciation");
    const std::string_view word = line.substr(0, tab);
    if (word.empty()) fail("empty word before the tab");
    if (ipa) {
      if (const std::string why = ipa_problem(word); !why.empty()) fail("the word " + why);
    } else {
      for (std::size_t i = 0; i < word.size(); ++i)
        if (!((word[i] >= 'A' && word[i] <= 'Z') || word[i] == '\''))
          fail("character " + describe(word[i]) + " at column " + std::to_string(i + 1) +
               " of the word is outside A-Z and the apostrophe (an IPA dictionary: --phones ipa)");
    }
    std::vector<std::string> refs;
    std::size_t start = tab + 1;
    for (int k = 1;; ++k) {
      std::size_t next = line.find('\t', start);
      if (next == std::string_view::npos) next = line.size();
      // Phonemes are checked as views and joined in place: no string per phoneme (113k lines to read).
      const std::string_view side = line.substr(start, next - start);
      std::string joined;
      int phone = 0;
      for (std::size_t i = 0; i < side.size();) {
        while (i < side.size() && side[i] == ' ') ++i;
        const std::size_t from = i;
        while (i < side.size() && side[i] != ' ') ++i;
        if (i == from) break;
        const std::string_view p = side.substr(from, i - from);
        ++phone;
        if (ipa) {
          if (const std::string why = ipa_problem(p); !why.empty())
            fail("phone " + std::to_string(phone) + " of reference " + std::to_string(k) + " " + why);
        } else if (!is_arpabet(p)) {
          fail("phoneme \"" + std::string(p) + "\" (reference " + std::to_string(k) +
               ") is not one of the 39 ARPAbet phonemes without stress (an IPA dictionary: --phones ipa)");
        }
        if (!joined.empty()) joined += ' ';
        joined += p;
      }
      if (joined.empty()) fail("empty pronunciation (reference " + std::to_string(k) + ")");
      refs.push_back(std::move(joined));
      if (next == line.size()) break;
      start = next + 1;
    }
    auto [it, fresh] = index.emplace(std::string(word), out.entries.size());
    if (fresh) out.entries.push_back({std::string(word), {}});
    auto& dst = out.entries[it->second].refs;
    for (auto& r : refs)
      if (std::find(dst.begin(), dst.end(), r) == dst.end()) dst.push_back(std::move(r));
    ++out.lines;
  });
  return out;
}

PronData read_pron_file(const std::string& path, PronFormat format) {
  return parse_pron(read_text_file(path), path, format);
}

std::vector<std::string> pron_phones(const PronData& data) {
  std::vector<std::string> out;
  for (const auto& e : data.entries)
    for (const auto& r : e.refs)
      for (auto& p : split_phonemes(r)) out.push_back(std::move(p));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> pron_letters(const PronData& data) {
  std::vector<std::string> out;
  for (const auto& e : data.entries)
    for (std::size_t i = 0; i < e.word.size();) {
      const std::size_t n = std::max<std::size_t>(1, utf8_at(e.word, i));
      out.emplace_back(e.word.substr(i, n));
      i += n;
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::uint64_t word_hash(std::string_view word, std::uint64_t seed) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  for (char ch : word) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  // splitmix64's finaliser over hash + seed: nearby seeds give unrelated orders.
  std::uint64_t z = h + (seed + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

PronSplit split_dev(const PronData& data, double fraction, std::uint64_t seed) {
  if (!(fraction >= 0.0 && fraction < 1.0))
    throw std::invalid_argument("split_dev: fraction " + std::to_string(fraction) + " is outside [0, 1)");
  const std::size_t n = data.entries.size();
  const auto k = std::size_t(std::llround(fraction * double(n)));
  // Rank by (hash, word) so that even a hash collision cannot make the choice depend on file order.
  std::vector<std::pair<std::uint64_t, std::size_t>> ranked(n);
  for (std::size_t i = 0; i < n; ++i) ranked[i] = {word_hash(data.entries[i].word, seed), i};
  const auto less = [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : data.entries[a.second].word < data.entries[b.second].word;
  };
  std::nth_element(ranked.begin(), ranked.begin() + std::ptrdiff_t(k), ranked.end(), less);
  std::vector<char> is_dev(n, 0);
  for (std::size_t i = 0; i < k; ++i) is_dev[ranked[i].second] = 1;
  PronSplit out;
  out.dev.reserve(k);
  out.train.reserve(n - k);
  for (std::size_t i = 0; i < n; ++i) (is_dev[i] ? out.dev : out.train).push_back(data.entries[i]);
  return out;
}

}  // namespace attnseq::train
