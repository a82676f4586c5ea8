// The decode options checked against a model and a source (validate), and the length a decode may
// reach (effective_max_length).
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

}  // namespace attnseq
