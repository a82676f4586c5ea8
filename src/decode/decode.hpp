// Decoding on top of Model::step: greedy, beam search (hypotheses batched into one product per step),
// temperature sampling with a seed, and a forced target prefix, all behind decode(). Every
// hypothesis carries its alignment matrix (target tokens x source positions).
// Session is the same machinery one step at a time, for callers that drive the decoder by hand.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "model/model.hpp"

namespace attnseq {

// What each option means, its range and its names elsewhere: decode/options.hpp, the one table.
struct DecodeOptions {
  int beam = 1;                      // beam width; 1 = greedy (or sampling when temperature > 0)
  int max_length = 0;                // most target tokens, EOS included; 0 = 2 * source length + 10
  float max_length_ratio = 0.f;      // > 0: at most ceil(ratio * source length) tokens before EOS
  float length_penalty = 1.0f;       // beam ranking: log p / length^length_penalty (0 = raw log p)
  float coverage_penalty = 0.f;      // beam ranking: + beta * sum_i log min(coverage_i, 1) (GNMT)
  int no_repeat_ngram = 0;           // > 0: no token that would repeat an n-gram of the hypothesis
  float temperature = 0.f;           // > 0: sample from softmax(logits / temperature); beam must be 1
  std::uint64_t seed = 0;            // sampling seed (same seed, same output, native or wasm)
  std::vector<std::int32_t> prefix;  // forced first target tokens (they count toward max_length)
  int num_hypotheses = 0;            // hypotheses returned; 0 = all beam hypotheses (1 for greedy)
  bool trace = false;                // beam search (beam >= 2): record every step (DecodeResult::trace)
};

struct Hypothesis {
  std::vector<std::int32_t> tokens;  // target ids; the last is EOS if one was produced
  float log_prob = 0.f;              // sum of log p(token | prefix, source)
  float score = 0.f;                 // log_prob / length^length_penalty (+ the coverage penalty): the rank
  std::vector<float> attention;      // (tokens.size(), src_len): row k is the step that produced token k
  bool finished = false;             // ended with EOS (false: stopped at max_length)
  // An ensemble of more than one model: each member's own attention, laid out as `attention` (which
  // is then their mean). Empty for a single model.
  std::vector<std::vector<float>> member_attention;
};

// One hypothesis of a beam search step: the candidate that extended live hypothesis `parent` of the
// step before (an index into that step's nodes; -1 at step 0, whose parent is the start) by `token`.
// A node that ended (EOS, or max_length reached) is not extended; the others are the step's live
// hypotheses, best first. Only candidates that made the beam are recorded.
struct BeamNode {
  std::int32_t parent = -1;
  std::int32_t token = 0;
  float log_prob = 0.f;  // of the whole hypothesis so far
  float score = 0.f;     // log_prob / length^length_penalty (an ended node: its Hypothesis::score)
  bool ended = false;    // finished here: EOS (finished) or the last step allowed
};

struct DecodeResult {
  int src_len = 0;
  std::vector<Hypothesis> hypotheses;  // best first
  // DecodeOptions::trace: step k's nodes, in the order the search ranked its candidates.
  std::vector<std::vector<BeamNode>> trace;
};

constexpr int kMaxMembers = 16;  // most models in one ensemble

// What differs between two models' vocabularies, tokenizers, special ids and source folding, said of
// b against a ("" when nothing does): everything that must be equal for their scores to be about the
// same tokens of the same text (ensemble members; checkpoints averaged by `attnseq average`).
std::string vocabulary_difference(const ModelConfig& a, const ModelConfig& b);

// Models that decode together (Ensemble decoding): at every step each member runs its own decoder
// on the same prefix, and the tokens are ranked by the members' mean log-probability,
//   score(y) = (1/N) sum_m log p_m(y | prefix, source),
// for greedy, beam search and sampling alike (sampling draws from the softmax of that mean). The
// attention shown is the members' mean; each member's own is kept too (Hypothesis::member_attention).
// An ensemble of one decodes exactly as its model does, bit for bit. Members must share their
// vocabularies, tokenizers, special ids and source folding (they may differ in anything else: sizes,
// cells, attention, int8); the constructor refuses one that differs, naming it. The models must
// outlive the Ensemble.
class Ensemble {
 public:
  // Neither constructor allocates unless names are given: decoding one model through its ensemble of
  // one costs nothing.
  Ensemble(const Model& single)
      : members_{&single}, size_(1) {}  // NOLINT(google-explicit-constructor): every Model is an ensemble of one
  // names[i] names member i in errors (default "model i+1"); empty, or one per member.
  explicit Ensemble(const std::vector<const Model*>& members, std::vector<std::string> names = {});
  int size() const { return size_; }
  const Model& member(int i) const { return *members_[std::size_t(i)]; }
  std::string name(int i) const;
  // What decoding reads of the configuration: member 0's (the vocabularies are every member's).
  const ModelConfig& config() const { return members_[0]->config(); }
  // Every member attends (a style 'none' member has no weights to show: its rows are zeros).
  bool has_attention() const;

