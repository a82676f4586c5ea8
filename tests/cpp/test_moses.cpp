// The Moses reference pipeline (src/train/moses.hpp): every line of data/multi30k against what the Perl scripts
// made of it (data/multi30k/tok), then each rule on a small case; the expected strings are the Perl pipeline's.
#include <doctest/doctest.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "train/moses.hpp"

using attnseq::train::moses_lowercase;
using attnseq::train::moses_normalize_punctuation;
using attnseq::train::moses_tokenize;
using attnseq::train::moses_tokenize_line;

namespace {
std::string tok(const std::string& line, const std::string& lang) { return moses_tokenize_line(line, lang); }
}  // namespace

TEST_CASE("moses: every Multi30K line and language reproduces the Perl pipeline's tokenized reference") {
  const std::string dir = std::string(ATTNSEQ_DATA_DIR) + "/multi30k/";
  long long lines = 0, mismatches = 0;
  for (const std::string split : {"train", "val", "test_2016_flickr", "test_2017_flickr"}) {
    for (const std::string lang : {"en", "de", "fr"}) {
      const std::string raw_path = dir + "raw/" + split + "." + lang;
      const std::string tok_path = dir + "tok/" + split + ".lc.norm.tok." + lang;
      std::ifstream raw(raw_path), want(tok_path);
      REQUIRE_MESSAGE(raw.good(), "cannot open " << raw_path);
      REQUIRE_MESSAGE(want.good(), "cannot open " << tok_path);
      std::string line, expected;
      for (long long n = 1; std::getline(raw, line); ++n) {
        REQUIRE_MESSAGE(std::getline(want, expected), tok_path << " ends before line " << n);
        ++lines;
        const std::string got = moses_tokenize_line(line, lang);
        if (got != expected && ++mismatches <= 5) {
          CAPTURE(raw_path);
          CAPTURE(n);
          CAPTURE(line);
          CAPTURE(expected);
          CHECK(got == expected);
        }
      }
      CHECK_MESSAGE(!std::getline(want, expected), tok_path << " has more lines than " << raw_path);
    }
  }
  CHECK(lines == 96042);
  CHECK(mismatches == 0);
}

TEST_CASE("moses: English splits a clitic with its apostrophe, French keeps the apostrophe on the elided word") {
  CHECK(tok("John's dog isn't here.", "en") == "john &apos;s dog isn &apos;t here .");
  CHECK(tok("the 1990's", "en") == "the 1990 &apos;s");
  CHECK(tok("rock 'n' roll", "en") == "rock &apos; n &apos; roll");
  // One pass, no overlap: the b taken by the first match cannot begin a second.
  CHECK(tok("a'b'c", "en") == "a &apos;b&apos;c");
  CHECK(tok("L'homme d'affaires", "fr") == "l&apos; homme d&apos; affaires");
  CHECK(tok("aujourd'hui", "fr") == "aujourd&apos; hui");
  CHECK(tok("Peter's Hund", "de") == "peter &apos; s hund");
  CHECK(moses_tokenize("John's dog.", "en") == std::vector<std::string>{"john", "&apos;s", "dog", "."});
}

TEST_CASE("moses: a final period splits off unless a nonbreaking prefix or a lowercase word keeps it") {
  CHECK(tok("It costs 5.", "en") == "it costs 5 .");
  CHECK(tok("Er kam am 5.", "de") == "er kam am 5.");  // de lists 1-99 (ordinals)
  CHECK(tok("Es kostet 100.", "de") == "es kostet 100 .");
  CHECK(tok("Bücher, Hefte usw.", "de") == "bücher , hefte usw.");
  CHECK(tok("des livres etc.", "fr") == "des livres etc.");
  CHECK(tok("il y a.", "fr") == "il y a .");  // fr lists every letter but a
  // Inside the line a lowercase next word keeps the period, and after lowercasing nearly every word is one.
  CHECK(tok("A dog. A cat.", "en") == "a dog. a cat .");
  // en's pp holds only before a number.
  CHECK(tok("see pp. 5 and pp. (x)", "en") == "see pp. 5 and pp . ( x )");
  // A period inside the word with a letter: an abbreviation.
  CHECK(tok("in the U.S.", "en") == "in the u.s.");
  CHECK(tok("wait... what..", "en") == "wait ... what ..");
  // A period and an apostrophe at the end split, leaving the Perl tokenizer's trailing space.
  CHECK(tok("on a motorcycle .`", "en") == "on a motorcycle  . &apos; ");
}

