// The step-at-a-time Session: one hypothesis (B = 1) of one model or an ensemble, a step per call,
// with forced tokens, a forced prefix and attention overrides.
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

Session::Session(const Model& model, const Encoded& enc, const DecodeOptions& options)
    : ens_(model), model_(model), enc_(enc), opt_(options), rng_(options.seed) {
  validate(opt_, model.config(), enc.T);
  if (opt_.beam != 1) throw std::invalid_argument("a step-by-step session decodes one hypothesis (beam must be 1)");
  max_len_ = effective_max_length(opt_, enc.T);
  model.start(enc, st_, 1);
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
const float* Session::attention() const { return members_ ? members_->attention(0) : st_.attention.data(); }

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
  const std::int32_t prev = last_.token;
  const std::size_t V = c.tgt_vocab;
  const std::size_t k = tokens_.size();
  if (members_) {
    const int row = 0;
    members_->step(&row, &prev, 1, k, attn_override);  // checks attn_override before changing anything
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
  else
    s.token = detail::choose_token(logits, V, tokens_, opt_, c.eos, rng_, choice_);
  last_lse_ = members_ ? members_->lse(0, k) : checked_logsumexp(logits, V, k);
  s.log_prob = logits[s.token] - last_lse_;
  tokens_.push_back(s.token);
  s.done = s.token == c.eos || int(tokens_.size()) >= max_len_;
  last_ = s;
  return last_;
}

}  // namespace attnseq
