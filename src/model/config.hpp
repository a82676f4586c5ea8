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

// ---- The tensor table: every tensor's name, shape and binding, written once. -------------------
// param_specs lists a configuration's tensors in canonical order; the checkpoint reader and writer,
// Model's binding and training's workspace all read it (adding a tensor edits param_specs and, if it
// binds somewhere new, Slot and Tensors below).

// The names, for code that looks a tensor up before a configuration exists (the checkpoint reader).
namespace names {
inline constexpr const char* kEncEmb = "encoder.embedding.weight";
inline constexpr const char* kDecEmb = "decoder.embedding.weight";
inline constexpr const char* kBridge = "bridge.weight";
inline constexpr const char* kAttGeneral = "decoder.attention.weight";
inline constexpr const char* kAttQuery = "decoder.attention.query.weight";
inline constexpr const char* kAttKey = "decoder.attention.key.weight";
inline constexpr const char* kAttV = "decoder.attention.v.weight";
inline constexpr const char* kCombine = "decoder.combine.weight";
inline constexpr const char* kOut = "decoder.out.weight";
inline constexpr const char* kEncRnn = "encoder.rnn.";  // + part + _l{layer}[_reverse]
inline constexpr const char* kDecRnn = "decoder.rnn.";
// A Linear's bias, named as PyTorch names it: its weight's name with "bias" for "weight"
// (bias(kCombine) is "decoder.combine.bias").
std::string bias(const char* weight);
// An RNN tensor's name: side kEncRnn or kDecRnn, part weight_ih, weight_hh, bias_ih or bias_hh.
std::string rnn(const char* side, const char* part, int layer, bool reverse = false);
}  // namespace names

// Where a tensor binds: a field of Tensors, or (Rnn*) a part of one recurrent layer's.
enum class Slot : std::uint8_t {
  EncEmb,
  DecEmb,
  Bridge,
  BridgeBias,
  AttGeneral,
  AttQuery,
  AttQueryBias,
  AttKey,
  AttV,
  Combine,
  CombineBias,
  Out,
  OutBias,
  RnnWih,
  RnnWhh,
  RnnBih,
  RnnBhh
};

// One recurrent layer's four tensors, and every tensor of a model, as P (a weight's `const float*`, or
// a gradient's `float*` at the same offsets): what bind_tensors fills from the table.
template <class P>
struct RnnTensors {
  P w_ih{}, w_hh{}, b_ih{}, b_hh{};
};
template <class P>
struct Tensors {
  P enc_emb{}, dec_emb{}, bridge{}, bridge_bias{}, att_general{}, att_query{}, att_query_bias{}, att_key{}, att_v{};
  P combine{}, combine_bias{}, out{}, out_bias{};  // out: dec_emb when the embeddings are tied
  std::vector<RnnTensors<P>> enc_rnn;              // [layer * dirs + direction]
  std::vector<RnnTensors<P>> dec_rnn;              // [layer]
};

// Parameter tensor names and shapes a configuration implies, in canonical order.
struct ParamSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  // A matrix a quantised model holds as int8 (Model::quantize): the RNN, bridge, attention, combine
  // and output weights, multiplied in int8, and the embeddings, int8 in the file only (they are
  // looked up, and read as their dequantised floats). Biases and the additive score's v stay f32.
  bool int8 = false;
  Slot slot = Slot::EncEmb;
  bool decoder = false;  // Rnn* slots: the decoder's layers (else the encoder's)
  int rnn = 0;           // Rnn* slots: the index in Tensors::enc_rnn or dec_rnn
  std::int64_t numel() const;
};
std::vector<ParamSpec> param_specs(const ModelConfig& c);

// Every tensor's address: base + offsets[i] for specs[i] (specs = param_specs(c), as Params holds them).
template <class P>
Tensors<P> bind_tensors(const ModelConfig& c, const std::vector<ParamSpec>& specs,
                        const std::vector<std::size_t>& offsets, P base) {
  Tensors<P> t;
  t.enc_rnn.resize(std::size_t(c.layers) * (c.bidirectional ? 2 : 1));
  t.dec_rnn.resize(std::size_t(c.layers));
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ParamSpec& s = specs[i];
    const P at = base + offsets[i];
    RnnTensors<P>& r = (s.decoder ? t.dec_rnn : t.enc_rnn)[std::size_t(s.rnn)];
    switch (s.slot) {
      case Slot::EncEmb: t.enc_emb = at; break;
      case Slot::DecEmb: t.dec_emb = at; break;
      case Slot::Bridge: t.bridge = at; break;
      case Slot::BridgeBias: t.bridge_bias = at; break;
      case Slot::AttGeneral: t.att_general = at; break;
      case Slot::AttQuery: t.att_query = at; break;
      case Slot::AttQueryBias: t.att_query_bias = at; break;
      case Slot::AttKey: t.att_key = at; break;
      case Slot::AttV: t.att_v = at; break;
      case Slot::Combine: t.combine = at; break;
      case Slot::CombineBias: t.combine_bias = at; break;
      case Slot::Out: t.out = at; break;
      case Slot::OutBias: t.out_bias = at; break;
      case Slot::RnnWih: r.w_ih = at; break;
      case Slot::RnnWhh: r.w_hh = at; break;
      case Slot::RnnBih: r.b_ih = at; break;
      case Slot::RnnBhh: r.b_hh = at; break;
    }
  }
  if (c.tie_embeddings) t.out = t.dec_emb;  // tied: the output layer's weight (and gradient) is the embedding's
  return t;
}

}  // namespace attnseq
