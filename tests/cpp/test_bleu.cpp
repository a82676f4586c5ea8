// BLEU's statistics and score (src/train/bleu.hpp) on cases worked out by hand, and the 13a tokeniser
// on each of its rules.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "train/bleu.hpp"
#include "train/mt_scores.hpp"

using attnseq::train::BleuStats;
using attnseq::train::score_translations;
using attnseq::train::tokenize_13a;
using Tokens = std::vector<std::string>;

namespace {
Tokens words(const std::string& s) { return tokenize_13a(s); }
}  // namespace

TEST_CASE("bleu: a hypothesis equal to its reference scores 100") {
  BleuStats s;
  s.add(words("A man is riding a bike ."), words("A man is riding a bike ."));
  CHECK(s.score() == doctest::Approx(100.0));
  CHECK(s.brevity_penalty() == 1.0);
}

TEST_CASE("bleu: precisions counted by hand, and no smoothing: a corpus without a matching 4-gram scores 0") {
  // hyp: the cat sat on the mat; ref: the cat is on the mat.
  // 1-grams: the x2 (ref has 2), cat, on, mat match; sat does not: 5/6. 2-grams: the cat, on the, the mat: 3/5.
  // 3-grams: on the mat: 1/4. 4-grams: none of 3.
  BleuStats s;
  s.add(words("the cat sat on the mat"), words("the cat is on the mat"));
  CHECK(s.matches == std::array<long long, 4>{5, 3, 1, 0});
  CHECK(s.totals == std::array<long long, 4>{6, 5, 4, 3});
  CHECK(s.precision(1) == doctest::Approx(5.0 / 6));
  CHECK(s.score() == 0.0);
}

TEST_CASE("bleu: the brevity penalty applies to a short hypothesis, not to a long one") {
  // Every n-gram of "the cat is on the" is in the reference (p_n = 1), but 5 tokens against 6: BP = e^(1 - 6/5).
  BleuStats s;
  s.add(words("the cat is on the"), words("the cat is on the mat"));
  CHECK(s.brevity_penalty() == doctest::Approx(std::exp(-0.2)));
  CHECK(s.score() == doctest::Approx(100 * std::exp(-0.2)));  // 81.873
  // Longer than the reference: no penalty; precisions 6/7, 5/6, 4/5, 3/4.
  BleuStats l;
  l.add(words("the cat is on the mat today"), words("the cat is on the mat"));
  CHECK(l.brevity_penalty() == 1.0);
  CHECK(l.score() == doctest::Approx(100 * std::pow(6.0 / 7 * 5.0 / 6 * 4.0 / 5 * 3.0 / 4, 0.25)));  // 73.99
}

TEST_CASE("bleu: matches are clipped by the reference's counts, and a corpus sums its segments") {
  BleuStats s;
  s.add(words("the the the the"), words("the cat"));
  CHECK(s.matches[0] == 1);  // "the" appears once in the reference
  CHECK(s.totals[0] == 4);
  BleuStats a, b, both;
  a.add(words("a b c d e"), words("a b c d e"));        // 5/5 4/4 3/3 2/2
  b.add(words("x b c d y"), words("a b c d e f g h"));  // 3/5 2/4 1/3 0/2, hyp 5 ref 8
  both.add(a);
  both.add(b);
  CHECK(both.matches == std::array<long long, 4>{8, 6, 4, 2});
  CHECK(both.totals == std::array<long long, 4>{10, 8, 6, 4});
  CHECK(both.hyp_len == 10);
  CHECK(both.ref_len == 13);
  const double p = std::pow(8.0 / 10 * 6.0 / 8 * 4.0 / 6 * 2.0 / 4, 0.25);
  CHECK(both.score() == doctest::Approx(100 * std::exp(1 - 13.0 / 10) * p));  // 41.05
  CHECK(BleuStats::from_counts(both.counts()).score() == both.score());
  CHECK_THROWS_AS(BleuStats::from_counts({1, 2, 3}), std::invalid_argument);
  CHECK_THROWS_AS(BleuStats::from_counts({1, 1, 5, 0, 0, 0, 4, 0, 0, 0}), std::invalid_argument);  // 5 of 4
}

TEST_CASE("bleu: nothing added scores 0") { CHECK(BleuStats{}.score() == 0.0); }

TEST_CASE("13a: each rule of the tokeniser") {
  CHECK(tokenize_13a("Hello, world.") == Tokens{"Hello", ",", "world", "."});
  // A period or comma between digits stays; a dash after a digit is split off; other dashes stay.
  CHECK(tokenize_13a("3.5 and 1,000 at 3-4 well-known") ==
        Tokens{"3.5", "and", "1,000", "at", "3", "-", "4", "well-known"});
  // The apostrophe is not in the punctuation class.
  CHECK(tokenize_13a("don't (test) \"quote\"!?") == Tokens{"don't", "(", "test", ")", "\"", "quote", "\"", "!", "?"});
  CHECK(tokenize_13a("&amp; &quot;x&quot; &lt;b&gt;") == Tokens{"&", "\"", "x", "\"", "<", "b", ">"});
  CHECK(tokenize_13a("a<skipped>b") == Tokens{"ab"});
  // Non-ASCII letters are left alone; Unicode white space separates (U+00A0, U+3000).
  CHECK(tokenize_13a("Straße\xC2\xA0"
                     "Ärger\xE3\x80\x80zu.") == Tokens{"Straße", "Ärger", "zu", "."});
  // Left to right without overlap: in "a..", the second period's left neighbour was taken by the first.
  CHECK(tokenize_13a("a..b") == Tokens{"a", ".", ".", "b"});
  CHECK(tokenize_13a("") == Tokens{});
  CHECK(tokenize_13a("   ") == Tokens{});
}

TEST_CASE("score_translations: the three figures of a test set, each from its own tokens") {
  // Case and Moses' tokens: the convention lowercases and splits "l'homme" as Moses does for French,
  // 13a keeps the case, so a hypothesis that differs only in case is perfect by the convention alone.
  const std::vector<std::string> refs = {"L'homme mange une pomme rouge.", "Deux chiens courent dans la neige."};
  const auto same = score_translations(refs, refs, "fr");
  CHECK(same.convention.score() == doctest::Approx(100.0));
  CHECK(same.bleu_13a.score() == doctest::Approx(100.0));
  CHECK(same.chrf.score() == doctest::Approx(100.0));
  const std::vector<std::string> lower = {"l'homme mange une pomme rouge.", "deux chiens courent dans la neige."};
  const auto cased = score_translations(lower, refs, "fr");
  CHECK(cased.convention.score() == doctest::Approx(100.0));
  CHECK(cased.bleu_13a.score() < 100.0);
  CHECK(cased.chrf.score() < 100.0);
  // Each figure is its own statistic's, segment by segment.
  BleuStats b;
  for (int i = 0; i < 2; ++i) b.add(tokenize_13a(lower[i]), tokenize_13a(refs[i]));
  CHECK(cased.bleu_13a.counts() == b.counts());
  CHECK_THROWS_WITH_AS(score_translations(lower, {refs[0]}, "fr"), "score_translations: 2 hypotheses for 1 references",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(score_translations(lower, refs, "es"),
                       "score_translations: the language is en, de or fr, not 'es'", std::invalid_argument);
}
