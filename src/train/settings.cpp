// The settings table and the named-choice parsers of settings.hpp.
#include "train/settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "model/config.hpp"

namespace attnseq::train {

const std::vector<Setting>& settings() {
  static const std::vector<Setting> t = {
      {"--hidden", "hidden", 64, 1, 4096, true, nullptr},
      {"--embedding", "embedding", 0, 1, 4096, true, "--hidden"},
      {"--layers", "layers", 1, 1, 8, true, nullptr},
      {"--attn-dim", "attentionSize", 0, 1, 4096, true, "--hidden"},
      {"--steps", "steps", 3000, 1, 10000000, true, nullptr},
      {"--batch", "batchSize", 32, 1, 4096, true, nullptr},
      {"--lr", "lr", 0.003, 1e-30, 1, false, nullptr},  // > 0; tests train with 1e-20 to see no progress
      {"--warmup", "warmup", 100, 0, 10000000, true, nullptr},
      {"--clip", "clip", 1, 0, 1000000, false, nullptr},
      {"--seed", "seed", 1, 0, kMaxExactInteger, true, nullptr},  // exact in JavaScript
  };
  return t;
}

const Setting& setting(const std::string& cli) {
  for (const auto& s : settings())
    if (cli == s.cli) return s;
  throw std::logic_error("no setting " + cli);
}

std::string default_text(const Setting& s) { return s.same_as ? "" : number_text(s.def); }

namespace {
// The enum's value named `v`, or an error that lists the names (model/config.cpp's tables).
template <class E>
E parse_choice(const std::string& v, const std::string& what) {
  E e{};
  if (!parse_name(v, e)) throw std::invalid_argument(what + " is " + choices<E>() + ", not \"" + v + "\"");
  return e;
}
}  // namespace

Style parse_style(const std::string& v, const std::string& what) { return parse_choice<Style>(v, what); }
Score parse_score(const std::string& v, const std::string& what) { return parse_choice<Score>(v, what); }
Cell parse_cell(const std::string& v, const std::string& what) { return parse_choice<Cell>(v, what); }

TokenizerKind parse_text_tokenizer(const std::string& v, const std::string& what) {
  // A text tokenizer, one of two of the table's: char or word (spm comes with its own model; ids is none).
  TokenizerKind k{};
  if (!parse_name(v, k) || (k != TokenizerKind::Char && k != TokenizerKind::Word))
    throw std::invalid_argument(what + " is " + to_string(TokenizerKind::Char) + " or " +
                                to_string(TokenizerKind::Word) + ", not \"" + v + "\"");
  return k;
}

ModelConfig architecture(const ModelChoice& m, const std::string& hidden_name) {
  ModelConfig c;
  c.style = m.style;
  c.score = m.score;
  c.cell = m.cell;
  c.bidirectional = m.bidirectional;
  c.input_feeding = m.input_feeding;
  c.bridge = m.bridge;
  c.tie_embeddings = m.tie_embeddings;
  c.attn_query_bias = m.attn_query_bias;
  if (m.bidirectional && !m.bridge && m.hidden % 2)
    throw std::invalid_argument(hidden_name + " must be even for a bidirectional encoder without a bridge");
  c.dec_hidden = m.hidden;
  c.enc_hidden = m.bidirectional && !m.bridge ? m.hidden / 2 : m.hidden;
  c.src_emb = c.tgt_emb = m.embedding ? m.embedding : m.hidden;
  c.layers = m.layers;
  c.attn_dim = m.attn_dim ? m.attn_dim : m.hidden;
  return c;
}

}  // namespace attnseq::train
