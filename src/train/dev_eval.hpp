// What the epoch trainer (train/epochs.hpp) judges an epoch by: a development set and its figure.
// An evaluation gives integer counts (exact to save in a training state and the same for any thread
// count); the evaluator says which of two is better and how to print them. Two exist:
//   WER/PER against several references per source (pronunciation dictionaries, train/wer.hpp);
//   corpus BLEU of the detokenised output against one reference text per source (translation).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "train/wer.hpp"

namespace attnseq::train {

using DevCounts = std::vector<long long>;

class DevEvaluator {
 public:
  virtual ~DevEvaluator() = default;
  // Decodes every item at this beam (threads share them) and returns the counts.
  virtual DevCounts evaluate(const Model& model, int beam, int threads) const = 0;
  virtual bool better(const DevCounts& a, const DevCounts& b) const = 0;  // a is better than b
  virtual std::string summary(const DevCounts& c) const = 0;              // "WER 0.2431 PER 0.0573", "BLEU 35.21"
  virtual std::string short_summary(const DevCounts& c) const = 0;        // "WER 0.2431", "BLEU 35.21"
  virtual std::size_t size() const = 0;                                   // development items
  virtual std::uint64_t fingerprint() const = 0;                          // of the data (a state is checked against it)
  virtual std::size_t counts_size() const = 0;                            // entries of DevCounts
  // The metadata a best checkpoint records ({"dev_wer", "0.243100"}, ...).
  virtual std::vector<std::pair<std::string, std::string>> metadata(const DevCounts& c) const = 0;
};

// WER, then PER on a tie (counts: words, errors, edits, ref_tokens; train/wer.hpp).
// std::invalid_argument if `items` is empty or an item has no reference.
std::shared_ptr<const DevEvaluator> wer_dev(std::vector<RefItem> items);
// A WER evaluator's counts as a report (words, errors, edits, ref_tokens filled in).
RefReport wer_report(const DevCounts& c);

// A source and its reference text (cased, detokenised, as a person writes it).
struct TextRef {
  Ids src;
  std::string ref;
};

// Corpus BLEU with sacreBLEU's 13a tokenisation of the cased, detokenised output (the target
// tokenizer's decode) against the references (counts: BleuStats::counts()).
// std::invalid_argument if `items` is empty.
std::shared_ptr<const DevEvaluator> bleu_dev(std::vector<TextRef> items);

// FNV-1a over 64-bit words, the fingerprint of data sets.
struct Fnv {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(std::uint64_t x) {
    for (int i = 0; i < 8; ++i) h = (h ^ ((x >> (8 * i)) & 0xFF)) * 0x100000001b3ull;
  }
  void add(const Ids& v) {
    add(v.size());
    for (auto x : v) add(std::uint64_t(std::uint32_t(x)));
  }
  void add(const std::string& s) {
    add(s.size());
    for (unsigned char ch : s) add(std::uint64_t(ch));
  }
};

}  // namespace attnseq::train