TEST_CASE("moses: commas split off unless between two numbers") {
  CHECK(tok("5,000 people, dogs,and 3,", "en") == "5,000 people , dogs , and 3 ,");
  CHECK(tok("a,b,c", "en") == "a , b , c");
  CHECK(tok("1,a", "en") == "1 , a");
}

TEST_CASE("moses: the XML specials are escaped, and other punctuation stands alone") {
  CHECK(tok("a & b < c > d | e [f] \"g\"", "en") == "a &amp; b &lt; c &gt; d &#124; e &#91; f &#93; &quot; g &quot;");
  CHECK(tok("(hello)!", "en") == "( hello ) !");
  CHECK(tok("well-known 50%", "en") == "well-known 50 %");  // no aggressive hyphen splitting
}

TEST_CASE("moses: normalize-punctuation's quotes, dashes and spaces") {
  // Typographic quotes become ASCII ones; an apostrophe between letters becomes '.
  CHECK(moses_normalize_punctuation("\u201EHallo\u201C, sagte er", "de") == "\"Hallo\", sagte er");
  CHECK(moses_normalize_punctuation("it\u2019s \u2018x\u2019", "en") == "it's \"x\"");
  CHECK(moses_normalize_punctuation("a\u2013b \u2014 c \u2026", "en") == "a-b - c ...");
  CHECK(moses_normalize_punctuation("``quoted''", "en") == " \" quoted \" ");  // `` to '' to " with spaces
  // Brackets: a space outside, none inside; no space before : ; or after ) before punctuation.
  CHECK(moses_normalize_punctuation("a(  b  )  , c : d ; 5 %", "en") == "a (b), c: d; 5%");
  // Guillemets with non-breaking spaces, and the other non-breaking spaces.
  CHECK(moses_normalize_punctuation("\u00AB\u00A0Bonjour\u00A0\u00BB, dit-il\u00A0!", "fr") == "\"Bonjour\", dit-il!");
  CHECK(moses_normalize_punctuation("1\u00A0000", "en") == "1.000");
  CHECK(moses_normalize_punctuation("1\u00A0000", "fr") == "1,000");
  // English moves a quote after a comma or period, German and French before them (a line's end counts too).
  CHECK(moses_normalize_punctuation("He said \"hi\".", "en") == "He said \"hi.\"");
  CHECK(moses_normalize_punctuation("\"Hallo.\" sagte er", "de") == "\"Hallo\". sagte er");
  CHECK(moses_normalize_punctuation("Er sagte \"Hallo.\"", "de") == "Er sagte \"Hallo\".");
  CHECK(moses_normalize_punctuation("\"Oui,\" dit-il", "fr") == "\"Oui\", dit-il");
  CHECK(tok("He said \u201Chi\u201D.", "en") == "he said &quot; hi . &quot;");
}

TEST_CASE("moses: lowercase is Unicode's, for Latin, Greek and Cyrillic") {
  CHECK(moses_lowercase("ÀÉÎÕÜ ÇŒ ẞ") == "àéîõü çœ ß");
  CHECK(moses_lowercase("ΑΒΓ ΣΟΦΙΑ") == "αβγ σοφια");  // Perl's lc has no final sigma
  CHECK(moses_lowercase("ДЖЯ Ёж") == "джя ёж");
  CHECK(moses_lowercase("İ") == "i\u0307");  // two characters
  CHECK(moses_lowercase("Ǆ ǅ Ⅻ") == "ǆ ǆ ⅻ");
  CHECK(moses_lowercase("中文 😀") == "中文 😀");
}

TEST_CASE("moses: a language other than en, de and fr is refused by name") {
  CHECK_THROWS_AS(moses_tokenize("a", "es"), std::invalid_argument);
  CHECK_THROWS_WITH(moses_tokenize_line("a", "es"), doctest::Contains("'es'"));
  CHECK_THROWS_WITH(moses_normalize_punctuation("a", "EN"), doctest::Contains("'EN'"));
}
