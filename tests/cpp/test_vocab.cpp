// Tokenizer tests (src/model/vocab.hpp): char splitting into code points (Korean, emoji), strict
// UTF-8 with the byte offset of the first bad byte, word splitting on runs of ASCII whitespace,
// unknown pieces -> unk, decode dropping pad/bos/eos, the text-size limit, ids-only vocabularies.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/vocab.hpp"
#include "test_util.hpp"

using namespace attnseq;
using Pieces = std::vector<std::string>;

namespace {

using test::error_of;

Vocab char_vocab() {
  return Vocab(TokenizerKind::Char,
               {"<pad>", "<s>", "</s>", "<unk>", "제", "인", "이", " ", "가", "게", "에", "갔", "다", "😀", "a", "b"}, 0,
               1, 2, 3, "tgt_vocab");
}

Vocab word_vocab() {
  return Vocab(TokenizerKind::Word, {"<pad>", "<s>", "</s>", "<unk>", "Jane", "went", "to", "the", "store", "제인이"},
               0, 1, 2, 3, "src_vocab");
}

}  // namespace

TEST_CASE("tokenizer: char splits Korean into code points") {
  const Pieces p = split_chars("제인이 가게에 갔다");
  CHECK(p == Pieces{"제", "인", "이", " ", "가", "게", "에", " ", "갔", "다"});
  CHECK(p.size() == 10);
  for (const auto& s : p) CHECK((s.size() == 3 || s == " "));
  CHECK(split_chars("").empty());
  CHECK(split_chars("a\tb") == Pieces{"a", "\t", "b"});
  // Boundaries of every sequence length: U+007F, U+0080, U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF.
  CHECK(split_chars("\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF") ==
        Pieces{"\x7F", "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF"});
  // U+D7FF and U+E000 sit just outside the surrogates and are fine.
  CHECK(split_chars("\xED\x9F\xBF\xEE\x80\x80").size() == 2);
  // NUL is a character like any other (string_view, not C strings).
  CHECK(split_chars(std::string("a\0b", 3)) == Pieces{"a", std::string(1, '\0'), "b"});
}

