// The decode options' table (options.hpp).
#include "decode/options.hpp"

#include <cmath>
#include <limits>

#include "core/errors.hpp"

namespace attnseq {

namespace {
constexpr unsigned kAll = kScopeOne | kScopeBatch | kScopeStep | kScopeEval;
// The largest seed: JavaScript's Number.MAX_SAFE_INTEGER, so that a seed means the same everywhere.
constexpr double kMaxSeed = kMaxExactInteger;
}  // namespace

const std::vector<DecodeOptionSpec>& decode_option_table() {
  using K = OptionKind;
  using O = DecodeOptions;
  static const std::vector<DecodeOptionSpec> t = {
      {"beam", "beam", "--beam", "K", K::Integer, 1, kMaxBeam, "",
       "beam width; 1 = greedy (or sampling when temperature > 0)", kAll & ~kScopeStep,
       [](const O& o) { return double(o.beam); }, [](O& o, double x) { o.beam = int(x); }},
      {"max_length", "maxLength", "--max-length", "N", K::Integer, 0, kMaxTargetLength,
       "0 = automatic: 2 x source length + 10", "most target tokens, EOS included", kAll,
       [](const O& o) { return double(o.max_length); }, [](O& o, double x) { o.max_length = int(x); }},
      {"max_length_ratio", "maxLengthRatio", "--max-length-ratio", "R", K::Number, 0, 64, "0 = no such limit",
       "most target tokens before EOS: ceil(R x source tokens) (and max_length still holds)", kAll,
       [](const O& o) { return double(o.max_length_ratio); }, [](O& o, double x) { o.max_length_ratio = float(x); }},
      {"length_penalty", "lengthPenalty", "--length-penalty", "A", K::Number, 0, 10, "",
       "beam ranking: log p / length^A (0 = raw log p)", kAll & ~kScopeStep,
       [](const O& o) { return double(o.length_penalty); }, [](O& o, double x) { o.length_penalty = float(x); }},
      {"coverage_penalty", "coveragePenalty", "--coverage-penalty", "B", K::Number, 0, 10, "",
       "beam ranking adds B x the sum over source tokens of log min(attention received, 1) (GNMT's coverage "
       "penalty: a hypothesis that leaves source tokens unread ranks lower); 0 = none; beam >= 2",
       kAll & ~kScopeStep, [](const O& o) { return double(o.coverage_penalty); },
       [](O& o, double x) { o.coverage_penalty = float(x); }},
      {"no_repeat_ngram", "noRepeatNgram", "--no-repeat-ngram", "N", K::Integer, 0, 64, "",
       "never choose a token that would repeat an N-token sequence already in the hypothesis (EOS and forced "
       "tokens excepted); 0 = off",
       kAll, [](const O& o) { return double(o.no_repeat_ngram); }, [](O& o, double x) { o.no_repeat_ngram = int(x); }},
      {"temperature", "temperature", "--temperature", "T", K::Number, 0, 1e6, "",
       "> 0: sample from softmax(logits / T) (beam 1 only); 0 = argmax", kScopeOne | kScopeBatch | kScopeStep,
       [](const O& o) { return double(o.temperature); }, [](O& o, double x) { o.temperature = float(x); }},
      {"seed", "seed", "--seed", "S", K::Integer, 0, kMaxSeed, "", "sampling seed (the same output everywhere)",
       kScopeOne | kScopeBatch | kScopeStep, [](const O& o) { return double(o.seed); },
       [](O& o, double x) { o.seed = std::uint64_t(x); }},
      {"num_hypotheses", "numHypotheses", "--num-hypotheses", "N", K::Integer, 0, kMaxBeam, "0 = all, beam's",
       "hypotheses returned, best first (at most beam)", kScopeOne | kScopeBatch,
       [](const O& o) { return double(o.num_hypotheses); }, [](O& o, double x) { o.num_hypotheses = int(x); }},
      {"trace", "trace", "", "", K::Flag, 0, 1, "",
       "record every step of a beam search (beam >= 2, one model): the hypotheses alive and their parents", kScopeOne,
       [](const O& o) { return o.trace ? 1.0 : 0.0; }, [](O& o, double x) { o.trace = x != 0; }},
  };
  return t;
}

const DecodeOptionSpec* decode_option_by_js(const std::string& js) {
  for (const auto& s : decode_option_table())
    if (js == s.js) return &s;
  return nullptr;
}

const DecodeOptionSpec* decode_option_by_flag(const std::string& flag) {
  for (const auto& s : decode_option_table())
    if (*s.flag && flag == s.flag) return &s;
  return nullptr;
}

std::string value_text(const DecodeOptionSpec& s, const DecodeOptions& o) {
  const double x = s.get(o);
  if (s.kind == OptionKind::Flag) return x != 0 ? "true" : "false";
  return s.kind == OptionKind::Number ? number_text(float(x)) : number_text(x);
}

std::string default_text(const DecodeOptionSpec& s) { return value_text(s, DecodeOptions{}); }

std::string option_value_error(const DecodeOptionSpec& s, double x, const std::string& label) {
  if (s.kind == OptionKind::Flag) return x == 0 || x == 1 ? "" : label + " must be true or false";
  // A Number is stored as a float: written as one ("-3e+38", not the double's 17 digits).
  const bool as_float = s.kind == OptionKind::Number && std::fabs(x) <= double(std::numeric_limits<float>::max());
  const std::string shown = as_float ? number_text(float(x)) : number_text(x);
  if (!(x >= s.min && x <= s.max))
    return label + " is " + shown + "; it must be in [" + number_text(s.min) + ", " + number_text(s.max) + "]" +
           (*s.note ? std::string(" (") + s.note + ")" : "");
  if (s.kind == OptionKind::Integer && x != std::floor(x)) return label + " must be an integer";
  return "";
}

}  // namespace attnseq
