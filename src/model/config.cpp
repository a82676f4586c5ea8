// Configuration strings, sanity checks and the list of parameters a configuration implies
// (PyTorch names, docs/checkpoint-format.md).
#include "model/config.hpp"

#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "model/spm.hpp"

namespace attnseq {

std::int64_t ParamSpec::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

namespace {
void check_dim(const char* what, std::int64_t v, std::int64_t lo = 1) {
  if (v < lo || v > kMaxDim)
    throw std::invalid_argument(std::string("model config: ") + what + " = " + std::to_string(v) + " is outside [" +
                                std::to_string(lo) + ", " + std::to_string(kMaxDim) + "]");
}
}  // namespace

void ModelConfig::check_spm_side(const char* side, TokenizerKind kind, const SpmTokenizer* spm,
                                 const std::vector<std::string>& tokens, int vocab, const char* embedding) const {
  const std::string at = std::string("model config: the ") + side + " tokenizer";
  if ((kind == TokenizerKind::Spm) != (spm != nullptr))
    throw std::invalid_argument(at + (spm ? " has a SentencePiece model but is " + std::string(to_string(kind))
                                          : " is spm but has no SentencePiece model"));
  if (!spm) return;
  if (spm->size() != vocab)
    throw std::invalid_argument(at + "'s SentencePiece model has " + std::to_string(spm->size()) + " pieces but " +
                                embedding + " has " + std::to_string(vocab) + " rows");
  if (int(tokens.size()) != vocab)
    throw std::invalid_argument(at + " lists " + std::to_string(tokens.size()) + " tokens for " +
                                std::to_string(vocab) + " pieces");
  // The model's special ids must be the tokenizer's: encoding never yields pad, bos or eos (control
  // pieces), and its unknown piece is the model's unk.
  const auto type = [&](int id) { return spm->model().pieces[std::size_t(id)].type; };
  if (type(unk) != SpmPieceType::Unknown)
    throw std::invalid_argument(at + "'s piece " + std::to_string(unk) + " ('" + tokens[std::size_t(unk)] +
                                "') is not its unknown piece, but the model's unk id is " + std::to_string(unk));
  for (auto [name, id] : {std::pair{"pad", pad}, std::pair{"bos", bos}, std::pair{"eos", eos}})
    if (type(id) != SpmPieceType::Control)
      throw std::invalid_argument(at + "'s piece " + std::to_string(id) + " ('" + tokens[std::size_t(id)] +
                                  "') is not a control piece, but it is the model's " + name + " id");
}

void ModelConfig::validate() const {
  check_dim("src_vocab", src_vocab, 4);
  check_dim("tgt_vocab", tgt_vocab, 4);
  check_dim("src_emb", src_emb);
  check_dim("tgt_emb", tgt_emb);
  check_dim("enc_hidden", enc_hidden);
  check_dim("dec_hidden", dec_hidden);
  check_dim("layers", layers);
  if (layers > 16) throw std::invalid_argument("model config: layers = " + std::to_string(layers) + " exceeds 16");
  if (score == Score::Additive && style != Style::None) check_dim("attn_dim", attn_dim);
  if (attn_query_bias && (score != Score::Additive || style == Style::None))
    throw std::invalid_argument("model config: a bias on the attention's query projection needs the additive score");
  if (!bridge && enc_out() != dec_hidden)
    throw std::invalid_argument("model config: without a bridge the encoder's output size (" +
                                std::to_string(enc_out()) + ") must equal the decoder's hidden size (" +
                                std::to_string(dec_hidden) + ")");
  if (style != Style::None && score == Score::Dot && enc_out() != dec_hidden)
    throw std::invalid_argument("model config: dot score needs encoder output size (" + std::to_string(enc_out()) +
                                ") == decoder hidden size (" + std::to_string(dec_hidden) + ")");
  if (tie_embeddings && tgt_emb != dec_hidden)
    throw std::invalid_argument("model config: tied embeddings need the target embedding size (" +
                                std::to_string(tgt_emb) + ") to equal the decoder's hidden size (" +
                                std::to_string(dec_hidden) + "), which the output layer maps from");
  if (input_feeding && style != Style::Luong)
    throw std::invalid_argument(std::string("model config: input_feeding applies to style luong only, not ") +
                                to_string(style));
  for (int id : {pad, bos, eos, unk})
    if (id < 0 || id >= src_vocab || id >= tgt_vocab)
      throw std::invalid_argument("model config: special token id " + std::to_string(id) +
                                  " is outside the vocabularies (source " + std::to_string(src_vocab) + ", target " +
                                  std::to_string(tgt_vocab) + ")");
  if ((src_tokenizer == TokenizerKind::Ids) != (tgt_tokenizer == TokenizerKind::Ids))
    throw std::invalid_argument(std::string("model config: the source tokenizer is ") + to_string(src_tokenizer) +
                                " and the target's " + to_string(tgt_tokenizer) +
                                ": either both sides have a vocabulary or neither (ids)");
  if (src_jamo && src_tokenizer != TokenizerKind::Char)
    throw std::invalid_argument(std::string("model config: src_hangul jamo needs the char source tokenizer, not ") +
                                to_string(src_tokenizer));
  if (src_case != CaseFold::Keep && src_tokenizer == TokenizerKind::Ids)
    throw std::invalid_argument(std::string("model config: src_case ") + to_string(src_case) +
                                " needs a source tokenizer (char or word), not ids");
  if (has_text()) {
    if (int(src_tokens.size()) != src_vocab)
      throw std::invalid_argument("model config: src_vocab lists " + std::to_string(src_tokens.size()) +
                                  " tokens but encoder.embedding.weight has " + std::to_string(src_vocab) + " rows");
    if (int(tgt_tokens.size()) != tgt_vocab)
      throw std::invalid_argument("model config: tgt_vocab lists " + std::to_string(tgt_tokens.size()) +
                                  " tokens but decoder.embedding.weight has " + std::to_string(tgt_vocab) + " rows");
  }
  check_spm_side("source", src_tokenizer, src_spm.get(), src_tokens, src_vocab, names::kEncEmb);
  check_spm_side("target", tgt_tokenizer, tgt_spm.get(), tgt_tokens, tgt_vocab, names::kDecEmb);
  std::int64_t total = 0;
  for (const auto& p : param_specs(*this)) total += p.numel();
  if (total > kMaxParams)
    throw std::invalid_argument("model config: " + std::to_string(total) + " parameters exceed the limit of " +
                                std::to_string(kMaxParams));
}

std::string names::bias(const char* weight) {
  const std::string w = weight;
  return w.substr(0, w.size() - std::strlen("weight")) + "bias";
}

std::string names::rnn(const char* side, const char* part, int layer, bool reverse) {
  return std::string(side) + part + "_l" + std::to_string(layer) + (reverse ? "_reverse" : "");
}

std::vector<ParamSpec> param_specs(const ModelConfig& c) {
  using S = std::vector<std::int64_t>;
  std::vector<ParamSpec> p;
  const std::int64_t G = c.gates(), He = c.enc_hidden, Hd = c.dec_hidden, Ho = c.enc_out();
  auto rnn = [&](bool decoder, int index, int layer, bool reverse, std::int64_t rows, std::int64_t in,
                 std::int64_t hidden) {
    const char* side = decoder ? names::kDecRnn : names::kEncRnn;
    p.push_back({names::rnn(side, "weight_ih", layer, reverse), S{rows, in}, true, Slot::RnnWih, decoder, index});
    p.push_back({names::rnn(side, "weight_hh", layer, reverse), S{rows, hidden}, true, Slot::RnnWhh, decoder, index});
    p.push_back({names::rnn(side, "bias_ih", layer, reverse), S{rows}, false, Slot::RnnBih, decoder, index});
    p.push_back({names::rnn(side, "bias_hh", layer, reverse), S{rows}, false, Slot::RnnBhh, decoder, index});
  };
  const int dirs = c.bidirectional ? 2 : 1;
  p.push_back({names::kEncEmb, S{c.src_vocab, c.src_emb}, true, Slot::EncEmb});
  for (int l = 0; l < c.layers; ++l)
    for (int d = 0; d < dirs; ++d) rnn(false, l * dirs + d, l, d == 1, G * He, l == 0 ? c.src_emb : Ho, He);
  if (c.bridge) {
    p.push_back({names::kBridge, S{Hd, Ho}, true, Slot::Bridge});
    p.push_back({names::bias(names::kBridge), S{Hd}, false, Slot::BridgeBias});
  }
  p.push_back({names::kDecEmb, S{c.tgt_vocab, c.tgt_emb}, true, Slot::DecEmb});
  for (int l = 0; l < c.layers; ++l) rnn(true, l, l, false, G * Hd, l == 0 ? c.dec_input() : Hd, Hd);
  if (c.style != Style::None) {
    if (c.score == Score::General) p.push_back({names::kAttGeneral, S{Hd, Ho}, true, Slot::AttGeneral});
    if (c.score == Score::Additive) {
      p.push_back({names::kAttQuery, S{c.attn_dim, Hd}, true, Slot::AttQuery});
      if (c.attn_query_bias) p.push_back({names::bias(names::kAttQuery), S{c.attn_dim}, false, Slot::AttQueryBias});
      p.push_back({names::kAttKey, S{c.attn_dim, Ho}, true, Slot::AttKey});
      p.push_back({names::kAttV, S{1, c.attn_dim}, false, Slot::AttV});
    }
    p.push_back({names::kCombine, S{Hd, Ho + Hd}, true, Slot::Combine});
    p.push_back({names::bias(names::kCombine), S{Hd}, false, Slot::CombineBias});
  }
  if (!c.tie_embeddings) p.push_back({names::kOut, S{c.tgt_vocab, Hd}, true, Slot::Out});
  p.push_back({names::bias(names::kOut), S{c.tgt_vocab}, false, Slot::OutBias});
  return p;
}

}  // namespace attnseq
