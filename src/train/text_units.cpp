// UTF-8 to code points and back, and Python's notion of white space (train/text_units.hpp).
#include "train/text_units.hpp"

namespace attnseq::train {

std::u32string decode_utf8(std::string_view s) {
  std::u32string out;
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  while (i < s.size()) {
    const unsigned c = byte(i);
    std::size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k) {
      ok = (byte(i + k) & 0xC0) == 0x80;
      cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    static const char32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= min_cp[n] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (!ok) {
      out += char32_t(kRawByte + c);
      ++i;
      continue;
    }
    out += cp;
    i += n;
  }
  return out;
}

std::string encode_utf8(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) {
    if (c >= kRawByte) {
      out += char(c - kRawByte);
    } else if (c < 0x80) {
      out += char(c);
    } else if (c < 0x800) {
      out += char(0xC0 | (c >> 6));
      out += char(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += char(0xE0 | (c >> 12));
      out += char(0x80 | ((c >> 6) & 0x3F));
      out += char(0x80 | (c & 0x3F));
    } else {
      out += char(0xF0 | (c >> 18));
      out += char(0x80 | ((c >> 12) & 0x3F));
      out += char(0x80 | ((c >> 6) & 0x3F));
      out += char(0x80 | (c & 0x3F));
    }
  }
  return out;
}

bool is_unicode_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<std::string> split_unicode_whitespace(std::u32string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_unicode_space(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !is_unicode_space(s[i])) ++i;
    if (i > start) out.push_back(encode_utf8(s.substr(start, i - start)));
  }
  return out;
}

}  // namespace attnseq::train