TEST_CASE("invalid_utf8_at finds the byte split_chars refuses, in text of any size") {
  CHECK(invalid_utf8_at("") == std::string_view::npos);
  CHECK(invalid_utf8_at("제인이 a\tb 😀") == std::string_view::npos);
  const std::string bad[] = {"\xFF", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82 ", "\xE2\x82"};
  for (const auto& b : bad) {
    const std::string text = "ok 제 " + b + " more";
    CHECK(invalid_utf8_at(text) == 7);
    CHECK(error_of([&] { split_chars(text); }) == "invalid UTF-8 at byte 7");
  }
  // Past the tokenizer's size limit it still answers (split_chars would refuse the size).
  std::string big(kMaxTextBytes + 10, 'a');
  CHECK(invalid_utf8_at(big) == std::string_view::npos);
  big[kMaxTextBytes + 5] = '\x80';
  CHECK(invalid_utf8_at(big) == kMaxTextBytes + 5);
}

TEST_CASE("tokenizer: an emoji (4 bytes) is one piece") {
  CHECK(split_chars("😀") == Pieces{"😀"});
  CHECK(std::string("😀").size() == 4);
  CHECK(split_chars("a😀b") == Pieces{"a", "😀", "b"});
  // A flag is two regional-indicator code points: code points, not grapheme clusters.
  CHECK(split_chars("🇰🇷").size() == 2);
}

TEST_CASE("tokenizer: invalid UTF-8 is refused with the byte offset") {
  struct Case {
    const char* what;
    std::string text;
    std::size_t offset;
  };
  const Case cases[] = {
      {"lone continuation byte",
       "ab\x80"
       "cd",
       2},
      {"continuation byte first", "\xBF", 0},
      {"truncated 3-byte sequence at the end", "x\xEA\xB0", 1},
      {"truncated 4-byte sequence before ASCII",
       "abc\xF0\x9F\x98"
       "d",
       3},
      {"truncated 2-byte sequence at the end", "\xC3", 0},
      {"overlong slash C0 AF", "x\xC0\xAF", 1},
      {"overlong 3-byte E0 80 AF", "\xE0\x80\xAF", 0},
      {"overlong 4-byte F0 80 80 AF", "\xF0\x80\x80\xAF", 0},
      {"surrogate ED A0 80", "ok \xED\xA0\x80", 3},
      {"low surrogate ED BF BF", "\xED\xBF\xBF", 0},
      {"above U+10FFFF F4 90 80 80", "\xF4\x90\x80\x80", 0},
      {"F5 lead byte", "\xF5\x80\x80\x80", 0},
      {"FF byte", "a\xFF", 1},
      {"5-byte form", "\xF8\x88\x80\x80\x80", 0},
      {"bad byte after a valid Korean syllable", "가\x80", 3},
  };
  for (const auto& cs : cases) {
    SUBCASE(cs.what) {
      const std::string want = "byte " + std::to_string(cs.offset);
      const std::string c = error_of([&] { split_chars(cs.text); });
      INFO("split_chars: " << c);
      CHECK(c.find("invalid UTF-8") != std::string::npos);
      CHECK(c.find(want) != std::string::npos);
      // Words validate the same way; a space before the text shifts the offset by one.
      const std::string w = error_of([&] { split_words(" " + cs.text); });
      INFO("split_words: " << w);
      CHECK(w.find("byte " + std::to_string(cs.offset + 1)) != std::string::npos);
      CHECK(error_of([&] { char_vocab().encode(cs.text); }).find(want) != std::string::npos);
      CHECK(error_of([&] { word_vocab().encode(cs.text); }).find(want) != std::string::npos);
    }
  }
}

TEST_CASE("tokenizer: word splits on runs of whitespace, tabs and newlines included") {
  CHECK(split_words("Jane went to the store") == Pieces{"Jane", "went", "to", "the", "store"});
  CHECK(split_words("  Jane \t\twent\n\nto\r\nthe \v\f store  ") == Pieces{"Jane", "went", "to", "the", "store"});
  CHECK(split_words("").empty());
  CHECK(split_words(" \t\n\r\v\f ").empty());
  CHECK(split_words("제인이 가게에\t갔다") == Pieces{"제인이", "가게에", "갔다"});
  CHECK(split_words("a😀b c") == Pieces{"a😀b", "c"});
  // Only ASCII whitespace separates: U+00A0 (no-break space) and U+3000 stay inside a word.
  CHECK(split_words("a\xC2\xA0"
                    "b") == Pieces{"a\xC2\xA0"
                                   "b"});
  CHECK(split_words("a\xE3\x80\x80"
                    "b") == Pieces{"a\xE3\x80\x80"
                                   "b"});
}

TEST_CASE("vocab: pieces map to ids, unknown pieces to unk") {
  const Vocab c = char_vocab();
  CHECK(c.has_text());
  CHECK(c.kind() == TokenizerKind::Char);
  CHECK(c.pieces("제인이 가게에 갔다").size() == 10);
  CHECK(c.encode("제인이 가게에 갔다") == std::vector<std::int32_t>{4, 5, 6, 7, 8, 9, 10, 7, 11, 12});
  CHECK(c.encode("a😀zb") == std::vector<std::int32_t>{14, 13, 3, 15});
  CHECK(c.encode("").empty());
  // Specials are whole tokens, not characters: "<s>" in char text is three unknown characters.
  CHECK(c.encode("<s>") == std::vector<std::int32_t>{3, 3, 3});
  CHECK(c.lookup("제") == 4);
  CHECK(c.lookup("nope") == 3);

  const Vocab w = word_vocab();
  CHECK(w.kind() == TokenizerKind::Word);
  CHECK(w.encode("Jane went to the store") == std::vector<std::int32_t>{4, 5, 6, 7, 8});
  CHECK(w.encode(" Jane  went\tto a\nstore ") == std::vector<std::int32_t>{4, 5, 6, 3, 8});
  CHECK(w.encode("제인이 jane") == std::vector<std::int32_t>{9, 3});  // case matters
  CHECK(w.encode("") == std::vector<std::int32_t>{});

  // A different unk id is honoured.
  const Vocab u(TokenizerKind::Word, {"x", "<unk>", "<pad>", "<s>", "</s>"}, 2, 3, 4, 1);
  CHECK(u.encode("x y") == std::vector<std::int32_t>{0, 1});
}

TEST_CASE("vocab: decode drops pad, bos and eos, joins chars without and words with spaces") {
  const Vocab c = char_vocab();
  const std::vector<std::int32_t> ids = {1, 4, 5, 6, 0, 7, 8, 9, 10, 7, 11, 12, 2, 0, 0};
  CHECK(c.decode(ids.data(), ids.size()) == "제인이 가게에 갔다");
  CHECK(c.decode(ids.data(), 0) == "");
  const std::vector<std::int32_t> only_specials = {1, 0, 2, 2};
  CHECK(c.decode(only_specials.data(), only_specials.size()) == "");
  // unk is kept (as its token), as are ids outside the vocabulary ("#id").
  const std::vector<std::int32_t> odd = {14, 3, 99, 15};
  CHECK(c.decode(odd.data(), odd.size()) == "a<unk>#99b");

  const Vocab w = word_vocab();
  const std::vector<std::int32_t> wi = {1, 4, 0, 5, 6, 7, 8, 2};
  CHECK(w.decode(wi.data(), wi.size()) == "Jane went to the store");
  const std::vector<std::int32_t> lead = {0, 0, 9, 2, 4};  // eos in the middle is dropped, not a stop
  CHECK(w.decode(lead.data(), lead.size()) == "제인이 Jane");

  CHECK(c.token(4) == "제");
  CHECK(c.token(-1) == "#-1");
  CHECK(c.token(16) == "#16");
  // Round trip for text made of known pieces.
  const auto e = c.encode("가게에 갔다 😀");
  CHECK(c.decode(e.data(), e.size()) == "가게에 갔다 😀");
  const auto we = w.encode("\tthe  store\n");
  CHECK(w.decode(we.data(), we.size()) == "the store");
}

TEST_CASE("vocab: duplicate tokens are refused, naming both ids and the side") {
  const std::string msg = error_of([] {
    (void)Vocab(TokenizerKind::Char, {"<pad>", "<s>", "</s>", "<unk>", "a", "b", "a"}, 0, 1, 2, 3, "src_vocab");
  });
  INFO(msg);
  CHECK(msg.find("src_vocab") != std::string::npos);
  CHECK(msg.find("\"a\"") != std::string::npos);
  CHECK(msg.find("4") != std::string::npos);
  CHECK(msg.find("6") != std::string::npos);
  CHECK(error_of([] { (void)Vocab(TokenizerKind::Word, {"x", "y"}, 0, 1, 0, 1); }) == "<ok>");
}

TEST_CASE("tokenizer: text over kMaxTextBytes is refused, the limit itself is fine") {
  const std::string limit(kMaxTextBytes, 'a');
  CHECK(split_words(limit).size() == 1);
  std::string spaced(kMaxTextBytes, ' ');
  spaced[0] = 'x';
  CHECK(split_chars(spaced).size() == kMaxTextBytes);
  const std::string over(kMaxTextBytes + 1, 'a');
  const std::string want = std::to_string(kMaxTextBytes);
  for (const std::string& msg :
       {error_of([&] { split_chars(over); }), error_of([&] { split_words(over); }),
        error_of([&] { char_vocab().encode(over); }), error_of([&] { word_vocab().encode(over); }),
        error_of([&] { word_vocab().pieces(over); })}) {
    INFO(msg);
    CHECK(msg.find(want) != std::string::npos);
    CHECK(msg.find(std::to_string(kMaxTextBytes + 1)) != std::string::npos);
  }
  // The size check comes first: an over-long text is refused as such even when it is invalid UTF-8.
  const std::string bad_over(kMaxTextBytes + 1, '\xFF');
  CHECK(error_of([&] { split_chars(bad_over); }).find(want) != std::string::npos);
}

TEST_CASE("vocab: an ids-only vocabulary refuses text with a clear message") {
  const Vocab ids;  // what a checkpoint without a tokenizer gives
  CHECK_FALSE(ids.has_text());
  CHECK(ids.kind() == TokenizerKind::Ids);
  for (const std::string& msg : {error_of([&] { ids.encode("hello"); }), error_of([&] { ids.pieces("hello"); }),
                                 error_of([&] { ids.encode(""); })}) {
    INFO(msg);
    CHECK(msg.find("no vocabulary") != std::string::npos);
    CHECK(msg.find("token ids") != std::string::npos);
  }
  const Vocab ids2(TokenizerKind::Ids, {}, 0, 1, 2, 3);
  CHECK_THROWS_AS(ids2.encode("x"), std::invalid_argument);
  // Ids-only decode names every id.
  const std::vector<std::int32_t> seq = {1, 17, 4, 2, 0};
  CHECK(ids.decode(seq.data(), seq.size()) == "#17 #4");
  CHECK(ids.token(5) == "#5");
}

TEST_CASE("hangul_jamo: each precomposed syllable becomes its leading consonant, vowel and final (NFD)") {
  // 국 = U+AC6D -> U+1100 U+116E U+11A8 (ᄀ ᅮ ᆨ); 물 -> ᄆ ᅮ ᆯ; 이 has no final: ᄋ ᅵ.
  CHECK(hangul_jamo("\xEA\xB5\xAD") == "\xE1\x84\x80\xE1\x85\xAE\xE1\x86\xA8");
  CHECK(hangul_jamo("\xEC\x9D\xB4") == "\xE1\x84\x8B\xE1\x85\xB5");
  // The first and last syllables of the block, and the code points around it, which stay.
  CHECK(hangul_jamo("\xEA\xB0\x80") == "\xE1\x84\x80\xE1\x85\xA1");              // 가 U+AC00
  CHECK(hangul_jamo("\xED\x9E\xA3") == "\xE1\x84\x92\xE1\x85\xB5\xE1\x87\x82");  // 힣 U+D7A3
  CHECK(hangul_jamo("\xEA\xAF\xBF\xED\x9E\xA4") == "\xEA\xAF\xBF\xED\x9E\xA4");  // U+ABFF, U+D7A4
  // Compatibility jamo (ㅋ U+314B), Latin, emoji and an already decomposed syllable stay as they are.
  CHECK(hangul_jamo("\xE3\x85\x8B a \xF0\x9F\x98\x80") == "\xE3\x85\x8B a \xF0\x9F\x98\x80");
  CHECK(hangul_jamo("\xE1\x84\x80\xE1\x85\xA1") == "\xE1\x84\x80\xE1\x85\xA1");
  CHECK(hangul_jamo("") == "");
  // Every syllable: 2 or 3 jamo, each in its block, and the decomposition is unique.
  int two = 0, three = 0;
  for (unsigned cp = 0xAC00; cp <= 0xD7A3; ++cp) {
    std::string s;
    s += char(0xE0 | (cp >> 12)), s += char(0x80 | ((cp >> 6) & 0x3F)), s += char(0x80 | (cp & 0x3F));
    const std::string j = hangul_jamo(s);
    (j.size() == 6 ? two : three) += 1;
  }
  CHECK(two == 19 * 21);
  CHECK(three == 19 * 21 * 27);
}

TEST_CASE("vocab: a source that reads Hangul as jamo splits syllables, and names bad bytes by the text's offsets") {
  Vocab v(TokenizerKind::Char, {"<pad>", "<s>", "</s>", "<unk>", "\xE1\x84\x80", "\xE1\x85\xAE", "\xE1\x86\xA8"}, 0, 1,
          2, 3);
  CHECK(v.pieces("\xEA\xB5\xAD") == Pieces{"\xEA\xB5\xAD"});  // syllables by default
  ModelConfig c;
  c.src_tokenizer = c.tgt_tokenizer = TokenizerKind::Char;
  c.src_tokens = c.tgt_tokens = v.tokens();
  c.src_vocab = c.tgt_vocab = int(v.tokens().size());
  c.src_jamo = true;
  const Vocab j = Vocab::source(c);
  CHECK(j.jamo());
  CHECK(j.pieces("\xEA\xB5\xAD!") == Pieces{"\xE1\x84\x80", "\xE1\x85\xAE", "\xE1\x86\xA8", "!"});
  CHECK(j.encode("\xEA\xB5\xAD") == std::vector<std::int32_t>{4, 5, 6});
  CHECK_FALSE(Vocab::target(c).jamo());  // the target side is never decomposed
  // An invalid byte after a syllable is named at its offset in the text as given (byte 3, not 9).
  CHECK(error_of([&] { j.pieces("\xEA\xB5\xAD\xFF"); }).find("byte 3") != std::string::npos);
}
