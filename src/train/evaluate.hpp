// Evaluation against a task's held-out examples: exact match (greedy or beam), token accuracy,
// alignment error rate (AER) of teacher-forced attention against the gold links, and accuracy by
// source-length bucket. AER = 1 - 2|A ∩ S| / (|A| + |S|), with A = one link per target token (its
// most-attended source position) over the target tokens that have gold links, S = the gold links.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "model/model.hpp"
#include "train/tasks.hpp"

namespace attnseq::train {

struct BucketStats {
  int lo = 0, hi = 0;  // source lengths [lo, hi]
  int n = 0, exact = 0;
};

struct FormStats {
  std::string name;  // e.g. a dates form, "DD.MM.YYYY"
  int n = 0, exact = 0;
};

struct EvalReport {
  int n = 0;
  int exact = 0;                        // outputs equal to the reference
  long tokens = 0, tokens_correct = 0;  // teacher-forced next-token accuracy (EOS included)
  long align_hits = 0, align_pred = 0, align_gold = 0;
  double aer() const {
    return align_pred + align_gold ? 1.0 - 2.0 * align_hits / double(align_pred + align_gold) : 0.0;
  }
  double exact_rate() const { return n ? double(exact) / n : 0.0; }
  double token_accuracy() const { return tokens ? double(tokens_correct) / tokens : 0.0; }
  std::vector<BucketStats> buckets;
  std::vector<FormStats> forms;  // exact match per form, when the caller names each example's form
  // Outputs that are not a calendar date (is_calendar_date) among the examples whose reference is one:
  // a model can write "2013-02-30", and such an output is certainly wrong.
  int date_refs = 0, not_calendar_dates = 0;
};

// Ids of an example's tokens with the model's vocabularies (unknown tokens -> unk).
std::vector<std::int32_t> to_ids(const std::vector<std::string>& tokens, const std::vector<std::string>& vocab,
                                 int unk);

// `form_of` (empty, or one index per example into `form_names`) adds exact match per form. `threads`
// share the examples (natively; the report is the same for any count, its figures being integer counts).
EvalReport evaluate(const Model& model, const std::vector<Example>& examples, int beam = 1, int bucket_width = 10,
                    const std::vector<int>& form_of = {}, const std::vector<std::string>& form_names = {},
                    int threads = 1);

// The dates task's held-out examples of Rng(seed) (the same as sample_n) with the index of each one's
// form (format * kDateCases + letter case) and the names of all forms, for evaluate().
struct DateEvalSet {
  std::vector<Example> examples;
  std::vector<int> form_of;
  std::vector<std::string> form_names;
};
DateEvalSet date_eval_set(std::uint64_t seed, std::size_t n);

}  // namespace attnseq::train
