// SentencePiece compatibility (src/model/spm.hpp): for every model in tests/data/spm and every line of
// its cases.txt, the ids the engine gives must be those the library gave (MODEL.expected, made by
// tests/data/spm/make_fixtures.sh with the Debian packages), and decoding them must give the library's
// text. The models cover unigram and BPE, the identity and nmt_nfkc normalisers, byte fallback on and
// off, user-defined pieces, and each of add_dummy_prefix and remove_extra_whitespaces off.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "model/spm.hpp"
#include "test_util.hpp"

using attnseq::SpmTokenizer;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(read_text(path));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The escapes make_fixtures.sh writes: \\, \t, \n, \r and \xNN.
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    if (c == 'x' && i + 2 < s.size()) {
      out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
    }
  }
  return out;
}

std::vector<int> parse_ids(const std::string& s) {
  std::vector<int> ids;
  std::istringstream in(s);
  for (int x; in >> x;) ids.push_back(x);
  return ids;
}

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

SpmTokenizer load(const std::string& name) {
  const std::string path = attnseq::test::data_path("spm/" + name + ".model");
  return SpmTokenizer::from_bytes(read_text(path), path);
}

}  // namespace

TEST_CASE("spm: every case's ids and decoding equal the library's, for every model") {
  const auto cases = read_lines(attnseq::test::data_path("spm/cases.txt"));
  REQUIRE(cases.size() > 600);
  for (const std::string name : {"unigram_en", "unigram_de_bf", "bpe_en_bf", "bpe_de", "nfkc_en"}) {
    CAPTURE(name);
    const SpmTokenizer tok = load(name);
    const auto expected = read_lines(attnseq::test::data_path("spm/" + name + ".expected"));
    REQUIRE(expected.size() == cases.size());
    int wrong = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::string text = unescape(cases[i]);
      const auto tab = expected[i].find('\t');
      REQUIRE(tab != std::string::npos);
      const auto want = parse_ids(expected[i].substr(0, tab));
      const std::string want_text = unescape(expected[i].substr(tab + 1));
      const auto got = tok.encode(text);
      const std::string got_text = tok.decode(want);
      if ((got != want || got_text != want_text) && ++wrong <= 5) {
        CAPTURE(i);
        CAPTURE(cases[i].substr(0, 200));
        CHECK(join(got) == join(want));
        CHECK(got_text == want_text);
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("spm: the odd cases are in the fixtures and exercise unknown and byte pieces") {
  const auto cases = read_lines(attnseq::test::data_path("spm/cases.txt"));
  bool empty = false, long_line = false;
  for (const auto& c : cases) {
    empty = empty || c.empty();
    long_line = long_line || unescape(c).size() >= 10000;
  }
  CHECK(empty);
  CHECK(long_line);
  // Emoji are in no vocabulary: <unk> without byte fallback, their four UTF-8 bytes with it.
  const SpmTokenizer uni = load("unigram_en"), bf = load("unigram_de_bf");
  const auto u = uni.encode("\xF0\x9F\x90\x95");
  CHECK(u.size() == 2);  // the dummy-prefix space and one <unk> for the whole character
  CHECK(u.back() == uni.model().trainer.unk_id);
  const auto b = bf.encode("\xF0\x9F\x90\x95");
  REQUIRE(b.size() >= 4);
  CHECK(b.back() == bf.piece_to_id("<0x95>"));
  CHECK(bf.decode(b) == "\xF0\x9F\x90\x95");
  // A malformed byte is U+FFFD to the normaliser, as in spm.
  CHECK(uni.normalize("a\xFF") ==
        "\xE2\x96\x81"
        "a\xEF\xBF\xBD");
  // User-defined pieces are one id wherever they are.
  const auto dog = uni.encode("hotdog<sep>");
  CHECK(dog[dog.size() - 1] == uni.piece_to_id("<sep>"));
  CHECK(dog[dog.size() - 2] == uni.piece_to_id("dog"));
}

TEST_CASE("spm: decoding an id outside the vocabulary is refused with the id and its position") {
  const SpmTokenizer tok = load("bpe_de");
  CHECK(attnseq::test::error_of([&] {
          tok.decode({5, tok.size()});
        }) == "id 300 at position 1 is outside the vocabulary [0, 300)");
  CHECK(attnseq::test::error_of([&] { tok.decode({-1}); }).find("id -1 at position 0") == 0);
  CHECK(tok.decode({}).empty());
}

TEST_CASE("spm: a long user-defined piece is matched whole, by unigram and BPE alike") {
  for (const std::string name : {"unigram_en", "bpe_de"}) {
    CAPTURE(name);
    attnseq::SpmModel m = attnseq::parse_spm_model(read_text(attnseq::test::data_path("spm/" + name + ".model")), name);
    const std::string longest(3000, 'e');  // 'e' alone is a piece in both
    m.pieces.push_back({longest, 0.f, attnseq::SpmPieceType::UserDefined});
    const SpmTokenizer tok(m, name);
    const std::string text = "a " + longest + longest + "ee";
    const auto ids = tok.encode(text);
    const int id = tok.size() - 1;
    CHECK(std::count(ids.begin(), ids.end(), id) == 2);
    CHECK(ids.size() < 12);
    CHECK(tok.decode(ids) == text);
    CHECK(tok.decode({id}) == longest);
  }
}