 private:
  std::array<const Model*, kMaxMembers> members_{};
  int size_ = 0;
  std::vector<std::string> names_;  // empty: the defaults
};

// The log-sum-exp of one row's logits at target position `step` (from 0). Throws BadCheckpoint when it
// is not finite: the model's numbers overflowed or became NaN, and such a decode is an error, never an
// answer (a load refuses weights that could do this; a Model built in memory is not checked there).
float checked_logsumexp(const float* logits, std::size_t V, std::size_t step);

// Throws std::invalid_argument for bad options (naming the option and value).
void validate(const DecodeOptions& o, const ModelConfig& c, int src_len);
int effective_max_length(const DecodeOptions& o, int src_len);

DecodeResult decode(const Model& model, const Encoded& enc, const DecodeOptions& options);

// Decodes n encoded sources together: every step is one product per weight matrix over the live rows
// of all of them (greedy or sampling: a row per source; beam: up to `beam` rows per source), each row
// attending to its own source. Result i equals decode(model, *encs[i], options), bit for bit: every
// product gives a row what it gives that row alone. A source's rows leave the batch when it is done.
// n must be in [1, kMaxRows / beam]. `e` is an ensemble, or one Model (an ensemble of one): encs holds
// n sources x e.size() members, source-major (encs[i * size + m] is source i encoded by member m).
std::vector<DecodeResult> decode_batch(const Ensemble& e, const Encoded* const* encs, int n,
                                       const DecodeOptions& options);
std::vector<DecodeResult> greedy_or_sample(const Ensemble& e, const Encoded* const* encs, int n,
                                           const DecodeOptions& options);
std::vector<DecodeResult> beam_search(const Ensemble& e, const Encoded* const* encs, int n,
                                      const DecodeOptions& options);
// One source: the same search (beam_search at beam 1 is a beam of one, not greedy's code).
DecodeResult greedy_or_sample(const Model& model, const Encoded& enc, const DecodeOptions& options);
DecodeResult beam_search(const Model& model, const Encoded& enc, const DecodeOptions& options);

// Translation of many sources (token ids): encodes and decodes them in groups of similar length,
// each group at most max_rows decoder rows (sources x beam), and returns the results in input order.
// Equal to encode + decode of each source alone. Every source is checked first: a bad one (empty, too
// long, an id outside the vocabulary) throws, naming its index ("source 3: ..."), before any work.
// threads (native builds; 1 in wasm): the groups are shared among that many threads, which changes
// no result; a count outside [1, kMaxThreads] throws.
std::vector<DecodeResult> translate_batch(const Ensemble& ensemble,
                                          const std::vector<std::vector<std::int32_t>>& sources,
                                          const DecodeOptions& options, int max_rows = kDefaultBatchRows,
                                          int threads = 1);

// Index drawn from softmax(logits / temperature); scratch holds n floats. Well defined for every T whose
// reciprocal is a finite float (however large logits / T gets); a T below that (under 2^-128, about
// 2.9e-39) is the T -> 0 limit, the argmax (greedy).
std::int32_t sample_token(const float* logits, std::size_t n, float temperature, Rng& rng, float* scratch);

namespace detail {
class Members;
// The buffers of the token choice (members.hpp, choose_token): the banned tokens, the scores without
// them, a sample's probabilities.
struct TokenChoice {
  std::vector<std::int32_t> banned;
  std::vector<float> masked, scratch;
};
}  // namespace detail

// Step-at-a-time decoding of one hypothesis, by one model or by an ensemble. The models and Encoded
// must outlive the Session.
class Session {
 public:
  // options.beam must be 1; prefix, temperature, seed and max_length apply.
  Session(const Model& model, const Encoded& enc, const DecodeOptions& options);
  // An ensemble: encs[m] is the source as member m encoded it (one source, e.size() encodings). Each
  // step ranks tokens by the members' mean log-probability, as greedy_or_sample(e, ...) does; an
  // ensemble of one is the model's Session, bit for bit.
  Session(const Ensemble& e, std::vector<const Encoded*> encs, const DecodeOptions& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  struct Step {
    std::int32_t prev = 0;   // token fed in (BOS on the first step)
    std::int32_t token = 0;  // token chosen
    float log_prob = 0.f;    // log p(token) (an ensemble: the members' mean log-probability)
    bool forced = false;     // token came from the prefix or the caller
    bool done = false;       // token is EOS or max_length was reached
  };
  // Runs one step. forced >= 0 chooses the token instead of the model; attn_override (src_len) replaces
  // the attention weights (an ensemble: every member's, each reading its own encoder states with them,
  // so that the mean shown is the override). After EOS or max_length only a forced step is accepted.
  const Step& step(std::int32_t forced = -1, const float* attn_override = nullptr);
  const Step& last() const { return last_; }
  int length() const { return int(tokens_.size()); }
  bool done() const { return last_.done; }
  const std::vector<std::int32_t>& tokens() const { return tokens_; }
  int max_length() const { return max_len_; }
  int members() const { return ens_.size(); }
  const Ensemble& ensemble() const { return ens_; }
  // The last step's numbers. state(): one model's decoder state (query, context, scores, weights,
  // logits); member_state(m): member m's (for one model, state()). scores(): what the token was chosen
  // by over the target vocabulary (one model: its logits; an ensemble: the members' mean
  // log-probabilities); attention(): the weights shown (one model: its own; an ensemble: the mean).
  const DecoderState& state() const { return st_; }
  const DecoderState& member_state(int m) const;
  const float* scores() const;
  const float* attention() const;
  // What to subtract from scores() to get log-probabilities (one model: its log-sum-exp; an
  // ensemble: 0, the mean is of log-probabilities already).
  float scores_lse() const { return last_lse_; }

 private:
  Ensemble ens_;
  const Model& model_;
  const Encoded& enc_;
  std::vector<const Encoded*> encs_;          // an ensemble's encodings (Members reads them)
  std::unique_ptr<detail::Members> members_;  // an ensemble of more than one
  DecodeOptions opt_;
  DecoderState st_;
  Rng rng_;
  std::vector<std::int32_t> tokens_;
  detail::TokenChoice choice_;
  Step last_;
  float last_lse_ = 0.f;
  int max_len_ = 0;
};

}  // namespace attnseq
