// The three figures a translation test set is reported with (docs/translation.md, "Scoring"): corpus
// BLEU by the Multi30K convention (both sides lowercased and tokenised by the Moses pipeline of the
// target language, as the published tables are), sacreBLEU's BLEU (13a tokens of the cased text) and
// chrF2. Used by `attnseq eval --src --tgt` and by the shipped models' table test.
#pragma once
#include <string>
#include <vector>

#include "train/bleu.hpp"
#include "train/chrf.hpp"

namespace attnseq::train {

struct MtScores {
  BleuStats convention;  // Multi30K: Moses-tokenised, lowercased
  BleuStats bleu_13a;    // sacreBLEU's default
  ChrfStats chrf;        // chrF2
};

// Hypothesis i against reference i (detokenised text, as people read it). `lang` is the target
// language's code for the Moses rules: en, de or fr. std::invalid_argument for unequal counts or
// another language.
MtScores score_translations(const std::vector<std::string>& hyps, const std::vector<std::string>& refs,
                            const std::string& lang);

}  // namespace attnseq::train
