// The development evaluators of the epoch trainer (train/dev_eval.hpp).
#include "train/dev_eval.hpp"

#include <cstdio>
#include <stdexcept>

#include "core/parallel.hpp"
#include "decode/decode.hpp"
#include "model/vocab.hpp"
#include "train/bleu.hpp"

namespace attnseq::train {
namespace {

std::string fixed(double x, int digits) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

void check_counts(const DevCounts& c, std::size_t n, const char* what) {
  if (c.size() != n)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(c.size()) + " counts, expected " +
                                std::to_string(n));
}

// ---- WER / PER ----

class WerDev final : public DevEvaluator {
 public:
  explicit WerDev(std::vector<RefItem> items) : items_(std::move(items)) {
    if (items_.empty())
      throw std::invalid_argument("epoch trainer: no development items (the dev set chooses the best epoch)");
    for (const auto& d : items_)
      if (d.refs.empty()) throw std::invalid_argument("epoch trainer: a development item has no reference");
  }

  DevCounts evaluate(const Model& model, int beam, int threads) const override {
    const RefReport r = evaluate_refs(model, items_, beam, threads);
    return {r.words, r.errors, r.edits, r.ref_tokens};
  }

  bool better(const DevCounts& a, const DevCounts& b) const override {
    // Fewer wrong words; on a tie, fewer phoneme edits.
    check_counts(a, 4, "WER counts");
    check_counts(b, 4, "WER counts");
    return a[1] < b[1] || (a[1] == b[1] && a[2] < b[2]);
  }

  std::string summary(const DevCounts& c) const override {
    const RefReport r = wer_report(c);
    return "WER " + fixed(r.wer(), 4) + " PER " + fixed(r.per(), 4);
  }

  std::string short_summary(const DevCounts& c) const override { return "WER " + fixed(wer_report(c).wer(), 4); }
  std::size_t size() const override { return items_.size(); }
  std::size_t counts_size() const override { return 4; }

  std::vector<std::pair<std::string, std::string>> metadata(const DevCounts& c) const override {
    const RefReport r = wer_report(c);
    return {{"dev_wer", fixed(r.wer(), 6)}, {"dev_per", fixed(r.per(), 6)}};
  }

  std::uint64_t fingerprint() const override {
    Fnv f;
    f.add(items_.size());
    for (const auto& d : items_) {
      f.add(d.src);
      f.add(d.refs.size());
      for (const auto& r : d.refs) f.add(r);
    }
    return f.h;
  }

 private:
  std::vector<RefItem> items_;
};

// ---- BLEU ----

class BleuDev final : public DevEvaluator {
 public:
  explicit BleuDev(std::vector<TextRef> items) : items_(std::move(items)) {
    if (items_.empty())
      throw std::invalid_argument("epoch trainer: no development pairs (the dev set chooses the best epoch)");
    for (const auto& it : items_) ref_tokens_.push_back(tokenize_13a(it.ref));
  }

  DevCounts evaluate(const Model& model, int beam, int threads) const override {
    std::vector<Ids> sources;
    sources.reserve(items_.size());
    for (const auto& it : items_) sources.push_back(it.src);
    const auto outputs = decode_all(model, sources, beam, threads);
    const Vocab tgt = Vocab::target(model.config());
    BleuStats s;
    for (std::size_t i = 0; i < items_.size(); ++i)
      s.add(tokenize_13a(tgt.decode(outputs[i].data(), outputs[i].size())), ref_tokens_[i]);
    return s.counts();
  }

  bool better(const DevCounts& a, const DevCounts& b) const override {
    return BleuStats::from_counts(a).score() > BleuStats::from_counts(b).score();
  }

  std::string summary(const DevCounts& c) const override {
    const BleuStats s = BleuStats::from_counts(c);
    return "BLEU " + fixed(s.score(), 2) + " (" + fixed(100 * s.precision(1), 1) + "/" +
           fixed(100 * s.precision(2), 1) + "/" + fixed(100 * s.precision(3), 1) + "/" +
           fixed(100 * s.precision(4), 1) + ", BP " + fixed(s.brevity_penalty(), 3) + ")";
  }

  std::string short_summary(const DevCounts& c) const override {
    return "BLEU " + fixed(BleuStats::from_counts(c).score(), 2);
  }

  std::size_t size() const override { return items_.size(); }
  std::size_t counts_size() const override { return 10; }

  std::vector<std::pair<std::string, std::string>> metadata(const DevCounts& c) const override {
    return {{"dev_bleu", fixed(BleuStats::from_counts(c).score(), 4)}, {"dev_bleu_tokenize", "13a"}};
  }

  std::uint64_t fingerprint() const override {
    Fnv f;
    f.add(items_.size());
    for (const auto& it : items_) {
      f.add(it.src);
      f.add(it.ref);
    }
    return f.h;
  }

 private:
  std::vector<TextRef> items_;
  std::vector<std::vector<std::string>> ref_tokens_;  // each reference, tokenised once
};

}  // namespace

RefReport wer_report(const DevCounts& c) {
  check_counts(c, 4, "WER counts");
  RefReport r;
  r.words = long(c[0]), r.errors = long(c[1]), r.edits = long(c[2]), r.ref_tokens = long(c[3]);
  return r;
}

std::shared_ptr<const DevEvaluator> wer_dev(std::vector<RefItem> items) {
  return std::make_shared<const WerDev>(std::move(items));
}

std::shared_ptr<const DevEvaluator> bleu_dev(std::vector<TextRef> items) {
  return std::make_shared<const BleuDev>(std::move(items));
}

}  // namespace attnseq::train
