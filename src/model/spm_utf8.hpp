// UTF-8 the way SentencePiece reads it (its util.cc, DecodeUTF8 / OneCharLen): the rules decide where
// unknown characters and byte pieces begin and end, so they must match spm's exactly, including its
// treatment of malformed bytes (one byte at a time, as U+FFFD).
#pragma once
#include <cstddef>
#include <string_view>

namespace attnseq::spm_utf8 {

// The byte length of the character at s[0] from its first byte alone, capped to s's size.
inline std::size_t one_char_len(std::string_view s) {
  static const unsigned char len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  const std::size_t n = len[static_cast<unsigned char>(s[0]) >> 4];
  return n < s.size() ? n : s.size();
}

// Whether s starts with a well-formed character (a literal U+FFFD counts as one); *len is its length,
// or 1 for a malformed byte.
inline bool valid_prefix(std::string_view s, std::size_t* len) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto trail = [&](std::size_t i) { return (b(i) & 0xC0) == 0x80; };
  const auto ok = [](char32_t c) { return c < 0xD800 || (c >= 0xE000 && c <= 0x10FFFF); };
  *len = 1;
  if (b(0) < 0x80) return true;
  char32_t c;
  if (s.size() >= 2 && (b(0) & 0xE0) == 0xC0) {
    c = char32_t(b(0) & 0x1F) << 6 | (b(1) & 0x3F);
    if (trail(1) && c >= 0x80 && ok(c)) return *len = 2, true;
  } else if (s.size() >= 3 && (b(0) & 0xF0) == 0xE0) {
    c = char32_t(b(0) & 0x0F) << 12 | char32_t(b(1) & 0x3F) << 6 | (b(2) & 0x3F);
    if (trail(1) && trail(2) && c >= 0x800 && ok(c)) return *len = 3, true;
  } else if (s.size() >= 4 && (b(0) & 0xF8) == 0xF0) {
    c = char32_t(b(0) & 0x07) << 18 | char32_t(b(1) & 0x3F) << 12 | char32_t(b(2) & 0x3F) << 6 | (b(3) & 0x3F);
    if (trail(1) && trail(2) && trail(3) && c >= 0x10000 && ok(c)) return *len = 4, true;
  }
  return false;
}

constexpr std::string_view kSpace = "\xE2\x96\x81";        // U+2581, the escaped space
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace attnseq::spm_utf8
