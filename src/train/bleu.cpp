// BLEU's statistics and score, and the 13a tokeniser, written from their definitions (mteval-v13a's
// rules as sacreBLEU states them); the rewrites are applied left to right without overlap, as a regular
// expression substitution does.
#include "train/bleu.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "train/text_units.hpp"

namespace attnseq::train {
namespace {

// n-grams of a token list, counted.
std::map<std::vector<std::string>, long long> ngrams(const std::vector<std::string>& t, std::size_t n) {
  std::map<std::vector<std::string>, long long> out;
  for (std::size_t i = 0; i + n <= t.size(); ++i)
    ++out[std::vector<std::string>(t.begin() + std::ptrdiff_t(i), t.begin() + std::ptrdiff_t(i + n))];
  return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }

// The first rule's class: { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
bool is_13a_punct(char32_t c) {
  return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) || (c >= 0x28 && c <= 0x2B) ||
         (c >= 0x3A && c <= 0x40) || c == '/';
}

}  // namespace

void BleuStats::add(const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
  hyp_len += (long long)hyp.size();
  ref_len += (long long)ref.size();
  for (std::size_t n = 1; n <= 4; ++n) {
    const auto h = ngrams(hyp, n), r = ngrams(ref, n);
    long long m = 0;
    for (const auto& [g, count] : h) {
      const auto it = r.find(g);
      if (it != r.end()) m += std::min(count, it->second);
    }
    matches[n - 1] += m;
    totals[n - 1] += hyp.size() >= n ? (long long)(hyp.size() - n + 1) : 0;
  }
}

void BleuStats::add(const BleuStats& o) {
  hyp_len += o.hyp_len;
  ref_len += o.ref_len;
  for (int n = 0; n < 4; ++n) matches[n] += o.matches[n], totals[n] += o.totals[n];
}

double BleuStats::precision(int n) const {
  if (n < 1 || n > 4) throw std::invalid_argument("BLEU precision: n = " + std::to_string(n) + " is outside 1..4");
  return totals[n - 1] ? double(matches[n - 1]) / double(totals[n - 1]) : 0.0;
}

double BleuStats::brevity_penalty() const {
  if (hyp_len == 0) return 0.0;
  return hyp_len > ref_len ? 1.0 : std::exp(1.0 - double(ref_len) / double(hyp_len));
}

double BleuStats::score() const {
  double log_sum = 0;
  for (int n = 1; n <= 4; ++n) {
    if (matches[n - 1] == 0) return 0.0;
    log_sum += std::log(precision(n));
  }
  return 100.0 * brevity_penalty() * std::exp(log_sum / 4.0);
}

std::vector<long long> BleuStats::counts() const {
  std::vector<long long> c = {hyp_len, ref_len};
  c.insert(c.end(), matches.begin(), matches.end());
  c.insert(c.end(), totals.begin(), totals.end());
  return c;
}

BleuStats BleuStats::from_counts(const std::vector<long long>& c) {
  if (c.size() != 10) throw std::invalid_argument("BLEU statistics are 10 counts, not " + std::to_string(c.size()));
  for (long long x : c)
    if (x < 0) throw std::invalid_argument("BLEU statistics hold a negative count (" + std::to_string(x) + ")");
  BleuStats s;
  s.hyp_len = c[0];
  s.ref_len = c[1];
  for (int n = 0; n < 4; ++n) s.matches[n] = c[2 + n], s.totals[n] = c[6 + n];
  for (int n = 0; n < 4; ++n)
    if (s.matches[n] > s.totals[n])
      throw std::invalid_argument("BLEU statistics: " + std::to_string(s.matches[n]) + " matches of " +
                                  std::to_string(n + 1) + "-grams out of " + std::to_string(s.totals[n]));
  return s;
}

std::vector<std::string> tokenize_13a(std::string_view text) {
  std::string line(text);
  replace_all(line, "<skipped>", "");
  replace_all(line, "-\n", "");
  replace_all(line, "\n", " ");
  if (line.find('&') != std::string::npos) {
    replace_all(line, "&quot;", "\"");
    replace_all(line, "&amp;", "&");
    replace_all(line, "&lt;", "<");
    replace_all(line, "&gt;", ">");
  }
  std::u32string s = U" " + decode_utf8(line) + U" ";
  // Rule 1: punctuation and symbols get a space on each side.
  std::u32string a;
  for (char32_t c : s) {
    if (is_13a_punct(c))
      a += U' ', a += c, a += U' ';
    else
      a += c;
  }
  // Rules 2-4 rewrite a pair of characters, scanning left to right without overlap.
  const auto pairs = [](const std::u32string& in, auto first, auto second, bool space_before) {
    std::u32string out;
    std::size_t i = 0;
    while (i < in.size()) {
      if (i + 1 < in.size() && first(in[i]) && second(in[i + 1])) {
        if (space_before) {  // " \1 \2"
          out += U' ', out += in[i], out += U' ', out += in[i + 1];
        } else {  // "\1 \2 "
          out += in[i], out += U' ', out += in[i + 1], out += U' ';
        }
        i += 2;
      } else {
        out += in[i++];
      }
    }
    return out;
  };
  const auto not_digit = [](char32_t c) { return !is_digit(c); };
  const auto period_comma = [](char32_t c) { return c == '.' || c == ','; };
  a = pairs(a, not_digit, period_comma, false);
  a = pairs(a, period_comma, not_digit, true);
  a = pairs(
      a, is_digit, [](char32_t c) { return c == '-'; }, false);
  return split_unicode_whitespace(a);
}

}  // namespace attnseq::train
