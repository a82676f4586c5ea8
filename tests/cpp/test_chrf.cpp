// chrF's statistics and corpus score (src/train/chrf.hpp) on cases worked out by hand; each expected score is
// also what sacreBLEU 2's CHRF().corpus_score gives.
#include <doctest/doctest.h>

#include <array>

#include "train/chrf.hpp"

using attnseq::train::ChrfStats;
using Counts = std::array<long long, ChrfStats::kOrder>;

TEST_CASE("chrf: a hypothesis equal to its reference scores 100, white space aside") {
  ChrfStats s;
  s.add("A man rides a bike.", "A man rides a bike.");
  CHECK(s.score() == doctest::Approx(100.0));
  ChrfStats spaced;
  spaced.add("a b", "ab");  // white space is taken out before the n-grams
  CHECK(spaced.score() == doctest::Approx(100.0));
}

TEST_CASE("chrf: hyp ab against ref abc, by hand") {
  // 1-grams: a b of a b c: 2 hyp, 3 ref, 2 match (P 1, R 2/3). 2-grams: ab of ab bc: 1, 2, 1 (P 1, R 1/2).
  // 3-grams: the hypothesis has none, so the order does not count; orders 4-6: neither side has any.
  // Averages over the 2 orders: P 1, R 7/12. F2 = 5 P R / (4 P + R) = (35/12) / (55/12) = 7/11.
  ChrfStats s;
  s.add("ab", "abc");
  CHECK(s.hyp_ngrams == Counts{2, 1, 0, 0, 0, 0});
  CHECK(s.ref_ngrams == Counts{3, 2, 1, 0, 0, 0});
  CHECK(s.matches == Counts{2, 1, 0, 0, 0, 0});
  CHECK(s.score() == doctest::Approx(100.0 * 7 / 11));  // 63.64
}

TEST_CASE("chrf: matches are clipped by the reference's counts") {
  // aaaa against aa: 1-grams 4 hyp, 2 ref, 2 match; 2-grams 3, 1, 1; the reference has no 3-gram, and sacreBLEU
  // then counts none of the hypothesis' either. P (1/2 + 1/3) / 2 = 5/12, R 1: F2 = (25/12) / (32/12) = 25/32.
  ChrfStats s;
  s.add("aaaa", "aa");
  CHECK(s.hyp_ngrams == Counts{4, 3, 0, 0, 0, 0});
  CHECK(s.matches == Counts{2, 1, 0, 0, 0, 0});
  CHECK(s.score() == doctest::Approx(100.0 * 25 / 32));  // 78.125
}

TEST_CASE("chrf: a corpus sums its segments' counts before the score") {
  // ab/abc as above, then abc/abc: 1-grams 3 3 3, 2-grams 2 2 2, 3-grams 1 1 1. Sums: 5 6 5, 3 4 3, 1 2 1:
  // P 1, R (5/6 + 3/4 + 1/2) / 3 = 25/36, F2 = (125/36) / (169/36) = 125/169, not the mean of 63.64 and 100.
  ChrfStats a, b, corpus;
  a.add("ab", "abc");
  b.add("abc", "abc");
  corpus.add(a);
  corpus.add(b);
  CHECK(corpus.hyp_ngrams == Counts{5, 3, 1, 0, 0, 0});
  CHECK(corpus.ref_ngrams == Counts{6, 4, 2, 0, 0, 0});
  CHECK(corpus.matches == Counts{5, 3, 1, 0, 0, 0});
  CHECK(corpus.score() == doctest::Approx(100.0 * 125 / 169));  // 73.96
  ChrfStats direct;
  direct.add("ab", "abc");
  direct.add("abc", "abc");
  CHECK(direct.score() == corpus.score());
  // The reference-shorter-than-n rule in a corpus: abcd/ab adds no hypothesis 3-grams, so xyz/xyz's one 3-gram
  // is the corpus's only one. Sums 7 5 5, 5 3 3, 1 1 1: P (5/7 + 3/5 + 1) / 3 = 27/35, R 1, F2 = 135/143.
  ChrfStats c;
  c.add("abcd", "ab");
  c.add("xyz", "xyz");
  CHECK(c.hyp_ngrams == Counts{7, 5, 1, 0, 0, 0});
  CHECK(c.score() == doctest::Approx(100.0 * 135 / 143));  // 94.41
}

TEST_CASE("chrf: an empty hypothesis scores 0 and still adds its reference's n-grams") {
  ChrfStats s;
  s.add("", "abc");
  CHECK(s.hyp_ngrams == Counts{});
  CHECK(s.ref_ngrams == Counts{3, 2, 1, 0, 0, 0});
  CHECK(s.score() == 0.0);
  CHECK(ChrfStats().score() == 0.0);
  // Beside ab/abc it lowers recall only: sums 2 6 2, 1 4 1, 0 2 0; P 1, R (1/3 + 1/4) / 2 = 7/24,
  // F2 = (35/24) / (103/24) = 35/103.
  s.add("ab", "abc");
  CHECK(s.score() == doctest::Approx(100.0 * 35 / 103));  // 33.98
}

TEST_CASE("chrf: characters are code points, not bytes") {
  // ä is two bytes but one character: hyp bär against ref bar shares b and r (1-grams) and nothing longer.
  // 1-grams P 2/3 R 2/3; 2-grams and 3-grams P 0 R 0: averages 2/9 and 2/9, F2 = 2/9.
  ChrfStats s;
  s.add("b\u00E4r", "bar");
  CHECK(s.hyp_ngrams == Counts{3, 2, 1, 0, 0, 0});
  CHECK(s.score() == doctest::Approx(100.0 * 2 / 9));  // 22.22
}
