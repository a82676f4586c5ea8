// Word and phoneme error rates against several references, the way CMUdict G2P results are reported
// (data/cmudict/README.md): an output is right when it equals any of its references (WER = the share
// of words not right); PER = the edit distance to the closest reference, summed over the words, over
// the summed length of those references. Also the evaluation of a model on such a set (decoding with
// threads) and the conversion of pronunciation entries into ids of a model's vocabularies.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/model.hpp"
#include "train/pron_data.hpp"

namespace attnseq::train {

using Ids = std::vector<std::int32_t>;

// Levenshtein distance: insertions, deletions and substitutions each cost 1.
std::size_t edit_distance(const Ids& a, const Ids& b);

// One output against its references (at least one). The closest reference is the one with the fewest
// edits; among equals, the first in order (PER counts its length).
struct RefScore {
  bool correct = false;        // equals one of the references
  std::size_t edits = 0;       // edits to the closest reference
  std::size_t ref_length = 0;  // length of that reference
};
RefScore score_against(const Ids& output, const std::vector<Ids>& refs);

// A source and its accepted outputs (ids, no BOS/EOS).
struct RefItem {
  Ids src;
  std::vector<Ids> refs;
};

struct LengthStats {
  int length = 0;                  // source tokens (letters of a word)
  long words = 0, errors = 0;      // words, words not right
  long edits = 0, ref_tokens = 0;  // PER's numerator and denominator
};

struct RefReport {
  long words = 0, errors = 0, edits = 0, ref_tokens = 0;
  int beam = 1;
  std::vector<LengthStats> by_length;  // one entry per source length present, ascending
  double wer() const { return words ? double(errors) / double(words) : 0.0; }
  double per() const { return ref_tokens ? double(edits) / double(ref_tokens) : 0.0; }
  void add(int length, const RefScore& s);
};

// (A single Model is an ensemble of one: models may be either; decode.hpp, Ensemble.)
// Decodes every item (beam 1: greedy; at most 2 * source length + 10 tokens, capped at the model's
// limit) and scores the output: the target tokens the user sees (pad, BOS and EOS dropped) against
// the references. `threads` share the items (natively; the wasm module runs one); the report is the
// same for any count, being integer counts. Throws std::invalid_argument for an empty item list, a
// beam outside [1, kMaxBeam] or a thread count outside [1, kMaxThreads].
RefReport evaluate_refs(const Ensemble& models, const std::vector<RefItem>& items, int beam = 1, int threads = 1);
// The same with any decode options (a repetition guard, a length ratio, a coverage penalty...); where
// `outputs` is given, it receives each item's output as scored (the ids the user sees), in item order.
RefReport evaluate_refs(const Ensemble& models, const std::vector<RefItem>& items, const DecodeOptions& options,
                        int threads, std::vector<Ids>* outputs = nullptr);

// Decodes every source at `beam` (max_length automatic: 2 x the source's length + 10) with `threads`
// sharing them; the target ids the user sees (pad, BOS and EOS dropped) of each best hypothesis, the
// same for any thread count (each source gets what decoding it alone gives). `what` names the caller
// in errors: a beam outside [1, kMaxBeam] or a thread count outside [1, kMaxThreads].
std::vector<Ids> decode_all(const Ensemble& models, const std::vector<Ids>& sources, int beam, int threads,
                            float length_penalty = 1.0f, const char* what = "dev evaluation");
// The same with any decode options (options.num_hypotheses and trace do not matter: the best is kept).
std::vector<Ids> decode_all(const Ensemble& models, const std::vector<Ids>& sources, const DecodeOptions& options,
                            int threads, const char* what = "dev evaluation");

// The dictionary format a pronunciation model was trained on: its metadata `phones` ("ipa"), else
// ARPAbet (CMUdict's models say nothing).
PronFormat pron_format_of(const ModelConfig& c);
// A reference phone an IPA model's target vocabulary lacks (it was not in the training file): no
// output id equals it.
constexpr std::int32_t kUnseenPhone = -1;

// Pronunciation entries as ids of the model's vocabularies: each word through the model's source
// vocabulary (its tokenizer and src_case), each reference's phonemes through the target's. Throws
// std::invalid_argument naming `what` and the word for a word longer than kMaxSourceLength, a
// reference longer than kMaxTargetLength - 1 phonemes, or a phoneme the model's target vocabulary
// lacks (an IPA model's: kUnseenPhone instead); and for a model without text vocabularies (ids only).
std::vector<RefItem> pron_items(const ModelConfig& c, const std::vector<PronEntry>& entries, const std::string& what);

// A word for an error message: itself when short, else its first letters and its length.
std::string describe_word(const std::string& word);

}  // namespace attnseq::train
