// The three translation figures over a test set (mt_scores.hpp).
#include "train/mt_scores.hpp"

#include <stdexcept>

#include "train/moses.hpp"

namespace attnseq::train {

MtScores score_translations(const std::vector<std::string>& hyps, const std::vector<std::string>& refs,
                            const std::string& lang) {
  if (hyps.size() != refs.size())
    throw std::invalid_argument("score_translations: " + std::to_string(hyps.size()) + " hypotheses for " +
                                std::to_string(refs.size()) + " references");
  if (lang != "en" && lang != "de" && lang != "fr")
    throw std::invalid_argument("score_translations: the language is en, de or fr, not '" + lang + "'");
  MtScores s;
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    s.bleu_13a.add(tokenize_13a(hyps[i]), tokenize_13a(refs[i]));
    s.convention.add(moses_tokenize(hyps[i], lang), moses_tokenize(refs[i], lang));
    s.chrf.add(hyps[i], refs[i]);
  }
  return s;
}

}  // namespace attnseq::train
