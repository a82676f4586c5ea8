// The step record: one decoder step's numbers in one flat float array, the form in which they cross
// from the engine to JavaScript (wasm/bindings.cpp writes it, wasm/attnseq.js copies it out of wasm
// memory in one slice and reads every field by name). Its layout is defined here and only here: named
// fields in order, each sized from the model and the source, each offset the sum of the sizes before it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "decode/decode.hpp"

namespace attnseq {

constexpr int kMaxTopk = 64;  // most next-token candidates one step reports

struct StepRecordLayout {
  enum Field : int {
    Token,
    LogProb,
    Done,
    Forced,
    Index,
    TopkCount,  // one float each (ids, flags and counts as floats)
    Query,
    Context,
    Scores,
    Attention,
    Logits,
    TopkIds,
    TopkProbs,
    kFieldCount
  };
  struct Span {
    std::size_t offset = 0, length = 0;
  };
  std::array<Span, kFieldCount> fields{};
  std::size_t size = 0;  // floats in the record: the end of its last field

  const Span& operator[](Field f) const { return fields[f]; }
  static const char* name(Field f);  // the name JavaScript reads the field by: "token", ..., "topkProbs"
};

// The layout for a model and a source of src_len tokens: query (Hd), context (Ho), scores and attention
// (src_len), logits (Vt), top-k ids and probabilities (kMaxTopk each, the first TopkCount used).
// with_state false: query, context and scores have no floats (an ensemble's own record: the members'
// states are in their records).
StepRecordLayout step_record_layout(const ModelConfig& c, int src_len, bool with_state = true);

// Writes the session's last step into rec (layout.size floats): its token, log p, done, forced and
// index, the weights shown and the scores the token was chosen by (Session::attention(), scores(): an
// ensemble's mean attention and mean log-probabilities), the min(topk, Vt) most probable next tokens
// with their probabilities, best first, and, when the layout has them, one model's query, context and
// scores. topk in [0, kMaxTopk]; idx holds kMaxTopk ints.
void write_step_record(const StepRecordLayout& layout, const Session& s, int topk, std::int32_t* idx, float* rec);

// Member m's own numbers of the session's last step into rec, in the layout of its model
// (step_record_layout(member config, src_len)): query, context, scores, attention and logits; the
// other fields are left as they are.
void write_member_record(const StepRecordLayout& layout, const Session& s, int m, float* rec);

}  // namespace attnseq
