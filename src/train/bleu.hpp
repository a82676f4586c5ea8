// Corpus BLEU-4 (Papineni et al. 2002): clipped n-gram matches and totals summed over the corpus, the
// geometric mean of the four precisions times the brevity penalty, no smoothing (a corpus with no
// matching 4-gram scores 0), one reference per segment. Its statistics are integers, so they add up
// across threads and save exactly in a training state. Also the `13a` tokenisation sacreBLEU applies
// to cased, detokenised text (mteval-v13a's rules), which the epoch trainer's dev BLEU uses.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnseq::train {

struct BleuStats {
  long long hyp_len = 0, ref_len = 0;  // tokens of the hypotheses and of the references
  std::array<long long, 4> matches{};  // clipped n-gram matches, n = 1..4
  std::array<long long, 4> totals{};   // n-grams of the hypotheses, n = 1..4

  // One segment: its hypothesis and reference tokens.
  void add(const std::vector<std::string>& hyp, const std::vector<std::string>& ref);
  void add(const BleuStats& other);
  // BLEU in [0, 100]: 100 * BP * exp(mean of log p_n); 0 when any p_n is 0 (or nothing was added).
  double score() const;
  // The brevity penalty: 1 when the hypotheses are longer than the references, else exp(1 - r/c).
  double brevity_penalty() const;
  double precision(int n) const;  // p_n in [0, 1], n = 1..4 (0 when there is no n-gram)
  // The ten counts in a fixed order (hyp_len, ref_len, matches, totals), and back: what a saved state holds.
  std::vector<long long> counts() const;
  static BleuStats from_counts(const std::vector<long long>& c);  // std::invalid_argument unless 10 counts >= 0
};

// sacreBLEU's `13a` tokenisation of one line: "<skipped>" removed, the four XML entities &quot; &amp;
// &lt; &gt; unescaped, most ASCII punctuation split off, a period or comma split off unless it sits
// between digits, a dash after a digit split off; then split on whitespace (Python's str.split: the
// Unicode white space). Invalid UTF-8 is taken one byte at a time.
std::vector<std::string> tokenize_13a(std::string_view line);

}  // namespace attnseq::train
