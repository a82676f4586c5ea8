// Word spans of a tokenized sequence and the word-level alignment (model/words.hpp).
#include "model/words.hpp"

#include <stdexcept>
#include <string_view>

namespace attnseq {
namespace {
const std::string kWordMark = "\xE2\x96\x81";  // U+2581, spm's space

// A piece of punctuation only (ASCII, or the Unicode quotes, dashes and ellipsis that text uses):
// spm writes "bike." as _bike + ".", and a reader sees two words there, not one.
bool is_punctuation(const std::string& piece) {
  static const char* const wide[] = {"\u00AB", "\u00BB", "\u2013", "\u2014", "\u2018", "\u2019", "\u201A",
                                     "\u201C", "\u201D", "\u201E", "\u2026", "\u00BF", "\u00A1"};
  std::size_t i = piece.compare(0, kWordMark.size(), kWordMark) == 0 ? kWordMark.size() : 0;
  if (i == piece.size()) return false;
  while (i < piece.size()) {
    const unsigned char ch = static_cast<unsigned char>(piece[i]);
    if (ch < 0x80) {
      if (!((ch >= '!' && ch <= '/') || (ch >= ':' && ch <= '@') || (ch >= '[' && ch <= '`') ||
            (ch >= '{' && ch <= '~')))
        return false;
      ++i;
      continue;
    }
    bool found = false;
    for (const char* w : wide) {
      const std::string_view sw(w);
      if (piece.compare(i, sw.size(), sw) == 0) {
        i += sw.size();
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}
}  // namespace

std::vector<WordSpan> group_words(const Vocab& v, const std::int32_t* ids, std::size_t n) {
  std::vector<WordSpan> out;
  const bool pieces = v.kind() == TokenizerKind::Spm;
  bool after_punctuation = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (v.is_special(ids[i])) continue;
    const std::string tok = v.token(ids[i]);
    const bool punct = pieces && is_punctuation(tok);
    const bool starts = !pieces || out.empty() || tok.compare(0, kWordMark.size(), kWordMark) == 0 || punct ||
                        after_punctuation || out.back().first + out.back().count != int(i);
    if (starts) out.push_back({int(i), 0, {}});
    ++out.back().count;
    after_punctuation = punct;
  }
  for (auto& w : out) w.text = v.decode(ids + w.first, std::size_t(w.count));
  return out;
}

std::vector<float> word_attention(const float* attention, int rows, int cols, const std::vector<WordSpan>& tgt,
                                  const std::vector<WordSpan>& src) {
  const auto check = [](const std::vector<WordSpan>& spans, int n, const char* side) {
    for (const auto& w : spans)
      if (w.first < 0 || w.count < 1 || w.first + w.count > n)
        throw std::invalid_argument(std::string("word_attention: a ") + side + " word spans tokens " +
                                    std::to_string(w.first) + ".." + std::to_string(w.first + w.count - 1) + " of " +
                                    std::to_string(n));
  };
  check(tgt, rows, "target");
  check(src, cols, "source");
  const std::size_t W = src.size();
  std::vector<float> out(tgt.size() * W, 0.f);
  for (std::size_t r = 0; r < tgt.size(); ++r)
    for (std::size_t c = 0; c < W; ++c) {
      double sum = 0;
      for (int k = tgt[r].first; k < tgt[r].first + tgt[r].count; ++k)
        for (int t = src[c].first; t < src[c].first + src[c].count; ++t)
          sum += attention[std::size_t(k) * std::size_t(cols) + std::size_t(t)];
      out[r * W + c] = float(sum / tgt[r].count);
    }
  return out;
}

}  // namespace attnseq
