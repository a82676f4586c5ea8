// Tokenizer implementation: a strict UTF-8 decoder (no overlongs, no surrogates, nothing above
// U+10FFFF) and a hash map from piece to id.
#include "model/vocab.hpp"

#include <stdexcept>

#include "core/errors.hpp"
#include "model/spm.hpp"

namespace attnseq {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
std::size_t utf8_len(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned cp;
  if ((c & 0xE0) == 0xC0)
    n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0)
    n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0)
    n = 4, cp = c & 0x07;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static const unsigned min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void check_size(std::string_view text) {
  if (text.size() > kMaxTextBytes)
    throw TooLong("text is " + std::to_string(text.size()) + " bytes; the maximum is " + std::to_string(kMaxTextBytes));
}

[[noreturn]] void bad_utf8(std::size_t i) { throw std::invalid_argument("invalid UTF-8 at byte " + std::to_string(i)); }

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v'; }

}  // namespace

std::vector<std::string> split_chars(std::string_view text) {
  check_size(text);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_len(text, i);
    if (!n) bad_utf8(i);
    out.emplace_back(text.substr(i, n));
    i += n;
  }
  return out;
}

std::size_t invalid_utf8_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_len(text, i);
    if (!n) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::vector<std::string> split_words(std::string_view text) {
  check_size(text);
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) {
      const std::size_t n = utf8_len(text, i);
      if (!n) bad_utf8(i);
      i += n;
    }
    if (i > start) out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

std::string fold_case(std::string_view text, CaseFold fold) {
  std::string out(text);
  if (fold == CaseFold::Upper) {
    for (char& ch : out)
      if (ch >= 'a' && ch <= 'z') ch = char(ch - 'a' + 'A');
  } else if (fold == CaseFold::Lower) {
    for (char& ch : out)
      if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
  }
  return out;
}

Vocab::Vocab(TokenizerKind kind, std::vector<std::string> tokens, int pad, int bos, int eos, int unk, const char* side,
             CaseFold fold, std::shared_ptr<const SpmTokenizer> spm)
    : kind_(kind),
      tokens_(std::move(tokens)),
      pad_(pad),
      bos_(bos),
      eos_(eos),
      unk_(unk),
      fold_(fold),
      spm_(std::move(spm)) {
  if ((kind_ == TokenizerKind::Spm) != bool(spm_))
    throw std::invalid_argument(std::string(side) + ": a SentencePiece model goes with tokenizer spm, and only there");
  if (spm_) return;  // its pieces are unique by construction (SpmTokenizer checks them)
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    auto [it, fresh] = index_.emplace(tokens_[i], std::int32_t(i));
    if (!fresh)
      throw std::invalid_argument(std::string(side) + ": token \"" + tokens_[i] + "\" appears twice (ids " +
                                  std::to_string(it->second) + " and " + std::to_string(i) + ")");
  }
}

std::vector<std::string> Vocab::pieces(std::string_view text) const {
  if (kind_ == TokenizerKind::Ids)
    throw std::invalid_argument("this model has no vocabulary: give token ids instead of text");
  if (kind_ == TokenizerKind::Spm) {
    std::vector<std::string> out;
    for (int id : encode_spm(text)) out.push_back(tokens_[std::size_t(id)]);
    return out;
  }
  if (kind_ == TokenizerKind::Char && jamo_) {
    check_size(text);  // (the limits and byte offsets are the text's own, before decomposition)
    if (const std::size_t at = invalid_utf8_at(text); at != std::string_view::npos) bad_utf8(at);
    return split_chars(hangul_jamo(text));
  }
  if (kind_ == TokenizerKind::Char) return split_chars(text);
  return split_words(text);
}

std::string hangul_jamo(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  auto put = [&](unsigned cp) {  // a code point in U+0800-U+FFFF: three bytes
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    if (i + 2 < text.size() && (b(i) & 0xF0) == 0xE0 && (b(i + 1) & 0xC0) == 0x80 && (b(i + 2) & 0xC0) == 0x80) {
      const unsigned cp = ((b(i) & 0x0Fu) << 12) | ((b(i + 1) & 0x3Fu) << 6) | (b(i + 2) & 0x3Fu);
      if (cp >= 0xAC00 && cp <= 0xD7A3) {
        const unsigned s = cp - 0xAC00;  // 19 leads x 21 vowels x 28 finals (0: none)
        put(0x1100 + s / 588);
        put(0x1161 + (s % 588) / 28);
        if (s % 28) put(0x11A7 + s % 28);
        i += 3;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

std::vector<std::int32_t> Vocab::encode_spm(std::string_view text) const {
  check_size(text);
  if (const std::size_t at = invalid_utf8_at(text); at != std::string_view::npos) bad_utf8(at);
  const auto ids = spm_->encode(fold_ == CaseFold::Keep ? std::string(text) : fold_case(text, fold_));
  return {ids.begin(), ids.end()};
}

std::vector<std::int32_t> Vocab::encode_sample(std::string_view text, double alpha, Rng& rng) const {
  if (!spm_) throw std::invalid_argument("sampling segmentations needs a SentencePiece tokenizer");
  check_size(text);
  if (const std::size_t at = invalid_utf8_at(text); at != std::string_view::npos) bad_utf8(at);
  const auto ids =
      spm_->encode_sample(fold_ == CaseFold::Keep ? std::string(text) : fold_case(text, fold_), alpha, rng);
  return {ids.begin(), ids.end()};
}

std::int32_t Vocab::lookup(const std::string& piece) const {
  if (spm_) return spm_->piece_to_id(piece);
  auto it = fold_ == CaseFold::Keep ? index_.find(piece) : index_.find(fold_case(piece, fold_));
  return it == index_.end() ? unk_ : it->second;
}

std::vector<std::int32_t> Vocab::encode(std::string_view text) const {
  if (spm_) return encode_spm(text);
  std::vector<std::int32_t> ids;
  for (const auto& p : pieces(text)) ids.push_back(lookup(p));
  return ids;
}

std::string Vocab::token(std::int32_t id) const {
  if (kind_ == TokenizerKind::Ids || id < 0 || std::size_t(id) >= tokens_.size()) return "#" + std::to_string(id);
  return tokens_[id];
}

std::string Vocab::decode(const std::int32_t* ids, std::size_t n) const {
  if (spm_) {
    std::vector<int> keep;
    for (std::size_t i = 0; i < n; ++i)
      if (ids[i] != pad_ && ids[i] != bos_ && ids[i] != eos_) keep.push_back(ids[i]);
    return spm_->decode(keep);
  }
  std::string out;
  bool first = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (ids[i] == pad_ || ids[i] == bos_ || ids[i] == eos_) continue;
    if (!first && kind_ != TokenizerKind::Char) out += ' ';
    out += token(ids[i]);
    first = false;
  }
  return out;
}

void use_spm(ModelConfig& c, bool source, std::shared_ptr<const SpmTokenizer> spm) {
  (source ? c.src_tokenizer : c.tgt_tokenizer) = TokenizerKind::Spm;
  (source ? c.src_vocab : c.tgt_vocab) = spm->size();
  (source ? c.src_tokens : c.tgt_tokens) = spm->piece_texts();
  (source ? c.src_spm : c.tgt_spm) = std::move(spm);
}

}  // namespace attnseq
