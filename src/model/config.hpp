// The model's configuration: what a checkpoint's shapes and metadata say, in one struct.
// Every field has its default; limits that guard every public entry point live here too.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/enums.hpp"

namespace attnseq {

class SpmTokenizer;  // model/spm.hpp

// Documented limits: inputs beyond them are refused with a clear error instead of allocating.
constexpr int kMaxSourceLength = 1024;  // source tokens per encode
constexpr int kMaxTargetLength = 1024;  // target tokens per decode
constexpr int kMaxBeam = 64;            // beam width
// The largest integer a double (and so JavaScript's Number) holds exactly, 2^53 - 1: the bound of every
// integer that crosses into JavaScript (seeds, file offsets).
constexpr double kMaxExactInteger = 9007199254740991.0;
constexpr int kMaxRows = 1024;                   // decoder rows of one state (batch x beam)
constexpr int kDefaultBatchRows = 256;           // translate_batch's rows per group by default
constexpr std::size_t kMaxTextBytes = 1u << 20;  // bytes of user text per call
constexpr std::int64_t kMaxDim = 1 << 16;        // any single dimension of a model
// The largest |weight| a checkpoint may hold (2^50, about 1.1e15; a bias of -1e9 that forbids a token
// is well inside). With every dimension at most kMaxDim = 2^16 and activations in [-1, 1] after each
// tanh or sigmoid, the largest product of the forward pass (an embedding times W_ih, summed over E)
// stays below 2^50 * 2^50 * 2^16 = 2^116, far from float32's 2^128: no weights a file can carry make
// encode or step overflow.
constexpr double kMaxAbsWeight = 1125899906842624.0;
constexpr std::int64_t kMaxParams = std::int64_t(1) << 28;  // 1 GiB of F32 parameters

struct ModelConfig {
  Cell cell = Cell::GRU;       // recurrent cell of encoder and decoder
  Style style = Style::Luong;  // decoder style: luong (query s_k), bahdanau (query s_{k-1}), none
  Score score = Score::Dot;    // attention score function
  bool input_feeding = false;  // luong only: feed h~_{k-1} into the decoder input
  bool bidirectional = false;  // encoder reads both ways; outputs [h_fwd; h_bwd]
  bool bridge = false;         // s_0 = tanh(bridge(enc_final)) instead of enc_final
  // The output layer's weight is decoder.embedding.weight (Press & Wolf 2017): no decoder.out.weight,
  // and tgt_emb must equal dec_hidden. Checkpoint metadata tie_embeddings.
  bool tie_embeddings = false;
  int layers = 1;      // encoder layers = decoder layers
  int src_vocab = 0;   // Vs
  int tgt_vocab = 0;   // Vt
  int src_emb = 0;     // encoder embedding size
  int tgt_emb = 0;     // decoder embedding size
  int enc_hidden = 0;  // He, per direction
  int dec_hidden = 0;  // Hd
  int attn_dim = 0;    // A, additive score only
  // Additive score only: W_q s + b_q inside the tanh (tensor decoder.attention.query.bias, as
  // OpenNMT-py's "mlp" attention and the PyTorch tutorials have it). Read off the tensors.
  bool attn_query_bias = false;
  // How text becomes ids, per side (Ids: callers pass ids; then both sides are Ids). Checkpoint
  // metadata: src_tokenizer / tgt_tokenizer, and the older single `tokenizer` (README "Decisions").
  TokenizerKind src_tokenizer = TokenizerKind::Ids;
  TokenizerKind tgt_tokenizer = TokenizerKind::Ids;
  CaseFold src_case = CaseFold::Keep;  // source text is folded so before lookup (metadata src_case)
  // A character source reads each precomposed Hangul syllable as its two or three conjoining jamo
  // (Unicode's canonical decomposition, NFD: 국 -> ᄀ ᅮ ᆨ), as the SIGMORPHON task's baseline does
  // (metadata src_hangul: jamo; absent: syllables as they are). Char tokenizer only.
  bool src_jamo = false;
  std::vector<std::string> src_tokens;  // source vocabulary (empty for Ids)
  std::vector<std::string> tgt_tokens;  // target vocabulary (empty for Ids)
  // The SentencePiece model of a side whose tokenizer is Spm (its tokens are the model's pieces; the
  // checkpoint carries the .model bytes as tensor tokenizer.src / tokenizer.tgt), else null.
  std::shared_ptr<const SpmTokenizer> src_spm, tgt_spm;
  int pad = 0, bos = 1, eos = 2, unk = 3;                  // special ids, shared by both vocabularies
  std::vector<std::pair<std::string, std::string>> extra;  // free-form metadata: name, task, description, ...

  int enc_out() const { return bidirectional ? 2 * enc_hidden : enc_hidden; }  // He_out
  int gates() const { return cell == Cell::GRU ? 3 : 4; }
  // Size of the decoder RNN's first-layer input.
  int dec_input() const {
    if (style == Style::Bahdanau) return tgt_emb + enc_out();
    if (style == Style::Luong && input_feeding) return tgt_emb + dec_hidden;
    return tgt_emb;
  }
  bool has_attention() const { return style != Style::None; }
  bool has_text() const { return src_tokenizer != TokenizerKind::Ids; }  // both sides have vocabularies
  void set_tokenizer(TokenizerKind both) { src_tokenizer = tgt_tokenizer = both; }
  // Throws std::invalid_argument if the sizes cannot form a model (names the fields and values).
  void validate() const;

 private:
  void check_spm_side(const char* side, TokenizerKind kind, const SpmTokenizer* spm,
                      const std::vector<std::string>& tokens, int vocab, const char* embedding) const;
};

// Parameter tensor names and shapes a configuration implies, in canonical order.
struct ParamSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  // A matrix a quantised model holds as int8 (Model::quantize): the RNN, bridge, attention, combine
  // and output weights, multiplied in int8, and the embeddings, int8 in the file only (they are
  // looked up, and read as their dequantised floats). Biases and the additive score's v stay f32.
  bool int8 = false;
  std::int64_t numel() const;
};
std::vector<ParamSpec> param_specs(const ModelConfig& c);

}  // namespace attnseq
