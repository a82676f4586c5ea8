// The members of an ensemble stepped together (members.hpp), and Ensemble's checks (decode.hpp).
#include "decode/members.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "model/spm.hpp"

namespace attnseq {

std::string vocabulary_difference(const ModelConfig& a, const ModelConfig& b) {
  auto n = [](int x) { return std::to_string(x); };
  if (a.src_vocab != b.src_vocab) return "source vocabulary has " + n(b.src_vocab) + " tokens, not " + n(a.src_vocab);
  if (a.tgt_vocab != b.tgt_vocab) return "target vocabulary has " + n(b.tgt_vocab) + " tokens, not " + n(a.tgt_vocab);
  if (a.pad != b.pad || a.bos != b.bos || a.eos != b.eos || a.unk != b.unk)
    return "special ids pad/bos/eos/unk are " + n(b.pad) + "/" + n(b.bos) + "/" + n(b.eos) + "/" + n(b.unk) + ", not " +
           n(a.pad) + "/" + n(a.bos) + "/" + n(a.eos) + "/" + n(a.unk);
  if (a.src_tokenizer != b.src_tokenizer)
    return std::string("source tokenizer is ") + to_string(b.src_tokenizer) + ", not " + to_string(a.src_tokenizer);
  if (a.tgt_tokenizer != b.tgt_tokenizer)
    return std::string("target tokenizer is ") + to_string(b.tgt_tokenizer) + ", not " + to_string(a.tgt_tokenizer);
  if (a.src_jamo != b.src_jamo)
    return std::string("source reads Hangul as ") + (b.src_jamo ? "jamo" : "syllables") + ", not " +
           (a.src_jamo ? "jamo" : "syllables");
  if (a.src_case != b.src_case)
    return std::string("source folding is '") + to_string(b.src_case) + "', not '" + to_string(a.src_case) + "'";
  for (int side = 0; side < 2; ++side) {
    const auto &ta = side ? a.tgt_tokens : a.src_tokens, &tb = side ? b.tgt_tokens : b.src_tokens;
    const char* what = side ? "target" : "source";
    for (std::size_t i = 0; i < ta.size() && i < tb.size(); ++i)
      if (ta[i] != tb[i])
        return std::string(what) + " token " + std::to_string(i) + " is '" + tb[i] + "', not '" + ta[i] + "'";
    const auto &sa = side ? a.tgt_spm : a.src_spm, &sb = side ? b.tgt_spm : b.src_spm;
    if (bool(sa) != bool(sb))
      return std::string(what) + " side has " +
             (sb ? "a SentencePiece model, where the first has none"
                 : "no SentencePiece model, where the first has one");
    if (sa && sa->bytes() != sb->bytes())
      return std::string(what) + " SentencePiece model differs (the same pieces, another normaliser or other settings)";
  }
  return "";
}

Ensemble::Ensemble(const std::vector<const Model*>& members, std::vector<std::string> names)
    : size_(int(members.size())), names_(std::move(names)) {
  if (members.empty()) throw std::invalid_argument("an ensemble needs at least one model");
  if (members.size() > std::size_t(kMaxMembers))
    throw std::invalid_argument("an ensemble of " + std::to_string(members.size()) + " models; at most " +
                                std::to_string(kMaxMembers));
  if (!names_.empty() && names_.size() != members.size())
    throw std::invalid_argument("an ensemble of " + std::to_string(members.size()) + " models was given " +
                                std::to_string(names_.size()) + " names");
  for (std::size_t i = 0; i < members.size(); ++i) {
    members_[i] = members[i];
    if (!members[i]) throw std::invalid_argument("ensemble member " + name(int(i)) + " is null");
    if (i == 0) continue;
    const std::string d = vocabulary_difference(members[0]->config(), members[i]->config());
    if (!d.empty())
      throw std::invalid_argument("ensemble: " + name(int(i)) + " does not share " + name(0) + "'s vocabularies: its " +
                                  d);
  }
}

std::string Ensemble::name(int i) const {
  return names_.empty() ? "model " + std::to_string(i + 1) : names_[std::size_t(i)];
}

bool Ensemble::has_attention() const {
  for (int i = 0; i < size_; ++i)
    if (!members_[std::size_t(i)]->config().has_attention()) return false;
  return true;
}

namespace detail {

Members::Members(const Ensemble& e, const Encoded* const* encs, int n, int capacity)
    : e_(e), encs_(encs), M_(e.size()), V_(std::size_t(e.config().tgt_vocab)), st_(std::size_t(M_)) {
  std::vector<const Encoded*> mine(static_cast<std::size_t>(n));
  for (int m = 0; m < M_; ++m) {
    for (int i = 0; i < n; ++i) mine[i] = encs[std::size_t(i) * M_ + m];
    e.member(m).start(mine.data(), n, st_[m], capacity);
  }
  T_ = st_[0].T;
  row_enc_.resize(std::size_t(capacity));
  if (M_ > 1) {
    mean_scores_.resize(std::size_t(capacity) * V_);
    mean_attention_.resize(std::size_t(capacity) * T_);
  }
}

void Members::step(const int* row_src, const std::int32_t* prev, int B, std::size_t step_index,
                   const float* attn_override) {
  if (attn_override) {
    if (B != 1) throw std::logic_error("Members::step: an attention override is for one row");
    // Member 0 checks the weights before changing anything; the members read one source of one
    // length (they share tokenizers and source folding), so what member 0 accepts, every one does.
    const Encoded* const* encs = &encs_[std::size_t(row_src[0]) * M_];
    for (int m = 0; m < M_; ++m) e_.member(m).step(*encs[m], st_[m], prev, 1, attn_override);
  } else {
    for (int m = 0; m < M_; ++m) {
      for (int r = 0; r < B; ++r) row_enc_[r] = encs_[std::size_t(row_src[r]) * M_ + m];
      e_.member(m).step(row_enc_.data(), st_[m], prev, B);
    }
  }
  if (M_ == 1) return;
  const float inv = 1.f / float(M_);
  for (int r = 0; r < B; ++r) {
    float* out = &mean_scores_[std::size_t(r) * V_];
    float* att = &mean_attention_[std::size_t(r) * T_];
    for (int m = 0; m < M_; ++m) {
      const float* l = &st_[m].logits[std::size_t(r) * V_];
      const float lse = checked_logsumexp(l, V_, step_index);
      const float* w = &st_[m].attention[std::size_t(r) * T_];
      if (m == 0) {
        for (std::size_t v = 0; v < V_; ++v) out[v] = l[v] - lse;
        for (int t = 0; t < T_; ++t) att[t] = w[t];
      } else {
        for (std::size_t v = 0; v < V_; ++v) out[v] += l[v] - lse;
        for (int t = 0; t < T_; ++t) att[t] += w[t];
      }
    }
    for (std::size_t v = 0; v < V_; ++v) out[v] *= inv;
    for (int t = 0; t < T_; ++t) att[t] *= inv;
  }
}

const float* Members::scores(int r) const {
  return M_ == 1 ? &st_[0].logits[std::size_t(r) * V_] : &mean_scores_[std::size_t(r) * V_];
}

float Members::lse(int r, std::size_t step_index) const {
  return M_ == 1 ? checked_logsumexp(scores(r), V_, step_index) : 0.f;
}

const float* Members::attention(int r) const {
  return M_ == 1 ? &st_[0].attention[std::size_t(r) * T_] : &mean_attention_[std::size_t(r) * T_];
}

const float* Members::member_attention(int m, int r) const { return &st_[m].attention[std::size_t(r) * T_]; }

void Members::reorder(const std::int32_t* parents, int n) {
  for (int m = 0; m < M_; ++m) e_.member(m).reorder(st_[m], parents, n);
}

void Members::append_attention(Hypothesis& h, int r, int T) const {
  const float* a = attention(r);
  h.attention.insert(h.attention.end(), a, a + T);
  if (M_ == 1) return;
  h.member_attention.resize(std::size_t(M_));
  for (int m = 0; m < M_; ++m) {
    const float* w = member_attention(m, r);
    h.member_attention[m].insert(h.member_attention[m].end(), w, w + T);
  }
}

void repeated_ngram_tokens(const std::int32_t* h, std::size_t len, int n, std::int32_t eos,
                           std::vector<std::int32_t>& out) {
  out.clear();
  if (n < 1 || len + 1 < std::size_t(n)) return;
  const std::size_t tail = std::size_t(n) - 1;  // the n-gram's first n - 1 tokens: h's last
  const std::int32_t* t = h + len - tail;
  for (std::size_t j = 0; j + tail < len; ++j)
    if (std::equal(t, t + tail, h + j) && h[j + tail] != eos) out.push_back(h[j + tail]);
}

const float* without(const float* scores, std::size_t V, const std::vector<std::int32_t>& banned, float* scratch) {
  if (banned.empty()) return scores;
  std::copy_n(scores, V, scratch);
  for (std::int32_t t : banned) scratch[t] = -std::numeric_limits<float>::infinity();
  return scratch;
}

}  // namespace detail
}  // namespace attnseq
