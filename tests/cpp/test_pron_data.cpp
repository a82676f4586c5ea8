// The pronunciation dictionary reader (src/train/pron_data.hpp): each refusal names file, line and
// what is wrong; lines and references of a word merge; the shipped CMUdict split (data/cmudict/) has
// its documented counts; the development split is disjoint, complete and stable for a seed.
// The real files are read once, in one test case, so the slow builds (ASan, wasm scalar) stay fast.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "train/pron_data.hpp"

#ifndef ATTNSEQ_DATA_DIR
#define ATTNSEQ_DATA_DIR "data"
#endif

using namespace attnseq::train;
using Strings = std::vector<std::string>;

namespace {

std::string error_of(const std::string& text, const std::string& name = "dict.txt",
                     PronFormat format = PronFormat::Arpabet) {
  try {
    parse_pron(text, name, format);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<ok>";
}

std::unordered_set<std::string> words_of(const std::vector<PronEntry>& v) {
  std::unordered_set<std::string> out;
  for (const auto& e : v) out.insert(e.word);
  return out;
}

}  // namespace

TEST_CASE("pron_data: the phoneme set is the 39 stressless ARPAbet phonemes") {
  CHECK(arpabet_phonemes().size() == 39);
  CHECK(std::is_sorted(arpabet_phonemes().begin(), arpabet_phonemes().end()));
  CHECK(is_arpabet("NG"));
  CHECK(is_arpabet("ZH"));
  CHECK_FALSE(is_arpabet("AH0"));  // stress marks are not part of the set
  CHECK_FALSE(is_arpabet("ah"));
  CHECK_FALSE(is_arpabet("AX"));  // in the 48-phone TIMIT set, not in CMUdict's
  CHECK_FALSE(is_arpabet(""));
}

TEST_CASE("pron_data: several lines and several references of a word merge, in file order") {
  const auto d = parse_pron("READ\tR IY D\nA\tAH\nREAD\tR EH D\nA\tEY\tAH\nO'BRIEN\tOW B R AY AH N\r\n", "x");
  CHECK(d.lines == 5);
  REQUIRE(d.entries.size() == 3);
  CHECK(d.entries[0].word == "READ");
  CHECK(d.entries[0].refs == Strings{"R IY D", "R EH D"});
  CHECK(d.entries[1].word == "A");
  CHECK(d.entries[1].refs == Strings{"AH", "EY"});  // the repeated AH is kept once
  CHECK(d.entries[2].word == "O'BRIEN");            // apostrophe allowed; the CRLF's \r is dropped
  CHECK(d.entries[2].refs == Strings{"OW B R AY AH N"});
  CHECK(d.references() == 5);
  // Runs of spaces between phonemes are normalised to the single spaces a model's text output has.
  CHECK(parse_pron("AB\t EY  B IY \n", "x").entries[0].refs == Strings{"EY B IY"});
  CHECK(split_phonemes("EY  B IY") == Strings{"EY", "B", "IY"});
  // No final newline and an empty text are both fine.
  CHECK(parse_pron("A\tAH", "x").lines == 1);
  CHECK(parse_pron("", "x").entries.empty());
}

TEST_CASE("pron_data: malformed lines are refused with file, line and what is wrong") {
  const std::string ok = "A\tAH\n";
  CHECK(error_of(ok + "AB EY B IY\n") == "dict.txt:2: no tab between the word and its pronunciation");
  CHECK(error_of(ok + ok + "\tEY B IY\n") == "dict.txt:3: empty word before the tab");
  CHECK(error_of("AB\t\n") == "dict.txt:1: empty pronunciation (reference 1)");
  CHECK(error_of("AB\t  \n") == "dict.txt:1: empty pronunciation (reference 1)");
  CHECK(error_of("AB\tEY B IY\t\n") == "dict.txt:1: empty pronunciation (reference 2)");
  CHECK(error_of(ok + "Ab\tEY B IY\n") ==
        "dict.txt:2: character 'b' at column 2 of the word is outside A-Z and the apostrophe (an IPA dictionary: "
        "--phones ipa)");
  CHECK(error_of("B4\tB IY F AO R\n") ==
        "dict.txt:1: character '4' at column 2 of the word is outside A-Z and the apostrophe (an IPA dictionary: "
        "--phones ipa)");
  CHECK(error_of("A B\tEY B IY\n") ==
        "dict.txt:1: character byte 0x20 at column 2 of the word is outside A-Z and the apostrophe (an IPA dictionary: "
        "--phones ipa)");
  CHECK(error_of("\xC3\x89T\xC3\x89\tEY T EY\n") ==
        "dict.txt:1: character byte 0xC3 at column 1 of the word is outside A-Z and the apostrophe (an IPA dictionary: "
        "--phones ipa)");
  CHECK(error_of(ok + ok + ok + "AB\tEY1 B IY0\n") ==
        "dict.txt:4: phoneme \"EY1\" (reference 1) is not one of the 39 ARPAbet phonemes without stress (an IPA "
        "dictionary: --phones ipa)");
  CHECK(error_of("AB\tEY B IY\tEY B ih\n") ==
        "dict.txt:1: phoneme \"ih\" (reference 2) is not one of the 39 ARPAbet phonemes without stress (an IPA "
        "dictionary: --phones ipa)");
  CHECK(error_of(ok + "\n" + ok) == "dict.txt:2: empty line");
  CHECK(error_of(ok + "\r\n") == "dict.txt:2: empty line");
  // The name given is the one reported.
  CHECK(error_of("AB EY\n", "data/cmudict/g014b2b.train") ==
        "data/cmudict/g014b2b.train:1: no tab between the word and its pronunciation");
}

TEST_CASE("pron_data: a file with a bad last line loads nothing, a missing file names itself") {
  const std::string path = "pron_data_test_bad.tmp";
  {
    std::ofstream f(path, std::ios::binary);
    f << "A\tAH\nAB\tEY B IY\nAC\tEY S IY\nAD\tEY D IY Q\n";
  }
  std::string what;
  bool loaded = false;
  try {
    read_pron_file(path);
    loaded = true;
  } catch (const std::invalid_argument& e) {
    what = e.what();
  }
  std::remove(path.c_str());
  CHECK_FALSE(loaded);  // read_pron_file returns a whole PronData or nothing at all
  CHECK(what == path +
                    ":4: phoneme \"Q\" (reference 1) is not one of the 39 ARPAbet phonemes without stress (an IPA "
                    "dictionary: --phones ipa)");
  CHECK_THROWS_WITH_AS(read_pron_file("no/such/dict.txt"), "cannot open 'no/such/dict.txt'", std::invalid_argument);
}

TEST_CASE("pron_data: split_dev refuses a fraction outside 0 to 1 (1 excluded) and holds out nothing at 0") {
  const auto d = parse_pron("A\tAH\nB\tB IY\nC\tS IY\n", "x");
  CHECK_THROWS_AS(split_dev(d, 1.0, 1), std::invalid_argument);
  CHECK_THROWS_AS(split_dev(d, -0.1, 1), std::invalid_argument);
  const auto s = split_dev(d, 0.0, 1);
  CHECK(s.dev.empty());
  CHECK(words_of(s.train) == std::unordered_set<std::string>{"A", "B", "C"});
}

// One test case for everything that needs the real files, so each is read once (about 3 MB).
TEST_CASE("pron_data: the CMUdict G2P split in data/cmudict has its documented counts, and the dev split") {
  const std::string dir = ATTNSEQ_DATA_DIR "/cmudict/";
  const PronData train = read_pron_file(dir + "g014b2b.train");
  const PronData ref = read_pron_file(dir + "g014b2b.ref");

  // data/cmudict/README.md: 113,438 lines and 106,837 distinct words in train, one line a pronunciation.
  CHECK(train.lines == 113438);
  CHECK(train.entries.size() == 106837);
  CHECK(train.references() == 113438);
  // 12,000 test words on 12,000 lines, 673 of them with 2 to 6 references.
  CHECK(ref.lines == 12000);
  CHECK(ref.entries.size() == 12000);
  std::size_t multi = 0, most = 0;
  for (const auto& e : ref.entries) {
    multi += e.refs.size() >= 2;
    most = std::max(most, e.refs.size());
  }
  CHECK(multi == 673);
  CHECK(most == 6);

  // g014b2b.words is the ref file's first column, in order.
  std::ifstream wf(dir + "g014b2b.words");
  REQUIRE_MESSAGE(wf.good(), "cannot open " << dir << "g014b2b.words");
  Strings words;
  for (std::string w; std::getline(wf, w);) words.push_back(w);
  REQUIRE(words.size() == ref.entries.size());
  bool same_order = true;
  for (std::size_t i = 0; i < words.size(); ++i) same_order = same_order && words[i] == ref.entries[i].word;
  CHECK(same_order);

  // Train and test share no word, and together they use every one of the 39 phonemes.
  const auto train_words = words_of(train.entries), test_words = words_of(ref.entries);
  std::size_t shared = 0;
  for (const auto& w : test_words) shared += train_words.count(w);
  CHECK(shared == 0);
  std::set<std::string> used;
  for (const auto& e : train.entries)
    for (const auto& r : e.refs)
      for (auto& p : split_phonemes(r)) used.insert(std::move(p));
  CHECK(used.size() == 39);

  // The development split: 3 % of the words, none in both parts, together all of them.
  const auto a = split_dev(train, 0.03, 7);
  const std::size_t k = std::size_t(std::llround(0.03 * 106837));
  CHECK(a.dev.size() == k);
  CHECK(a.train.size() == 106837 - k);
  // train_words holds every word once, so the parts are disjoint and complete exactly when each word
  // of the two parts is found in it and the sizes add up with no word counted twice.
  const auto a_dev = words_of(a.dev);
  std::unordered_set<std::string> seen;
  std::size_t both = 0;
  for (const auto* part : {&a.dev, &a.train})
    for (const auto& e : *part) both += !seen.insert(e.word).second;
  CHECK(both == 0);
  CHECK(seen == train_words);
  // A held-out word keeps all its pronunciations (they were merged before splitting).
  std::size_t refs = 0;
  for (const auto& e : a.dev) refs += e.refs.size();
  for (const auto& e : a.train) refs += e.refs.size();
  CHECK(refs == 113438);

  // Stable: the same seed gives the same words, even from the entries in another order; another
  // seed gives another choice.
  CHECK(words_of(split_dev(train, 0.03, 7).dev) == a_dev);
  PronData shuffled;  // the words alone: the split looks at nothing else (and copies stay cheap)
  for (const auto& e : train.entries) shuffled.entries.push_back({e.word, {}});
  std::mt19937 g(123);
  std::shuffle(shuffled.entries.begin(), shuffled.entries.end(), g);
  CHECK(words_of(split_dev(shuffled, 0.03, 7).dev) == a_dev);
  const auto b_dev = words_of(split_dev(train, 0.03, 8).dev);
  CHECK(b_dev.size() == k);
  std::size_t common = 0;
  for (const auto& w : b_dev) common += a_dev.count(w);
  CHECK(common < k / 10);  // two independent 3 % draws share about 3 % of their words
  // Within each part the file's order is kept.
  std::vector<std::size_t> pos;
  for (std::size_t i = 0, j = 0; i < train.entries.size() && j < a.dev.size(); ++i)
    if (train.entries[i].word == a.dev[j].word) pos.push_back(i), ++j;
  CHECK(pos.size() == a.dev.size());
}

TEST_CASE("pron_data: IPA dictionaries take any word as given and phones of several code points") {
  // Words with spaces and Hangul, phones with tie bars and diacritics, a CRLF line, a word on two lines.
  const std::string text =
      "\xEA\xB5\xAD\xEB\xAC\xBC\tk u \xC5\x8B m u l\n"               // 국물
      "prydain fawr\tp r \xC9\x99 d a\xC9\xAA n v a u r\r\n"         // Welsh, a space in the word
      "\xEA\xB0\x99\xEC\x9D\xB4\tk a t\xCD\xA1\xC9\x95\xCA\xB0 i\n"  // 같이: k a t͡ɕʰ i
      "\xEA\xB5\xAD\xEB\xAC\xBC\tk u \xC5\x8B m u \xC9\xAD\n";
  const PronData d = parse_pron(text, "kor.tsv", PronFormat::Ipa);
  REQUIRE(d.entries.size() == 3);
  CHECK(d.lines == 4);
  CHECK(d.entries[0].word == "\xEA\xB5\xAD\xEB\xAC\xBC");
  CHECK(d.entries[0].refs == Strings{"k u \xC5\x8B m u l", "k u \xC5\x8B m u \xC9\xAD"});
  CHECK(d.entries[1].word == "prydain fawr");
  CHECK(split_phonemes(d.entries[2].refs[0]) == Strings{"k", "a", "t\xCD\xA1\xC9\x95\xCA\xB0", "i"});
  // The phone set and the characters, sorted by their bytes, each once.
  CHECK(pron_phones(d) == Strings{"a", "a\xC9\xAA", "d", "i", "k", "l", "m", "n", "p", "r", "t\xCD\xA1\xC9\x95\xCA\xB0",
                                  "u", "v", "\xC5\x8B", "\xC9\x99", "\xC9\xAD"});
  const Strings letters = pron_letters(d);
  CHECK(letters.front() == " ");
  CHECK(std::find(letters.begin(), letters.end(), "\xEA\xB5\xAD") != letters.end());  // 국, one character
  CHECK(std::is_sorted(letters.begin(), letters.end()));
  CHECK(std::set<std::string>(letters.begin(), letters.end()).size() == letters.size());
  // The same file read as ARPAbet is refused, pointing at the other format.
  CHECK(error_of(text, "kor.tsv") ==
        "kor.tsv:1: character byte 0xEA at column 1 of the word is outside A-Z and the apostrophe (an IPA "
        "dictionary: --phones ipa)");
  CHECK(pron_format("ipa", "--phones") == PronFormat::Ipa);
  CHECK(pron_format("arpabet", "--phones") == PronFormat::Arpabet);
  CHECK_THROWS_WITH_AS(pron_format("IPA", "--phones"), "--phones is arpabet or ipa, not 'IPA'", std::invalid_argument);
}

TEST_CASE("pron_data: malformed IPA lines are refused with file, line and what is wrong") {
  const auto ipa = [](const std::string& t) { return error_of(t, "x.tsv", PronFormat::Ipa); };
  const std::string ok = "ab\ta b\n";
  CHECK(ipa(ok + "ab a b\n") == "x.tsv:2: no tab between the word and its pronunciation");
  CHECK(ipa(ok + "\ta b\n") == "x.tsv:2: empty word before the tab");
  CHECK(ipa("ab\t \n") == "x.tsv:1: empty pronunciation (reference 1)");
  CHECK(ipa(ok + "a\xC3"
                 "b\ta b\n") == "x.tsv:2: the word is not valid UTF-8 (byte 2)");
  CHECK(ipa("a\x01"
            "b\ta b\n") == "x.tsv:1: the word has a control character (character 2)");
  CHECK(ipa("a\xC2\x85\ta\n") == "x.tsv:1: the word has a control character (character 2)");            // C1 NEL
  CHECK(ipa("ab\ta \xED\xA0\x80\n") == "x.tsv:1: phone 2 of reference 1 is not valid UTF-8 (byte 1)");  // a surrogate
  CHECK(ipa("ab\ta\tb \x7F\n") == "x.tsv:1: phone 2 of reference 2 has a control character (character 1)");
  CHECK(ipa(ok + "\n") == "x.tsv:2: empty line");
  // Nothing of a file with one bad line is kept (parse_pron returns all or throws).
  CHECK(ipa(ok + ok + "b\n") == "x.tsv:3: no tab between the word and its pronunciation");
}

TEST_CASE("pron_data: every SIGMORPHON 2021 file in data/sigmorphon2021-g2p reads as IPA, with its documented counts") {
  const std::string dir = ATTNSEQ_DATA_DIR "/sigmorphon2021-g2p/";
  // data/sigmorphon2021-g2p/README.md: train / dev / test words per subtask, one pronunciation each.
  struct Subtask {
    const char* name;
    std::size_t train, dev;
    Strings langs;
  } subtasks[] = {
      {"high", 33344, 4168, {"eng_us"}},
      {"medium", 8000, 1000, {"arm_e", "bul", "dut", "fre", "geo", "hbs_latn", "hun", "jpn_hira", "kor", "vie_hanoi"}},
      {"low", 800, 100, {"ady", "gre", "ice", "ita", "khm", "lav", "mlt_latn", "rum", "slv", "wel_sw"}},
  };
  int files = 0;
  for (const auto& st : subtasks)
    for (const auto& lang : st.langs)
      for (const char* split : {"train", "dev", "test"}) {
        const std::string path = dir + st.name + "/" + lang + "_" + split + ".tsv";
        CAPTURE(path);
        const PronData d = read_pron_file(path, PronFormat::Ipa);
        const std::size_t want = std::string(split) == "train" ? st.train : st.dev;
        CHECK(d.lines == want);
        CHECK(d.entries.size() == want);  // one line per word
        CHECK(d.references() == want);
        ++files;
      }
  CHECK(files == 63);
}
