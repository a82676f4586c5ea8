// chrF (Popović 2015) as sacreBLEU 2 computes it with its defaults, chrF2: character n-grams of orders 1-6 with
// the white space taken out first, no word n-grams, beta 2, case kept, no epsilon smoothing. Corpus level: each
// order's counts summed over the segments, then one F-score from the sums. The counts are integers, so they add
// up across threads as BleuStats' do; one reference per segment.
#pragma once
#include <array>
#include <string_view>

namespace attnseq::train {

struct ChrfStats {
  static constexpr int kOrder = 6;    // character n-grams of 1..6 characters (code points)
  static constexpr double kBeta = 2;  // recall weighs beta^2 = 4 times as much as precision

  // Per order n (index n - 1): the hypotheses' n-grams, the references' n-grams, and the matches (each hypothesis
  // n-gram matches as often as it occurs in both, the smaller count). sacreBLEU counts no hypothesis n-grams in a
  // segment whose reference has none of that order (a reference shorter than n characters).
  std::array<long long, kOrder> hyp_ngrams{}, ref_ngrams{}, matches{};

  // One segment: its hypothesis and reference, UTF-8 (invalid bytes count as one character each).
  void add(std::string_view hyp, std::string_view ref);
  void add(const ChrfStats& other);
  // chrF in [0, 100]: the precisions and recalls of the orders where both the hypotheses and the references have
  // n-grams, averaged over those orders, then F-beta of the two averages; 0 when no order has both, or nothing
  // matches.
  double score() const;
};

}  // namespace attnseq::train
