// Greedy decoding, temperature sampling and the step-at-a-time Session: one hypothesis, B = 1.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "decode/decode.hpp"
#include "decode/members.hpp"
#include "decode/options.hpp"
#include "kernels/kernels.hpp"

namespace attnseq {

std::int32_t sample_token(const float* logits, std::size_t n, float temperature, Rng& rng, float* p) {
  // T so small that 1/T overflows (below 2^-128, i.e. denormal): the T -> 0 limit, the argmax.
  const float inv = 1.f / temperature;
  if (!std::isfinite(inv)) return std::int32_t(kernels::argmax(logits, n));
  // Subtract the max before scaling: (l - max) / T is <= 0, so a tiny T gives -inf (weight 0) for
  // the others and exactly 0 for the max, where l / T alone would overflow to inf - inf = NaN.
  const float m = kernels::max(logits, n);
  for (std::size_t i = 0; i < n; ++i) p[i] = (logits[i] - m) * inv;
  kernels::masked_softmax(p, n, n);
  const float u = rng.uniform();
  float acc = 0.f;
  for (std::size_t i = 0; i < n; ++i) {
    acc += p[i];
    if (u < acc) return std::int32_t(i);
  }
  return std::int32_t(kernels::argmax(p, n));  // rounding left u above the total
}

float checked_logsumexp(const float* logits, std::size_t V, std::size_t step) {
  const float lse = kernels::logsumexp(logits, V);
  if (!std::isfinite(lse))
    throw BadCheckpoint("target step " + std::to_string(step + 1) + ": the model's logits are not finite (" +
                        number_text(lse) + "); its weights overflow float32 arithmetic");
  return lse;
}

int effective_max_length(const DecodeOptions& o, int src_len) {
  int n = o.max_length > 0 ? o.max_length : std::min(2 * src_len + 10, kMaxTargetLength);
  // The ratio bounds the tokens before EOS; +1 lets EOS follow them. A product of floats (a ratio of
  // 0.5 and 7 tokens: 3.5, so 4), the same in every build.
  if (o.max_length_ratio > 0.f) n = std::min(n, int(std::ceil(o.max_length_ratio * float(src_len))) + 1);
  return n;
}

void validate(const DecodeOptions& o, const ModelConfig& c, int src_len) {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  for (const DecodeOptionSpec& s : decode_option_table()) {
    const std::string e = option_value_error(s, s.get(o), s.key);
    if (!e.empty()) bad(e);
  }
  if (o.temperature > 0.f && o.beam > 1)
    bad("temperature sampling needs beam 1 (beam is " + std::to_string(o.beam) + ")");
  if (o.num_hypotheses > o.beam)
    bad("num_hypotheses is " + std::to_string(o.num_hypotheses) +
        "; it must be in [0, beam = " + std::to_string(o.beam) + "]");
  if (o.trace && o.beam < 2)
    bad("a trace records a beam search: beam must be at least 2, not " + std::to_string(o.beam));
  if (o.coverage_penalty > 0.f && o.beam < 2)
    bad("coverage_penalty ranks the hypotheses of a beam search: beam must be at least 2, not " +
        std::to_string(o.beam));
  if (o.coverage_penalty > 0.f && !c.has_attention())
    bad("coverage_penalty reads the attention, and this model has none (attention style 'none')");
  const int max_len = effective_max_length(o, src_len);
  if (int(o.prefix.size()) > max_len)
    bad("the prefix has " + std::to_string(o.prefix.size()) + " tokens, more than max_length " +
        std::to_string(max_len));
  for (std::size_t i = 0; i < o.prefix.size(); ++i)
    if (o.prefix[i] < 0 || o.prefix[i] >= c.tgt_vocab)
      bad("prefix token " + std::to_string(i) + " has id " + std::to_string(o.prefix[i]) +
          ", outside the target vocabulary [0, " + std::to_string(c.tgt_vocab) + ")");
}

Session::Session(const Model& model, const Encoded& enc, const DecodeOptions& options)
    : ens_(model), model_(model), enc_(enc), opt_(options), rng_(options.seed) {
  validate(opt_, model.config(), enc.T);
  if (opt_.beam != 1) throw std::invalid_argument("a step-by-step session decodes one hypothesis (beam must be 1)");
  max_len_ = effective_max_length(opt_, enc.T);
  model.start(enc, st_, 1);
  scratch_.resize(model.config().tgt_vocab);
  tokens_.reserve(max_len_);
  last_.token = model.config().bos;  // the next step feeds BOS
}

namespace {
const Encoded& first_encoding(const Ensemble& e, const std::vector<const Encoded*>& encs) {
  if (int(encs.size()) != e.size())
    throw std::invalid_argument("an ensemble of " + std::to_string(e.size()) + " models was given " +
                                std::to_string(encs.size()) + " encodings of the source");
  for (std::size_t m = 0; m < encs.size(); ++m) {
    if (!encs[m]) throw std::invalid_argument("the source's encoding by " + e.name(int(m)) + " is null");
    if (encs[m]->T != encs[0]->T)
      throw std::invalid_argument(e.name(int(m)) + " encoded the source as " + std::to_string(encs[m]->T) +
                                  " tokens, " + e.name(0) + " as " + std::to_string(encs[0]->T));
  }
  return *encs[0];
}
}  // namespace

Session::Session(const Ensemble& e, std::vector<const Encoded*> encs, const DecodeOptions& options)
    : ens_(e),
      model_(e.member(0)),
      enc_(first_encoding(e, encs)),
      encs_(std::move(encs)),
      opt_(options),
      rng_(options.seed) {
  validate(opt_, e.config(), enc_.T);
  if (opt_.beam != 1) throw std::invalid_argument("a step-by-step session decodes one hypothesis (beam must be 1)");
  max_len_ = effective_max_length(opt_, enc_.T);
  if (e.size() == 1)
    model_.start(enc_, st_, 1);
  else
    members_ = std::make_unique<detail::Members>(ens_, encs_.data(), 1, 1);
  scratch_.resize(e.config().tgt_vocab);
  tokens_.reserve(max_len_);
  last_.token = e.config().bos;
}

Session::~Session() = default;

const DecoderState& Session::member_state(int m) const {
  if (m < 0 || m >= members())
    throw std::out_of_range("member " + std::to_string(m) + " of " + std::to_string(members()));
  return members_ ? members_->state(m) : st_;
}

const float* Session::scores() const { return members_ ? members_->scores(0) : st_.logits.data(); }
const float* Session::attention() const { return members_ ? members_->attention(0) : st_.weights.data(); }

const Session::Step& Session::step(std::int32_t forced, const float* attn_override) {
  const auto& c = ens_.config();
  if (forced >= c.tgt_vocab || forced < -1)
    throw std::invalid_argument("forced token id " + std::to_string(forced) + " is outside the target vocabulary [0, " +
                                std::to_string(c.tgt_vocab) + ")");
  if (last_.done && forced < 0)
    throw std::invalid_argument(std::string("the decoder has finished (") +
                                (last_.token == c.eos ? "EOS emitted" : "max_length reached") +
                                "); force a token to continue");
  if (int(tokens_.size()) >= kMaxTargetLength)
    throw TooLong("the target already has " + std::to_string(kMaxTargetLength) + " tokens, the maximum");
  if (attn_override && members_)
    throw std::invalid_argument("an attention override needs one model; this decoder is an ensemble of " +
                                std::to_string(members()));
  const std::int32_t prev = last_.token;
  const std::size_t V = c.tgt_vocab;
  const std::size_t k = tokens_.size();
  if (members_) {
    const int row = 0;
    members_->step(&row, &prev, 1, k);
  } else {
    model_.step(enc_, st_, &prev, 1, attn_override);  // validates attn_override before changing anything
  }
  const float* logits = scores();
  Step s;
  s.prev = prev;
  if (forced >= 0)
    s.token = forced, s.forced = true;
  else if (k < opt_.prefix.size())
    s.token = opt_.prefix[k], s.forced = true;
  else {
    detail::repeated_ngram_tokens(tokens_.data(), tokens_.size(), opt_.no_repeat_ngram, c.eos, banned_);
    if (!banned_.empty()) masked_.resize(V);
    const float* allowed = detail::without(logits, V, banned_, masked_.data());
    s.token = opt_.temperature > 0.f ? sample_token(allowed, V, opt_.temperature, rng_, scratch_.data())
                                     : std::int32_t(kernels::argmax(allowed, V));
  }
  last_lse_ = members_ ? members_->lse(0, k) : checked_logsumexp(logits, V, k);
  s.log_prob = logits[s.token] - last_lse_;
  tokens_.push_back(s.token);
  s.done = s.token == c.eos || int(tokens_.size()) >= max_len_;
  last_ = s;
  return last_;
}

// One row per source; a source's row leaves the state once it has emitted EOS or reached its
// max_length, so the batch shrinks as sources finish. Each source samples from its own Rng(seed),
// exactly as a Session does alone.
std::vector<DecodeResult> greedy_or_sample(const Ensemble& e, const Encoded* const* encs, int n,
                                           const DecodeOptions& o) {
  const auto& c = e.config();
  const int M = e.size();
  const std::size_t V = c.tgt_vocab, N = n;
  std::vector<DecodeResult> out(N);
  std::vector<Rng> rng;
  std::vector<int> max_len(N), src_of(N), next_src(N);
  std::vector<std::int32_t> prev(N, c.bos), parents(N);
  for (std::size_t i = 0; i < N; ++i) {
    validate(o, c, encs[i * M]->T);
    max_len[i] = effective_max_length(o, encs[i * M]->T);
    rng.emplace_back(o.seed);
    src_of[i] = int(i);
    out[i].src_len = encs[i * M]->T;
    out[i].hypotheses.resize(1);
  }
  std::vector<float> scratch(V), masked(o.no_repeat_ngram > 0 ? V : 0);
  std::vector<std::int32_t> banned;
  detail::Members st(e, encs, n, n);
  int B = n;
  for (std::size_t k = 0; B > 0; ++k) {
    st.step(src_of.data(), prev.data(), B, k);
    int nb = 0;
    for (int r = 0; r < B; ++r) {
      const int i = src_of[r];
      Hypothesis& h = out[i].hypotheses[0];
      const float* logits = st.scores(r);
      std::int32_t token;
      if (k < o.prefix.size()) {
        token = o.prefix[k];
      } else {
        detail::repeated_ngram_tokens(h.tokens.data(), h.tokens.size(), o.no_repeat_ngram, c.eos, banned);
        const float* allowed = detail::without(logits, V, banned, masked.data());
        token = o.temperature > 0.f ? sample_token(allowed, V, o.temperature, rng[i], scratch.data())
                                    : std::int32_t(kernels::argmax(allowed, V));
      }
      h.log_prob += logits[token] - st.lse(r, k);
      st.append_attention(h, r, out[i].src_len);
      h.tokens.push_back(token);
      if (token == c.eos || int(h.tokens.size()) >= max_len[i]) continue;
      parents[nb] = r;
      prev[nb] = token;
      next_src[nb] = i;
      ++nb;
    }
    if (nb > 0 && nb < B) st.reorder(parents.data(), nb);
    std::swap(src_of, next_src);
    B = nb;
  }
  for (auto& r : out) {
    Hypothesis& h = r.hypotheses[0];
    h.finished = !h.tokens.empty() && h.tokens.back() == c.eos;
    const float len = float(h.tokens.size());
    h.score = o.length_penalty > 0.f ? h.log_prob / std::pow(len, o.length_penalty) : h.log_prob;
  }
  return out;
}

std::vector<DecodeResult> greedy_or_sample(const Model& model, const Encoded* const* encs, int n,
                                           const DecodeOptions& o) {
  return greedy_or_sample(Ensemble(model), encs, n, o);
}

std::vector<DecodeResult> beam_search(const Model& model, const Encoded* const* encs, int n, const DecodeOptions& o) {
  return beam_search(Ensemble(model), encs, n, o);
}

std::vector<DecodeResult> decode_batch(const Model& model, const Encoded* const* encs, int n,
                                       const DecodeOptions& options) {
  return decode_batch(Ensemble(model), encs, n, options);
}

std::vector<DecodeResult> decode_batch(const Ensemble& e, const Encoded* const* encs, int n,
                                       const DecodeOptions& options) {
  if (n < 1 || n > kMaxRows / std::max(1, options.beam))
    throw std::invalid_argument("decode_batch: " + std::to_string(n) + " sources at beam " +
                                std::to_string(options.beam) + "; at most " + std::to_string(kMaxRows) +
                                " decoder rows (sources x beam)");
  for (int i = 0; i < n; ++i) validate(options, e.config(), encs[std::size_t(i) * e.size()]->T);
  return options.beam > 1 ? beam_search(e, encs, n, options) : greedy_or_sample(e, encs, n, options);
}

DecodeResult greedy_or_sample(const Model& model, const Encoded& enc, const DecodeOptions& options) {
  const Encoded* e = &enc;
  return std::move(greedy_or_sample(model, &e, 1, options)[0]);
}

DecodeResult beam_search(const Model& model, const Encoded& enc, const DecodeOptions& options) {
  const Encoded* e = &enc;
  return std::move(beam_search(model, &e, 1, options)[0]);
}

DecodeResult decode(const Model& model, const Encoded& enc, const DecodeOptions& options) {
  validate(options, model.config(), enc.T);
  const Encoded* e = &enc;
  return std::move(decode_batch(model, &e, 1, options)[0]);
}

std::vector<DecodeResult> translate_batch(const Ensemble& e, const std::vector<std::vector<std::int32_t>>& sources,
                                          const DecodeOptions& options, int max_rows, int threads) {
  const Model& model = e.member(0);
  const std::size_t M = std::size_t(e.size());
  const std::size_t N = sources.size();
  if (max_rows < 1 || max_rows > kMaxRows)
    throw std::invalid_argument("translate_batch: max_rows is " + std::to_string(max_rows) + "; it must be in [1, " +
                                std::to_string(kMaxRows) + "]");
  threads = usable_threads(threads, "translate_batch: threads");
  for (std::size_t i = 0; i < N; ++i) {
    try {
      for (std::size_t m = 0; m < M; ++m) e.member(int(m)).check_source(sources[i].data(), int(sources[i].size()));
      validate(options, model.config(), int(sources[i].size()));
    } catch (const std::invalid_argument& e) {
      raise_with_context("source " + std::to_string(i) + ": ", e);
    }
  }
  // Groups of similar length waste little on padding: sources in order of length, cut into groups.
  std::vector<std::size_t> order(N);
  for (std::size_t i = 0; i < N; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return sources[a].size() < sources[b].size(); });
  // Sources per group: max_rows / beam, and fewer when that leaves a thread without a group.
  const std::size_t fill = (N + std::size_t(threads) - 1) / std::size_t(threads);
  const std::size_t per =
      std::max<std::size_t>(1, std::min(std::size_t(std::max(1, max_rows / std::max(1, options.beam))), fill));
  std::vector<DecodeResult> out(N);
  // Group g is sources order[g per .. (g + 1) per - 1]; thread t takes groups t, t + T, ... (each
  // source's result is the same whatever its group, and each is written to its own slot of out).
  const std::size_t groups = (N + per - 1) / per;
  const std::size_t T = std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads), groups));
  run_on_threads(T, [&](std::size_t t) {
    std::vector<std::vector<Encoded>> enc(M);
    std::vector<const std::int32_t*> ids;
    std::vector<int> lens;
    std::vector<const Encoded*> ptrs;
    for (std::size_t g = t; g < groups; g += T) {
      const std::size_t lo = g * per, hi = std::min(N, lo + per), n = hi - lo;
      ids.clear();
      lens.clear();
      for (std::size_t j = lo; j < hi; ++j) {
        ids.push_back(sources[order[j]].data());
        lens.push_back(int(sources[order[j]].size()));
      }
      for (std::size_t m = 0; m < M; ++m) e.member(int(m)).encode_batch(ids.data(), lens.data(), int(n), enc[m]);
      ptrs.clear();
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t m = 0; m < M; ++m) ptrs.push_back(&enc[m][j]);
      auto res = decode_batch(e, ptrs.data(), int(n), options);
      for (std::size_t j = 0; j < n; ++j) out[order[lo + j]] = std::move(res[j]);
    }
  });
  return out;
}

}  // namespace attnseq
