// The model and training settings a user chooses, described once: the command line's flag and the
// JavaScript key, the default and the accepted range, and the parsing of the named choices. Used by
// `attnseq train` (src/cli/train.cpp) and createTrainer (wasm/bindings.cpp, which the page's training
// panel reaches through its worker), so the three cannot drift apart (tests/js/settings.test.mjs).
#pragma once
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "model/config.hpp"

namespace attnseq::train {

struct Setting {
  const char* cli;  // "--hidden"
  const char* js;   // "hidden": the key of createTrainer's options (or of its `model` object)
  double def;       // the default; unused when `same_as` names another setting
  double lo, hi;    // the accepted range, both ends included
  bool integer;
  const char* same_as;  // the default is this other setting's value ("--hidden"), or nullptr
};

// Model: --hidden, --embedding, --layers, --attn-dim. Training: --steps, --batch, --lr, --warmup,
// --clip, --seed.
const std::vector<Setting>& settings();
// The setting with this flag; std::logic_error for a flag that is not one (a programming error).
const Setting& setting(const std::string& cli);
// A number as the help and the messages print it ("64", "0.003", "1e-30", "9007199254740991").
using attnseq::number_text;  // src/core/errors.hpp
// The default as the help prints it ("64", "0.003"; "" when it is another setting's value).
std::string default_text(const Setting& s);

// The named choices, parsed in one place; `what` is the name the user wrote ("--style" or "'style'").
Style parse_style(const std::string& v, const std::string& what);
Score parse_score(const std::string& v, const std::string& what);
Cell parse_cell(const std::string& v, const std::string& what);
TokenizerKind parse_text_tokenizer(const std::string& v, const std::string& what);  // char or word

// A model's architecture as chosen (embedding and attn_dim 0: the hidden size).
struct ModelChoice {
  Style style = Style::Luong;
  Score score = Score::Dot;
  Cell cell = Cell::GRU;
  int hidden = 64, embedding = 0, layers = 1, attn_dim = 0;
  bool bidirectional = false, input_feeding = false, bridge = false, tie_embeddings = false;
  bool attn_query_bias = false;  // additive score: W_q s + b_q
};
// The configuration it implies: the decoder's hidden size, and the encoder's (half of it per
// direction for a bidirectional encoder without a bridge, which then needs an even size: else
// std::invalid_argument naming `hidden_name`). Vocabularies and tokenizers are the caller's.
ModelConfig architecture(const ModelChoice& m, const std::string& hidden_name);

}  // namespace attnseq::train
