// Text as code points, for the scorers (BLEU's tokenisers, chrF): UTF-8 decoded to char32_t (a byte
// that is not valid UTF-8 becomes kRawByte + its value, so that encoding gives the same bytes back),
// and white space as Python's str.split() sees it (the Unicode white space characters).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attnseq::train {

constexpr char32_t kRawByte = 0x110000;  // beyond Unicode: kRawByte + b stands for an invalid byte b

std::u32string decode_utf8(std::string_view s);
std::string encode_utf8(std::u32string_view s);
// Python's str.isspace(): \t \n \v \f \r, U+001C-U+001F, space, U+0085, U+00A0, U+1680, U+2000-U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_unicode_space(char32_t c);
// Python's str.split(): the runs between white space, encoded back to UTF-8.
std::vector<std::string> split_unicode_whitespace(std::u32string_view s);

}  // namespace attnseq::train
