// Greedy decoding, temperature sampling and the step-at-a-time Session: one hypothesis, B = 1.
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "decode/decode.hpp"
#include "kernels/kernels.hpp"
#include "model/errors.hpp"

namespace attnseq {

std::uint64_t Rng::next() {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float Rng::uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }

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

int effective_max_length(const DecodeOptions& o, int src_len) {
  if (o.max_length > 0) return o.max_length;
  return std::min(2 * src_len + 10, kMaxTargetLength);
}

void validate(const DecodeOptions& o, const ModelConfig& c, int src_len) {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  if (o.beam < 1 || o.beam > kMaxBeam)
    bad("beam is " + std::to_string(o.beam) + "; it must be in [1, " + std::to_string(kMaxBeam) + "]");
  if (o.max_length < 0 || o.max_length > kMaxTargetLength)
    bad("max_length is " + std::to_string(o.max_length) + "; it must be in [1, " + std::to_string(kMaxTargetLength) +
        "] (0 = automatic)");
  if (!std::isfinite(o.temperature) || o.temperature < 0.f)
    bad("temperature is " + std::to_string(o.temperature) + "; it must be a finite number >= 0");
  if (o.temperature > 0.f && o.beam > 1)
    bad("temperature sampling needs beam 1 (beam is " + std::to_string(o.beam) + ")");
  if (!std::isfinite(o.length_penalty) || o.length_penalty < 0.f || o.length_penalty > 10.f)
    bad("length_penalty is " + std::to_string(o.length_penalty) + "; it must be in [0, 10]");
  if (o.num_hypotheses < 0 || o.num_hypotheses > o.beam)
    bad("num_hypotheses is " + std::to_string(o.num_hypotheses) +
        "; it must be in [0, beam = " + std::to_string(o.beam) + "]");
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
    : model_(model), enc_(enc), opt_(options), rng_(options.seed) {
  validate(opt_, model.config(), enc.T);
  if (opt_.beam != 1) throw std::invalid_argument("a step-by-step session decodes one hypothesis (beam must be 1)");
  max_len_ = effective_max_length(opt_, enc.T);
  model.start(enc, st_, 1);
  scratch_.resize(model.config().tgt_vocab);
  tokens_.reserve(max_len_);
  last_.token = model.config().bos;  // the next step feeds BOS
}

const Session::Step& Session::step(std::int32_t forced, const float* attn_override) {
  const auto& c = model_.config();
  if (forced >= c.tgt_vocab || forced < -1)
    throw std::invalid_argument("forced token id " + std::to_string(forced) + " is outside the target vocabulary [0, " +
                                std::to_string(c.tgt_vocab) + ")");
  if (last_.done && forced < 0)
    throw std::invalid_argument(std::string("the decoder has finished (") +
                                (last_.token == c.eos ? "EOS emitted" : "max_length reached") +
                                "); force a token to continue");
  if (int(tokens_.size()) >= kMaxTargetLength)
    throw TooLong("the target already has " + std::to_string(kMaxTargetLength) + " tokens, the maximum");
  const std::int32_t prev = last_.token;
  model_.step(enc_, st_, &prev, 1, attn_override);  // validates attn_override before changing anything
  const float* logits = st_.logits.data();
  const std::size_t V = c.tgt_vocab;
  const std::size_t k = tokens_.size();
  Step s;
  s.prev = prev;
  if (forced >= 0)
    s.token = forced, s.forced = true;
  else if (k < opt_.prefix.size())
    s.token = opt_.prefix[k], s.forced = true;
  else if (opt_.temperature > 0.f)
    s.token = sample_token(logits, V, opt_.temperature, rng_, scratch_.data());
  else
    s.token = std::int32_t(kernels::argmax(logits, V));
  s.log_prob = logits[s.token] - kernels::logsumexp(logits, V);
  tokens_.push_back(s.token);
  s.done = s.token == c.eos || int(tokens_.size()) >= max_len_;
  last_ = s;
  return last_;
}

DecodeResult greedy_or_sample(const Model& model, const Encoded& enc, const DecodeOptions& options) {
  Session s(model, enc, options);
  DecodeResult r;
  r.src_len = enc.T;
  Hypothesis h;
  const std::size_t T = enc.T;
  while (!s.done()) {
    const auto& st = s.step();
    h.log_prob += st.log_prob;
    h.attention.insert(h.attention.end(), s.state().weights.begin(), s.state().weights.begin() + T);
  }
  h.tokens = s.tokens();
  h.finished = !h.tokens.empty() && h.tokens.back() == model.config().eos;
  const float len = float(h.tokens.size());
  h.score = options.length_penalty > 0.f ? h.log_prob / std::pow(len, options.length_penalty) : h.log_prob;
  r.hypotheses.push_back(std::move(h));
  return r;
}

DecodeResult decode(const Model& model, const Encoded& enc, const DecodeOptions& options) {
  validate(options, model.config(), enc.T);
  return options.beam > 1 ? beam_search(model, enc, options) : greedy_or_sample(model, enc, options);
}

}  // namespace attnseq
