// libFuzzer target: arbitrary bytes as text for the tokenizers. split_chars, split_words and the
// Vocab's encode/decode (char and word, fixed vocabularies and one built from the input's own words)
// must refuse bad text with std::invalid_argument only, and on good text keep their invariants:
// both splitters accept exactly the same texts; char pieces are single code points that concatenate
// back to the text; word pieces are non-empty, whitespace-free and concatenate to the text minus its
// whitespace; encode gives one id per piece, in range; decode(encode(text)) restores known text.
// Anything else (crash, sanitizer report, other exception, broken invariant) is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/vocab.hpp"

using namespace attnseq;

namespace {

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_tokenizer: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

const Vocab& char_vocab() {
  static const Vocab v = [] {
    std::vector<std::string> t = {"<pad>", "<s>", "</s>", "<unk>"};
    for (char c = 0x20; c < 0x7F; ++c) t.push_back(std::string(1, c));
    for (const char* s : {"\t", "\n", "제", "인", "이", "가", "게", "에", "갔", "다", "😀", "é", "\xF4\x8F\xBF\xBF"})
      t.push_back(s);
    return Vocab(TokenizerKind::Char, t, 0, 1, 2, 3, "tgt_vocab");
  }();
  return v;
}

const Vocab& word_vocab() {
  static const Vocab v(
      TokenizerKind::Word,
      {"<unk>", "<pad>", "<s>", "</s>", "Jane", "went", "to", "the", "store", "제인이", "가게에", "갔다"}, 1, 2, 3, 0,
      "src_vocab");
  return v;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// Every piece is one well-formed code point: lead byte length matches the piece length.
bool one_code_point(const std::string& p) {
  if (p.empty() || p.size() > 4) return false;
  const unsigned char c = static_cast<unsigned char>(p[0]);
  const std::size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (n != p.size()) return false;
  for (std::size_t i = 1; i < n; ++i)
    if ((static_cast<unsigned char>(p[i]) & 0xC0) != 0x80) return false;
  return true;
}

void check_text(std::string_view text) {
  std::vector<std::string> chars, words;
  bool chars_ok = true, words_ok = true;
  try {
    chars = split_chars(text);
  } catch (const std::invalid_argument&) {
    chars_ok = false;
  }
  try {
    words = split_words(text);
  } catch (const std::invalid_argument&) {
    words_ok = false;
  }
  if (chars_ok != words_ok) finding("split_chars and split_words disagree on validity");

  const Vocab& cv = char_vocab();
  const Vocab& wv = word_vocab();
  std::vector<std::int32_t> cids, wids;
  bool cenc_ok = true, wenc_ok = true;
  try {
    cids = cv.encode(text);
  } catch (const std::invalid_argument&) {
    cenc_ok = false;
  }
  try {
    wids = wv.encode(text);
  } catch (const std::invalid_argument&) {
    wenc_ok = false;
  }
  if (cenc_ok != chars_ok || wenc_ok != words_ok) finding("encode and split disagree on validity");
  try {
    Vocab().encode(text);
    finding("an ids-only vocabulary encoded text");
  } catch (const std::invalid_argument&) {
  }
  if (!chars_ok) return;

  // Characters.
  for (const auto& p : chars)
    if (!one_code_point(p)) finding("a char piece is not one code point");
  if (join(chars, "") != text) finding("char pieces do not concatenate to the text");
  if (cids.size() != chars.size()) finding("char encode: one id per piece");
  bool all_known = true;
  for (std::size_t i = 0; i < cids.size(); ++i) {
    if (cids[i] < 0 || std::size_t(cids[i]) >= cv.tokens().size()) finding("char id out of range");
    if (cids[i] == 3)
      all_known = false;
    else if (cv.tokens()[cids[i]] != chars[i])
      finding("char id names another piece");
  }
  const std::string cdec = cv.decode(cids.data(), cids.size());
  if (all_known && cdec != text) finding("char decode(encode(text)) != text");

  // Words.
  std::string squeezed;
  for (char c : text)
    if (!is_space(c)) squeezed += c;
  for (const auto& w : words) {
    if (w.empty()) finding("empty word piece");
    for (char c : w)
      if (is_space(c)) finding("whitespace inside a word piece");
  }
  if (join(words, "") != squeezed) finding("word pieces do not concatenate to the text without whitespace");
  if (wids.size() != words.size()) finding("word encode: one id per piece");
  std::vector<std::string> kept;
  bool words_known = true;
  for (std::size_t i = 0; i < wids.size(); ++i) {
    if (wids[i] < 0 || std::size_t(wids[i]) >= wv.tokens().size()) finding("word id out of range");
    if (wids[i] == 0) words_known = false;
    if (wids[i] != 1 && wids[i] != 2 && wids[i] != 3) kept.push_back(words[i]);  // pad, bos, eos drop
  }
  const std::string wdec = wv.decode(wids.data(), wids.size());
  if (words_known && wdec != join(kept, " ")) finding("word decode(encode(text)) != the known words");

  // A vocabulary built from the text's own words: duplicates are refused, otherwise word i has id i.
  try {
    const Vocab own(TokenizerKind::Word, words, 0, 0, 0, 0);
    const auto ids = own.encode(text);
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] != std::int32_t(i)) finding("own-vocabulary id mismatch");
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_text(text);
  // The same bytes as ids: decode must name ids outside the vocabulary, never read past it.
  std::vector<std::int32_t> ids(size / 4);
  if (!ids.empty()) std::memcpy(ids.data(), data, ids.size() * 4);
  (void)char_vocab().decode(ids.data(), ids.size());
  (void)word_vocab().decode(ids.data(), ids.size());
  (void)Vocab().decode(ids.data(), ids.size());
  return 0;
}
