// chrF's statistics and score (chrf.hpp), written from sacreBLEU 2's definition (sacrebleu/metrics/chrf.py with
// its defaults); the score's arithmetic runs in sacreBLEU's order so that it gives the same double.
#include "train/chrf.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "train/text_units.hpp"

namespace attnseq::train {
namespace {

// The segment with its white space (Python's str.split() white space) taken out.
std::u32string without_space(std::string_view s) {
  std::u32string out = decode_utf8(s);
  out.erase(std::remove_if(out.begin(), out.end(), is_unicode_space), out.end());
  return out;
}

std::map<std::u32string_view, long long> char_ngrams(std::u32string_view s, std::size_t n) {
  std::map<std::u32string_view, long long> out;
  for (std::size_t i = 0; i + n <= s.size(); ++i) ++out[s.substr(i, n)];
  return out;
}

}  // namespace

void ChrfStats::add(std::string_view hyp, std::string_view ref) {
  const std::u32string h = without_space(hyp), r = without_space(ref);
  for (std::size_t n = 1; n <= std::size_t(kOrder); ++n) {
    const auto hyp_counts = char_ngrams(h, n), ref_counts = char_ngrams(r, n);
    long long hyp_total = 0, ref_total = 0, matched = 0;
    for (const auto& [ngram, count] : hyp_counts) {
      hyp_total += count;
      const auto in_ref = ref_counts.find(ngram);
      if (in_ref != ref_counts.end()) matched += std::min(count, in_ref->second);
    }
    for (const auto& entry : ref_counts) ref_total += entry.second;
    hyp_ngrams[n - 1] += ref_total > 0 ? hyp_total : 0;
    ref_ngrams[n - 1] += ref_total;
    matches[n - 1] += matched;
  }
}

void ChrfStats::add(const ChrfStats& other) {
  for (int i = 0; i < kOrder; ++i) {
    hyp_ngrams[i] += other.hyp_ngrams[i];
    ref_ngrams[i] += other.ref_ngrams[i];
    matches[i] += other.matches[i];
  }
}

double ChrfStats::score() const {
  double precision = 0, recall = 0;
  int orders = 0;  // sacreBLEU's "effective order": the orders with n-grams on both sides
  for (int i = 0; i < kOrder; ++i) {
    if (hyp_ngrams[i] > 0 && ref_ngrams[i] > 0) {
      precision += double(matches[i]) / double(hyp_ngrams[i]);
      recall += double(matches[i]) / double(ref_ngrams[i]);
      ++orders;
    }
  }
  if (orders == 0) return 0.0;
  precision /= orders;
  recall /= orders;
  if (precision + recall == 0) return 0.0;
  const double factor = kBeta * kBeta;
  double f = (1 + factor) * precision * recall;
  f /= factor * precision + recall;
  return 100 * f;
}

}  // namespace attnseq::train
