// The lines of a text file as every reader here takes them (TSV tasks, pronunciation dictionaries,
// parallel text, lexicons): split at '\n', a '\r' before it dropped (CRLF files), a UTF-8
// byte-order mark at the start dropped (some editors save one; it is no part of the first word), and
// a last line without '\n' still a line, while a final '\n' makes no empty line after it.
#pragma once
#include <cstddef>
#include <string_view>

namespace attnseq {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Calls f(line, number) for each line of `text`, numbered from 1.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t pos = text.substr(0, 3) == kUtf8Bom ? 3 : 0, number = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line, ++number);
  }
}

}  // namespace attnseq
