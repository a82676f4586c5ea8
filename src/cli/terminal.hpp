// Text from a file (a checkpoint's name, description, vocabulary) on its way to a terminal: control
// characters are shown as \xNN, so a file cannot move the cursor, clear the screen or retitle the
// window. Free text follows bin/attnseq.js's printable(), so both command lines print it alike.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace attnseq::cli {

// C0 controls (but tab and newline in free text), DEL, and the C1 controls U+0080..U+009F (UTF-8
// C2 80..C2 9F) become \xNN; a label (a token, a piece) escapes tab and newline too, so that it stays
// on its row.
inline std::string printable(std::string_view s, bool label = false) {
  std::string out;
  out.reserve(s.size());
  auto hex = [&](unsigned v) {
    char b[8];
    std::snprintf(b, sizeof b, "\\x%02x", v);
    out += b;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool kept_blank = !label && (c == '\t' || c == '\n');
    if ((c < 0x20 && !kept_blank) || c == 0x7f) {
      hex(c);
    } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      hex(static_cast<unsigned char>(s[++i]));
    } else {
      out += char(c);
    }
  }
  return out;
}

}  // namespace attnseq::cli
