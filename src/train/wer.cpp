// Multi-reference WER and PER (src/train/wer.hpp): edit distance by one rolling row; the decoding is
// one translate_batch, shared across threads, whose results do not depend on the thread count.
#include "train/wer.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/parallel.hpp"
#include "decode/decode.hpp"
#include "model/vocab.hpp"

namespace attnseq::train {

std::size_t edit_distance(const Ids& a, const Ids& b) {
  // row[j] = distance between the first i tokens of a and the first j tokens of b.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];  // distance(i - 1, j - 1)
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];  // distance(i - 1, j)
      row[j] = std::min({up + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

RefScore score_against(const Ids& output, const std::vector<Ids>& refs) {
  if (refs.empty()) throw std::invalid_argument("score_against: no reference");
  RefScore best;
  for (std::size_t k = 0; k < refs.size(); ++k) {
    const std::size_t e = edit_distance(output, refs[k]);
    if (k == 0 || e < best.edits) best = {false, e, refs[k].size()};
  }
  best.correct = best.edits == 0;
  return best;
}

void RefReport::add(int length, const RefScore& s) {
  ++words;
  errors += !s.correct;
  edits += long(s.edits);
  ref_tokens += long(s.ref_length);
  auto it = std::lower_bound(by_length.begin(), by_length.end(), length,
                             [](const LengthStats& x, int len) { return x.length < len; });
  if (it == by_length.end() || it->length != length) it = by_length.insert(it, LengthStats{length});
  ++it->words;
  it->errors += !s.correct;
  it->edits += long(s.edits);
  it->ref_tokens += long(s.ref_length);
}

std::vector<Ids> decode_all(const Ensemble& model, const std::vector<Ids>& sources, int beam, int threads,
                            float length_penalty, const char* what) {
  if (beam < 1 || beam > kMaxBeam)
    throw std::invalid_argument(std::string(what) + ": beam " + std::to_string(beam) + " is outside [1, " +
                                std::to_string(kMaxBeam) + "]");
  DecodeOptions o;
  o.beam = beam;  // max_length automatic
  o.length_penalty = length_penalty;
  return decode_all(model, sources, o, threads, what);
}

std::vector<Ids> decode_all(const Ensemble& model, const std::vector<Ids>& sources, const DecodeOptions& o, int threads,
                            const char* what) {
  check_threads(threads, std::string(what) + ": threads");
  const auto& c = model.config();  // an ensemble's members share it
  // translate_batch shares the sources among the threads; each gets what decoding it alone gives.
  const auto results = translate_batch(model, sources, o, kDefaultBatchRows, threads);
  std::vector<Ids> out(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i)
    for (auto id : results[i].hypotheses[0].tokens)
      if (id != c.pad && id != c.bos && id != c.eos) out[i].push_back(id);
  return out;
}

RefReport evaluate_refs(const Ensemble& model, const std::vector<RefItem>& items, int beam, int threads) {
  if (beam < 1 || beam > kMaxBeam)
    throw std::invalid_argument("evaluate_refs: beam " + std::to_string(beam) + " is outside [1, " +
                                std::to_string(kMaxBeam) + "]");
  DecodeOptions o;
  o.beam = beam;
  return evaluate_refs(model, items, o, threads);
}

RefReport evaluate_refs(const Ensemble& model, const std::vector<RefItem>& items, const DecodeOptions& o, int threads,
                        std::vector<Ids>* outputs_out) {
  if (items.empty()) throw std::invalid_argument("evaluate_refs: no items to evaluate");
  std::vector<Ids> sources;
  sources.reserve(items.size());
  for (const auto& it : items) sources.push_back(it.src);
  // The report is the same for any thread count (integer counts of outputs that are).
  auto outputs = decode_all(model, sources, o, threads, "evaluate_refs");
  RefReport r;
  r.beam = o.beam;
  for (std::size_t i = 0; i < items.size(); ++i)
    r.add(int(items[i].src.size()), score_against(outputs[i], items[i].refs));
  if (outputs_out) *outputs_out = std::move(outputs);
  return r;
}

std::string describe_word(const std::string& word) {
  if (word.size() <= 24) return "'" + word + "'";
  return "'" + word.substr(0, 12) + "...' (" + std::to_string(word.size()) + " bytes)";
}

PronFormat pron_format_of(const ModelConfig& c) {
  for (const auto& kv : c.extra)
    if (kv.first == "phones") return kv.second == "ipa" ? PronFormat::Ipa : PronFormat::Arpabet;
  return PronFormat::Arpabet;
}

std::vector<RefItem> pron_items(const ModelConfig& c, const std::vector<PronEntry>& entries, const std::string& what) {
  if (!c.has_text())
    throw std::invalid_argument(what + ": the model has no vocabularies (ids only); a pronunciation model reads text");
  const Vocab src = Vocab::source(c), tgt = Vocab::target(c);
  const bool ipa = pron_format_of(c) == PronFormat::Ipa;
  std::vector<RefItem> out;
  out.reserve(entries.size());
  for (const auto& e : entries) {
    const auto fail = [&](const std::string& why) {
      throw std::invalid_argument(what + ": word " + describe_word(e.word) + " " + why);
    };
    if (e.word.size() > std::size_t(kMaxSourceLength))
      fail("is longer than the " + std::to_string(kMaxSourceLength) + " source tokens a model reads");
    RefItem item;
    item.src = src.encode(e.word);
    if (item.src.empty()) fail("has no source token");
    if (item.src.size() > std::size_t(kMaxSourceLength))
      fail("has " + std::to_string(item.src.size()) + " source tokens; a model reads at most " +
           std::to_string(kMaxSourceLength));
    for (const auto& ref : e.refs) {
      Ids ids;
      for (const auto& p : split_phonemes(ref)) {
        std::int32_t id = tgt.lookup(p);
        // An IPA model's phones are its training file's: a phone it never saw stays in the reference
        // as an id no output holds (the word is wrong, the phone an edit), as the task scores it.
        if (id == c.unk && ipa) id = kUnseenPhone;
        if (id == c.unk) fail("has the phoneme " + p + ", which the model's target vocabulary lacks");
        ids.push_back(id);
      }
      if (ids.size() + 1 > std::size_t(kMaxTargetLength))
        fail("has a pronunciation of " + std::to_string(ids.size()) + " phonemes; a model writes at most " +
             std::to_string(kMaxTargetLength - 1) + " before its end token");
      item.refs.push_back(std::move(ids));
    }
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace attnseq::train
