// Task evaluation (see evaluate.hpp): decoding for exact match, teacher forcing for token accuracy
// and for the attention rows scored against the gold alignment.
#include "train/evaluate.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "decode/decode.hpp"
#include "kernels/kernels.hpp"

namespace attnseq::train {

std::vector<std::int32_t> to_ids(const std::vector<std::string>& tokens, const std::vector<std::string>& vocab,
                                 int unk) {
  std::unordered_map<std::string, std::int32_t> index;
  for (std::size_t i = 0; i < vocab.size(); ++i) index.emplace(vocab[i], std::int32_t(i));
  std::vector<std::int32_t> ids;
  for (const auto& t : tokens) {
    auto it = index.find(t);
    ids.push_back(it == index.end() ? unk : it->second);
  }
  return ids;
}

namespace {

// One example's contribution, added into r (integer counts only, so the sum is the same in any order).
void evaluate_one(const Model& model, const std::vector<Example>& examples, std::size_t i, int beam, int bucket_width,
                  const std::vector<int>& form_of, EvalReport& r, Encoded& enc) {
  const auto& c = model.config();
  const auto& ex = examples[i];
  const auto src = to_ids(ex.src, c.src_tokens, c.unk);
  const auto tgt = to_ids(ex.tgt, c.tgt_tokens, c.unk);
  model.encode(src.data(), int(src.size()), enc);
  DecodeOptions o;
  o.beam = beam;
  o.max_length = std::min(kMaxTargetLength, int(tgt.size()) * 2 + 10);
  auto out = decode(model, enc, o).hypotheses[0].tokens;
  if (!out.empty() && out.back() == c.eos) out.pop_back();
  const bool ok = out == tgt;
  ++r.n;
  r.exact += ok;
  if (!form_of.empty()) {
    const int k = form_of[i];
    if (k < 0 || k >= int(r.forms.size())) throw std::invalid_argument("evaluate: form index out of range");
    ++r.forms[k].n;
    r.forms[k].exact += ok;
  }
  std::string ref, hyp;
  for (const auto& t : ex.tgt) ref += t;
  if (is_calendar_date(ref)) {
    // The text a user sees (Vocab::decode drops pad, bos and eos wherever they are).
    for (auto id : out)
      if (id != c.pad && id != c.bos && id != c.eos && id >= 0 && id < int(c.tgt_tokens.size()))
        hyp += c.tgt_tokens[id];
    ++r.date_refs;
    r.not_calendar_dates += !is_calendar_date(hyp);
  }
  const int len = int(src.size());
  const int lo = (len - 1) / bucket_width * bucket_width + 1;
  auto it = std::find_if(r.buckets.begin(), r.buckets.end(), [&](const BucketStats& b) { return b.lo == lo; });
  if (it == r.buckets.end()) {
    r.buckets.push_back({lo, lo + bucket_width - 1, 0, 0});
    it = r.buckets.end() - 1;
  }
  ++it->n;
  it->exact += ok;
  // Teacher forcing: next-token accuracy and the attention rows of the reference target.
  DecodeOptions f;
  f.max_length = int(tgt.size()) + 1;
  Session s(model, enc, f);
  std::set<std::pair<int, int>> gold(ex.align.begin(), ex.align.end());
  std::set<int> aligned_targets;
  for (const auto& g : ex.align) aligned_targets.insert(g.second);
  for (std::size_t k = 0; k <= tgt.size(); ++k) {
    const std::int32_t y = k < tgt.size() ? tgt[k] : c.eos;
    s.step(y);
    const auto& st = s.state();
    r.tokens++;
    r.tokens_correct += std::int32_t(kernels::argmax(st.logits.data(), c.tgt_vocab)) == y;
    if (k < tgt.size() && c.has_attention() && aligned_targets.count(int(k))) {
      const int best = int(kernels::argmax(st.attention.data(), src.size()));
      r.align_pred++;
      r.align_hits += gold.count({best, int(k)});
    }
  }
  r.align_gold += long(ex.align.size());
}

void merge_into(EvalReport& r, const EvalReport& p) {
  r.n += p.n, r.exact += p.exact, r.tokens += p.tokens, r.tokens_correct += p.tokens_correct;
  r.align_hits += p.align_hits, r.align_pred += p.align_pred, r.align_gold += p.align_gold;
  r.date_refs += p.date_refs, r.not_calendar_dates += p.not_calendar_dates;
  for (std::size_t k = 0; k < p.forms.size(); ++k) r.forms[k].n += p.forms[k].n, r.forms[k].exact += p.forms[k].exact;
  for (const auto& b : p.buckets) {
    auto it = std::find_if(r.buckets.begin(), r.buckets.end(), [&](const BucketStats& x) { return x.lo == b.lo; });
    if (it == r.buckets.end())
      r.buckets.push_back(b);
    else
      it->n += b.n, it->exact += b.exact;
  }
}

}  // namespace

EvalReport evaluate(const Model& model, const std::vector<Example>& examples, int beam, int bucket_width,
                    const std::vector<int>& form_of, const std::vector<std::string>& form_names, int threads) {
  if (!form_of.empty() && form_of.size() != examples.size())
    throw std::invalid_argument("evaluate: form_of has " + std::to_string(form_of.size()) + " entries for " +
                                std::to_string(examples.size()) + " examples");
  threads = usable_threads(threads, "evaluate: threads");
  EvalReport r;
  for (const auto& name : form_names) r.forms.push_back({name, 0, 0});
  // Thread t takes examples t, t + T, t + 2T, ...: every count is an integer, so the report is the
  // same for any thread count.
  const std::size_t T = std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads), examples.size()));
  std::vector<EvalReport> parts(T, r);
  run_on_threads(T, [&](std::size_t t) {
    Encoded enc;
    for (std::size_t i = t; i < examples.size(); i += T)
      evaluate_one(model, examples, i, beam, bucket_width, form_of, parts[t], enc);
  });
  for (const auto& p : parts) merge_into(r, p);
  std::sort(r.buckets.begin(), r.buckets.end(), [](const BucketStats& a, const BucketStats& b) { return a.lo < b.lo; });
  return r;
}

DateEvalSet date_eval_set(std::uint64_t seed, std::size_t n) {
  DateEvalSet s;
  for (int f = 0; f < kDateFormats; ++f)
    for (int k = 0; k < kDateCases; ++k) s.form_names.push_back(date_form_name(f, k));
  Rng rng(seed);
  for (std::size_t i = 0; i < n; ++i) {
    DateSample d = sample_date(rng);
    // A format without letters reads the same in every case: one form.
    s.form_of.push_back(d.format * kDateCases + (date_format_has_letters(d.format) ? d.letter_case : 0));
    s.examples.push_back(std::move(d.example));
  }
  return s;
}

}  // namespace attnseq::train
