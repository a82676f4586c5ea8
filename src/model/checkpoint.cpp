// Checkpoint load and save. Loading is in three passes: the container (safetensors::parse), the
// configuration (shapes first, metadata checked against them), then every tensor against the
// shapes that configuration implies, converted to F32 and checked for NaN/Inf (an I8 matrix is
// checked with its scales and kept as int8 beside its dequantised floats; saving writes it back).
#include "model/checkpoint.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>

#include "core/errors.hpp"
#include "model/json.hpp"
#include "model/safetensors.hpp"
#include "model/spm.hpp"

namespace attnseq {
namespace {

std::string shape_str(const std::vector<std::int64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

[[noreturn]] void fail(const std::string& msg) { throw BadCheckpoint("checkpoint: " + msg); }

const safetensors::TensorInfo& need(const safetensors::File& f, const std::string& name, std::size_t rank) {
  const auto* t = f.find(name);
  if (!t) fail("missing tensor '" + name + "'");
  if (t->shape.size() != rank)
    fail("tensor '" + name + "' has shape " + shape_str(t->shape) + ", expected " + std::to_string(rank) +
         " dimensions");
  for (auto d : t->shape)
    if (d < 1 || d > kMaxDim)
      fail("tensor '" + name + "' has shape " + shape_str(t->shape) + ": dimension out of range");
  return *t;
}

int count_layers(const safetensors::File& f, const std::string& prefix) {
  int n = 0;
  while (n < 64 && f.find(names::rnn(prefix.c_str(), "weight_hh", n))) ++n;
  return n;
}

// A tensor that decides the configuration (weight_hh_l{k}, ..._reverse, bridge.weight) may be missing
// while its siblings are present. Which one is wrong cannot be known, so the message names both.
void check_marker(const safetensors::File& f, bool present, const std::string& marker,
                  const std::function<bool(const std::string&)>& sibling) {
  if (present) return;
  for (const auto& t : f.tensors)
    if (sibling(t.name)) fail("missing tensor '" + marker + "' (or unexpected tensor '" + t.name + "')");
}

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool has_prefix(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool parse_bool(const std::string& key, const std::string& v) {
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  fail("metadata '" + key + "' is \"" + v + "\"; expected \"true\" or \"false\"");
}

int parse_id(const std::string& key, const std::string& v) {
  std::size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty() || x < 0 || x > std::numeric_limits<int>::max())
    fail("metadata '" + key + "' is \"" + v + "\"; expected a non-negative integer");
  return int(x);
}

std::vector<std::string> parse_vocab(const std::string& key, const std::string& v) {
  json::Value j;
  try {
    j = json::parse(v);
  } catch (const std::invalid_argument& e) {
    fail("metadata '" + key + "' is not valid JSON: " + e.what());
  }
  if (!j.is_array()) fail("metadata '" + key + "' must be a JSON array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < j.array.size(); ++i) {
    if (!j.array[i].is_string()) fail("metadata '" + key + "' entry " + std::to_string(i) + " is not a string");
    if (j.array[i].string.empty()) fail("metadata '" + key + "' entry " + std::to_string(i) + " is an empty string");
    out.push_back(j.array[i].string);
  }
  return out;
}

// A side's SentencePiece model: a U8 tensor holding the .model file's bytes.
std::shared_ptr<const SpmTokenizer> read_spm(const safetensors::File& f, const std::string& name) {
  const auto* t = f.find(name);
  if (!t) fail("missing tensor '" + name + "' (the SentencePiece model of a side whose tokenizer is spm)");
  if (t->dtype != safetensors::DType::U8 || t->shape.size() != 1)
    fail("tensor '" + name + "' is " + safetensors::dtype_name(t->dtype) + " " + shape_str(t->shape) +
         "; a tokenizer is U8 of one dimension (the .model file's bytes)");
  if (t->shape[0] < 1 || std::uint64_t(t->shape[0]) > kMaxTokenizerBytes)
    fail("tensor '" + name + "' holds " + std::to_string(t->shape[0]) + " bytes; a tokenizer holds 1 to " +
         std::to_string(kMaxTokenizerBytes));
  const std::string_view bytes = safetensors::read_u8(f, *t);
  return std::make_shared<const SpmTokenizer>(parse_spm_model(bytes, name), name, std::string(bytes));
}

// Tensors of a feature attnseq's models do not have, as a PyTorch model renamed to attnseq's names
// (docs/porting.md) may carry: refused naming the feature, before the shapes are read as some other
// configuration and the message speaks of a shape instead.
void refuse_foreign_features(const safetensors::File& f) {
  const bool combine = f.find(names::kCombine) != nullptr;
  for (const auto& t : f.tensors) {
    const std::string& n = t.name;
    if (has_prefix(n, "decoder.attention.") && !combine)
      fail("tensor '" + n +
           "' is attention, but the decoder has no combine layer ('decoder.combine.weight'): attnseq's attentive "
           "decoders read the output layer from h~ = tanh(W_c [c; s] + b_c); a decoder whose output layer reads the "
           "RNN's output (or [output; context]) directly, as the PyTorch tutorial's AttnDecoderRNN does, is not one "
           "attnseq runs (docs/porting.md)");
    if (n == "decoder.attention.key.bias")
      fail(
          "tensor 'decoder.attention.key.bias': a bias on the additive score's key projection adds inside the tanh "
          "as the query's does, so it belongs in 'decoder.attention.query.bias' (add the two; docs/porting.md)");
    if (n == "decoder.attention.v.bias")
      fail(
          "tensor 'decoder.attention.v.bias': a bias on v adds the same number to every score of a step and "
          "changes no attention weight; leave it out (docs/porting.md)");
    if (n == "decoder.attention.bias")
      fail(
          "tensor 'decoder.attention.bias': a bias on the general score's W_a adds <s, b> to every position's "
          "score alike and changes no attention weight; leave it out (docs/porting.md)");
    if (n == names::bias(names::kAttQuery) && !f.find(names::kAttQuery))
      fail(
          "tensor 'decoder.attention.query.bias' is the additive score's query bias, but the file has no "
          "'decoder.attention.query.weight'");
    if (n.find(".weight_hr_l") != std::string::npos)
      fail("tensor '" + n + "' is an LSTM's projection (PyTorch's proj_size), which attnseq's cells do not have");
    for (const char* side : {names::kEncRnn, names::kDecRnn}) {
      const std::string w = std::string(side) + "weight_ih_";
      if (!has_prefix(n, w)) continue;
      const std::string k = n.substr(w.size());  // l0, l1_reverse, ... (not an int8 matrix's l0.scale)
      if (k.size() < 2 || k[0] != 'l' || !(std::isdigit(static_cast<unsigned char>(k[1]))) ||
          k.find('.') != std::string::npos)
        continue;
      const std::string bi = side + std::string("bias_ih_") + k, bh = side + std::string("bias_hh_") + k;
      // (a stray weight_ih of a layer the file does not have is an unexpected tensor, named later)
      if (f.find(side + std::string("weight_hh_") + k) && !f.find(bi) && !f.find(bh))
        fail("tensor '" + n + "' has no biases ('" + bi + "' and '" + bh +
             "' are missing): an RNN made with bias=False is one whose biases are zero, so write zeros for both "
             "(docs/porting.md)");
    }
  }
  if (combine && !f.find(names::bias(names::kCombine)))
    fail(
        "missing tensor 'decoder.combine.bias': a combine layer without a bias (OpenNMT-py's dot and general "
        "attention have none) is one whose bias is zero, so write zeros (docs/porting.md)");
}

ModelConfig infer_config(const safetensors::File& f) {
  ModelConfig c;
  const std::string ehh_name = names::rnn(names::kEncRnn, "weight_hh", 0),
                    dhh_name = names::rnn(names::kDecRnn, "weight_hh", 0),
                    dih_name = names::rnn(names::kDecRnn, "weight_ih", 0),
                    reverse_name = names::rnn(names::kEncRnn, "weight_hh", 0, true);
  const auto& se = need(f, names::kEncEmb, 2);
  const auto& te = need(f, names::kDecEmb, 2);
  c.src_vocab = int(se.shape[0]);
  c.src_emb = int(se.shape[1]);
  c.tgt_vocab = int(te.shape[0]);
  c.tgt_emb = int(te.shape[1]);
  const auto& ehh = need(f, ehh_name, 2);
  const auto& dhh = need(f, dhh_name, 2);
  c.enc_hidden = int(ehh.shape[1]);
  c.dec_hidden = int(dhh.shape[1]);
  const std::int64_t eg = ehh.shape[0] / ehh.shape[1];
  if (ehh.shape[0] % ehh.shape[1] || (eg != 3 && eg != 4))
    fail("tensor '" + ehh_name + "' has shape " + shape_str(ehh.shape) +
         ": rows must be 3 (GRU) or 4 (LSTM) times the hidden size");
  if (dhh.shape[0] != eg * dhh.shape[1])
    fail("tensor '" + dhh_name + "' has shape " + shape_str(dhh.shape) + " but the encoder's cell has " +
         std::to_string(eg) + " gates: encoder and decoder must use the same cell");
  c.cell = eg == 3 ? Cell::GRU : Cell::LSTM;
  c.layers = count_layers(f, names::kEncRnn);
  const int dec_layers = count_layers(f, names::kDecRnn);
  for (const char* side : {names::kEncRnn, names::kDecRnn}) {
    const int n = count_layers(f, side);
    const std::string tag = "_l" + std::to_string(n);
    check_marker(f, false, names::rnn(side, "weight_hh", n), [&](const std::string& name) {
      return has_prefix(name, side) && (has_suffix(name, tag) || has_suffix(name, tag + "_reverse"));
    });
  }
  if (dec_layers != c.layers)
    fail("the decoder has " + std::to_string(dec_layers) + " layers and the encoder " + std::to_string(c.layers) +
         ": s_0 is taken layer by layer, so the counts must be equal");
  c.bidirectional = f.find(reverse_name) != nullptr;
  check_marker(f, c.bidirectional, reverse_name, [](const std::string& name) {
    return has_prefix(name, names::kEncRnn) && has_suffix(name, "_reverse");
  });
  c.bridge = f.find(names::kBridge) != nullptr;
  check_marker(f, c.bridge, names::kBridge, [](const std::string& name) { return has_prefix(name, "bridge."); });
  const bool has_combine = f.find(names::kCombine) != nullptr;
  if (f.find(names::kAttGeneral))
    c.score = Score::General;
  else if (f.find(names::kAttV))
    c.score = Score::Additive;
  else
    c.score = Score::Dot;
  if (c.score == Score::Additive) {
    c.attn_dim = int(need(f, names::kAttV, 2).shape[1]);
    c.attn_query_bias = f.find(names::bias(names::kAttQuery)) != nullptr;
  }

  // Style from the shapes where they decide it; the metadata settles luong vs bahdanau otherwise.
  const auto& dih = need(f, dih_name, 2);
  const std::int64_t din = dih.shape[1];
  const auto* meta_style = f.meta("style");
  if (!has_combine)
    c.style = Style::None;
  else if (din == c.tgt_emb)
    c.style = Style::Luong;
  else if (din == c.tgt_emb + c.enc_out() && din != c.tgt_emb + c.dec_hidden)
    c.style = Style::Bahdanau;
  else if (din == c.tgt_emb + c.dec_hidden && din != c.tgt_emb + c.enc_out())
    c.style = Style::Luong;
  else
    c.style = (meta_style && *meta_style == "bahdanau") ? Style::Bahdanau : Style::Luong;
  c.input_feeding = c.style == Style::Luong && din == c.tgt_emb + c.dec_hidden && din != c.tgt_emb;

  // Metadata: checked against what the shapes say.
  auto meta = [&](const char* k) { return f.meta(k); };
  if (const auto* s = meta("style")) {
    Style m{};
    if (!parse_name(*s, m))
      throw BadCheckpoint("checkpoint: metadata 'style' is \"" + *s + "\"; expected " + choices<Style>());
    if (m != c.style)
      fail(std::string("metadata says style ") + to_string(m) + " but the tensors describe " + to_string(c.style) +
           " (" + dih_name + " has " + std::to_string(din) + " columns, decoder.combine " +
           (has_combine ? "present" : "absent") + ")");
  }
  if (const auto* s = meta("cell")) {
    Cell m{};
    if (!parse_name(*s, m)) fail("metadata 'cell' is \"" + *s + "\"; expected " + choices<Cell>());
    if (*s != to_string(c.cell))
      fail("metadata says cell " + *s + " but " + ehh_name + " has " + std::to_string(eg) + " gates (" +
           to_string(c.cell) + ")");
  }
  if (const auto* s = meta("score"); s && c.style != Style::None) {
    Score m{};
    if (!parse_name(*s, m)) fail("metadata 'score' is \"" + *s + "\"; expected " + choices<Score>());
    if (*s != to_string(c.score))
      fail("metadata says score " + *s + " but the attention tensors describe " + to_string(c.score));
  }
  if (const auto* s = meta("input_feeding")) {
    const bool m = parse_bool("input_feeding", *s);
    if (m != c.input_feeding)
      fail(std::string("metadata says input_feeding ") + *s + " but " + dih_name + " has " + std::to_string(din) +
           " columns (embedding " + std::to_string(c.tgt_emb) + ", hidden " + std::to_string(c.dec_hidden) + ")");
  }
  if (const auto* s = meta("tie_embeddings")) {
    c.tie_embeddings = parse_bool("tie_embeddings", *s);
    if (c.tie_embeddings && f.find(names::kOut))
      fail(
          "metadata says tie_embeddings true, so decoder.out.weight is decoder.embedding.weight and must not be "
          "stored, but the file holds it");
  }
  if (const auto* s = meta("pad")) c.pad = parse_id("pad", *s);
  if (const auto* s = meta("bos")) c.bos = parse_id("bos", *s);
  if (const auto* s = meta("eos")) c.eos = parse_id("eos", *s);
  if (const auto* s = meta("unk")) c.unk = parse_id("unk", *s);
  // Tokenizers: src_tokenizer / tgt_tokenizer per side; a checkpoint from before them has only
  // `tokenizer`, which then covers both sides ("mixed" there says the sides differ).
  const auto* tok = meta("tokenizer");
  const auto* st = meta("src_tokenizer");
  const auto* tt = meta("tgt_tokenizer");
  const auto* sv = meta("src_vocab");
  const auto* tv = meta("tgt_vocab");
  auto kind = [&](const char* key, const std::string& v) {
    TokenizerKind k{};
    if (!parse_name(v, k))
      fail(std::string("metadata '") + key + "' is \"" + v + "\"; expected " + choices<TokenizerKind>());
    return k;
  };
  const bool mixed = tok && *tok == "mixed";
  if (mixed && (!st || !tt))
    fail(std::string("metadata 'tokenizer' is mixed but '") + (!st ? "src_tokenizer" : "tgt_tokenizer") +
         "' is missing");
  const TokenizerKind both = tok && !mixed ? kind("tokenizer", *tok) : TokenizerKind::Ids;
  c.src_tokenizer = st ? kind("src_tokenizer", *st) : both;
  c.tgt_tokenizer = tt ? kind("tgt_tokenizer", *tt) : both;
  if (tok && !mixed)
    for (auto [key, side] : {std::pair{"src_tokenizer", c.src_tokenizer}, std::pair{"tgt_tokenizer", c.tgt_tokenizer}})
      if (meta(key) && side != both)
        fail(std::string("metadata says tokenizer ") + *tok + " but " + key + " " + to_string(side) +
             " (a checkpoint whose sides differ says tokenizer mixed)");
  if (mixed && c.src_tokenizer == c.tgt_tokenizer)
    fail(std::string("metadata says tokenizer mixed but both sides are ") + to_string(c.src_tokenizer));
  if ((c.src_tokenizer == TokenizerKind::Ids) != (c.tgt_tokenizer == TokenizerKind::Ids))
    fail(std::string("metadata gives the source tokenizer ") + to_string(c.src_tokenizer) + " and the target's " +
         to_string(c.tgt_tokenizer) + ": either both sides have a vocabulary or neither (ids)");
  if (c.has_text()) {
    // A side's tokens come from its vocabulary list, or (spm) from its SentencePiece model's pieces.
    for (bool source : {true, false}) {
      const TokenizerKind k = source ? c.src_tokenizer : c.tgt_tokenizer;
      const char* list = source ? "src_vocab" : "tgt_vocab";
      const auto* v = source ? sv : tv;
      auto& tokens = source ? c.src_tokens : c.tgt_tokens;
      if (k != TokenizerKind::Spm) {
        if (!v)
          fail(std::string("metadata gives tokenizer ") + to_string(c.src_tokenizer) + " -> " +
               to_string(c.tgt_tokenizer) + " but " + list + " is missing");
        tokens = parse_vocab(list, *v);
        continue;
      }
      if (v) fail(std::string("metadata has ") + list + " but that side's tokenizer is spm, whose pieces are the list");
      auto spm = read_spm(f, source ? kSrcSpmTensor : kTgtSpmTensor);
      tokens = spm->piece_texts();
      (source ? c.src_spm : c.tgt_spm) = std::move(spm);
    }
  } else if (sv || tv) {
    fail("metadata has a vocabulary but no 'tokenizer' (char or word)");
  }
  if (const auto* s = meta("src_case")) {
    if (!parse_name(*s, c.src_case)) fail("metadata 'src_case' is \"" + *s + "\"; expected " + choices<CaseFold>());
    if (!c.has_text() && c.src_case != CaseFold::Keep)
      fail("metadata 'src_case' is " + *s + " but the model has no source tokenizer (ids)");
  }
  if (const auto* s = meta("src_hangul")) {
    if (*s == "jamo")
      c.src_jamo = true;
    else if (*s != "syllables")
      fail("metadata 'src_hangul' is \"" + *s + "\"; expected jamo or syllables");
  }
  static const char* known[] = {
      "style",     "score",     "input_feeding", "cell", "tokenizer", "src_tokenizer", "tgt_tokenizer",  "src_case",
      "src_vocab", "tgt_vocab", "pad",           "bos",  "eos",       "unk",           "tie_embeddings", "src_hangul"};
  for (const auto& kv : f.metadata) {
    bool k = false;
    for (const char* n : known) k = k || kv.first == n;
    if (!k) c.extra.push_back(kv);
  }
  c.validate();
  return c;
}

const std::string kScaleSuffix = ".scale";

// An I8 matrix and its F32 scales NAME.scale (one per row): both present, of the right dtypes and
// shapes, values in [-127, 127] and scales finite and >= 0, or the file is refused naming the tensor.
void read_q8(const safetensors::File& f, const ParamSpec& spec, Q8Matrix& m) {
  if (!spec.int8)
    fail("tensor '" + spec.name + "' is I8, but only the embeddings and the weight matrices of the RNNs, bridge, " +
         "attention, combine and output may be int8 (docs/checkpoint-format.md)");
  const std::string sname = spec.name + kScaleSuffix;
  const auto* st = f.find(sname);
  if (!st) fail("tensor '" + spec.name + "' is I8 but its scales '" + sname + "' are missing");
  const std::vector<std::int64_t> rows = {spec.shape[0]};
  if (st->dtype != safetensors::DType::F32)
    fail("scales '" + sname + "' of I8 tensor '" + spec.name + "' are " + safetensors::dtype_name(st->dtype) +
         "; expected F32");
  if (st->shape != rows)
    fail("scales '" + sname + "' have shape " + shape_str(st->shape) + ", expected " + shape_str(rows) +
         " (one per row of '" + spec.name + "')");
  const std::size_t M = std::size_t(spec.shape[0]), N = std::size_t(spec.shape[1]);
  m.q.resize(M * N);
  m.scale.resize(M);
  safetensors::read_i8(f, *f.find(spec.name), m.q.data());
  safetensors::read_f32(f, *st, m.scale.data());
  for (std::size_t k = 0; k < M * N; ++k)
    if (m.q[k] == -128)
      fail("tensor '" + spec.name + "' holds -128 at row " + std::to_string(k / N) + ", column " +
           std::to_string(k % N) + "; int8 weights are in [-127, 127]");
  for (std::size_t r = 0; r < M; ++r) {
    if (!std::isfinite(m.scale[r]) || m.scale[r] < 0.f)
      fail("scales '" + sname + "' hold " + number_text(m.scale[r]) + " at row " + std::to_string(r) +
           "; a scale must be finite and >= 0");
    // The row's weights q x scale must lie where an F32 tensor's must (load, below): a finite scale
    // can still make them overflow, or reach sizes that overflow the products.
    int big = 0;
    for (std::size_t n = 0; n < N; ++n) big = std::max(big, std::abs(int(m.q[r * N + n])));
    if (double(big) * double(m.scale[r]) > kMaxAbsWeight)
      fail("tensor '" + spec.name + "' row " + std::to_string(r) + ": its scale " + number_text(m.scale[r]) +
           " times its weight " + std::to_string(big) + " is " + number_text(double(big) * double(m.scale[r])) +
           ", beyond the largest weight a checkpoint may hold (2^50 = " + number_text(kMaxAbsWeight) + ")");
  }
}

Model load(const std::uint8_t* bytes, std::size_t size) {
  const safetensors::File f = safetensors::parse(bytes, size);
  refuse_foreign_features(f);
  ModelConfig c = infer_config(f);
  // Every expected tensor must be present with its exact shape before anything is allocated, so
  // the allocation is bounded by what the file really holds.
  const auto specs = param_specs(c);
  for (const auto& spec : specs) {
    const auto* t = f.find(spec.name);
    if (!t) fail("missing tensor '" + spec.name + "' (shape " + shape_str(spec.shape) + ")");
    if (t->shape != spec.shape)
      fail("tensor '" + spec.name + "' has shape " + shape_str(t->shape) + ", expected " + shape_str(spec.shape));
  }
  Params p(c);
  for (std::size_t i = 0; i < p.specs.size(); ++i) {
    const auto& spec = p.specs[i];
    float* dst = p.data.data() + p.offsets[i];
    const auto& t = *f.find(spec.name);
    if (t.dtype == safetensors::DType::I8) {
      if (p.q8.empty()) p.q8.resize(p.specs.size());
      read_q8(f, spec, p.q8[i]);
      const std::size_t M = std::size_t(spec.shape[0]), N = std::size_t(spec.shape[1]);
      const Q8Matrix& m = p.q8[i];
      for (std::size_t r = 0; r < M; ++r)
        for (std::size_t n = 0; n < N; ++n) dst[r * N + n] = float(m.q[r * N + n]) * m.scale[r];
      continue;
    }
    safetensors::read_f32(f, t, dst);
    for (std::int64_t k = 0; k < spec.numel(); ++k) {
      if (!std::isfinite(dst[k]))
        fail("tensor '" + spec.name + "' holds a non-finite value at index " + std::to_string(k));
      if (std::fabs(double(dst[k])) > kMaxAbsWeight)
        fail("tensor '" + spec.name + "' holds " + number_text(dst[k]) + " at index " + std::to_string(k) +
             ", beyond the largest weight a checkpoint may hold (2^50 = " + number_text(kMaxAbsWeight) + ")");
    }
  }
  for (const auto& t : f.tensors) {
    bool expected = false;
    for (const auto& s : p.specs) expected = expected || s.name == t.name;
    // NAME.scale belongs to an I8 tensor NAME (read_q8 has checked it); beside an F32 one it is stray.
    if (!expected && has_suffix(t.name, kScaleSuffix)) {
      const auto* owner = f.find(t.name.substr(0, t.name.size() - kScaleSuffix.size()));
      bool owner_is_param = false;
      for (const auto& s : p.specs) owner_is_param = owner_is_param || (owner && s.name == owner->name);
      if (owner_is_param && owner->dtype == safetensors::DType::I8) continue;
      if (owner_is_param)
        fail("unexpected tensor '" + t.name + "': '" + owner->name + "' is " + safetensors::dtype_name(owner->dtype) +
             ", not I8, so it has no scales");
    }
    if ((t.name == kSrcSpmTensor && c.src_spm) || (t.name == kTgtSpmTensor && c.tgt_spm)) continue;
    const bool ours = has_prefix(t.name, "encoder.") || has_prefix(t.name, "decoder.") ||
                      has_prefix(t.name, "bridge.") || has_prefix(t.name, "tokenizer.");
    if (!expected)
      fail("unexpected tensor '" + t.name + "' for a " + std::string(to_string(c.cell)) + " " + to_string(c.style) +
           " model" +
           (ours ? std::string()
                 : std::string(": not one of attnseq's tensor names (a model from elsewhere is renamed to them: "
                               "docs/porting.md)")));
  }
  return Model(std::move(c), std::move(p));
}

}  // namespace

Model load_checkpoint(const std::uint8_t* bytes, std::size_t size) {
  // The configuration's own checks (ModelConfig::validate, the parameter limit) report bad input; the
  // input here is the file, so they are a bad checkpoint.
  return reraise_input_errors_as(ErrorKind::BadCheckpoint, [&] { return load(bytes, size); });
}

namespace {
using FilePtr = std::unique_ptr<FILE, int (*)(FILE*)>;

FilePtr open_for_reading(const std::string& path) {
  FilePtr fp(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!fp) throw std::invalid_argument("cannot open '" + path + "': " + std::strerror(errno));
  return fp;
}

// Appends to out until it holds `total` bytes or the file ends.
void read_up_to(FILE* fp, const std::string& path, std::vector<std::uint8_t>& out, std::uint64_t total) {
  std::uint8_t buf[1 << 16];
  while (out.size() < total) {
    const std::size_t n = std::fread(buf, 1, std::size_t(std::min<std::uint64_t>(sizeof buf, total - out.size())), fp);
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  if (std::ferror(fp)) throw std::invalid_argument("cannot read '" + path + "': " + std::strerror(errno));
}
}  // namespace

std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  FilePtr fp = open_for_reading(path);
  std::vector<std::uint8_t> out;
  read_up_to(fp.get(), path, out, std::numeric_limits<std::uint64_t>::max());
  return out;
}

std::vector<std::uint8_t> read_checkpoint_bytes(const std::string& path) {
  FilePtr fp = open_for_reading(path);
  std::vector<std::uint8_t> out;
  read_up_to(fp.get(), path, out, 8);
  std::uint64_t n = 0;
  for (std::size_t i = out.size(); i-- > 0;) n = (n << 8) | out[i];
  // A length parse() refuses whatever follows: what has been read is enough for its message.
  if (out.size() < 8 || n == 0 || n > safetensors::kMaxHeaderBytes) return out;
  read_up_to(fp.get(), path, out, 8 + n);
  const std::uint64_t size = safetensors::declared_size(out.data(), out.size());
  if (size > kMaxCheckpointBytes)
    throw BadCheckpoint(path + ": safetensors: the header's data_offsets reach " + std::to_string(size) +
                        " bytes, more than the largest checkpoint (" + std::to_string(kMaxCheckpointBytes) +
                        " bytes: 2^28 parameters)");
  if (size > 0) read_up_to(fp.get(), path, out, size);
  return out;
}

Model load_checkpoint_file(const std::string& path) {
  const auto bytes = read_checkpoint_bytes(path);
  try {
    return load_checkpoint(bytes.data(), bytes.size());
  } catch (const std::invalid_argument& e) {
    raise_with_context(path + ": ", e);
  }
}

std::vector<std::uint8_t> save_checkpoint(const Model& model) {
  const auto& c = model.config();
  const auto& p = model.params();
  std::vector<safetensors::TensorOut> ts;
  for (std::size_t i = 0; i < p.specs.size(); ++i) {
    if (i < p.q8.size() && !p.q8[i].q.empty()) {  // int8: the integers and their scales (read_q8)
      ts.push_back({p.specs[i].name, p.specs[i].shape, nullptr, p.q8[i].q.data()});
      ts.push_back({p.specs[i].name + kScaleSuffix, {p.specs[i].shape[0]}, p.q8[i].scale.data()});
      continue;
    }
    ts.push_back({p.specs[i].name, p.specs[i].shape, p.data.data() + p.offsets[i]});
  }
  std::vector<std::pair<std::string, std::string>> m = {{"style", to_string(c.style)},
                                                        {"score", to_string(c.score)},
                                                        {"input_feeding", c.input_feeding ? "true" : "false"},
                                                        {"cell", to_string(c.cell)},
                                                        {"pad", std::to_string(c.pad)},
                                                        {"bos", std::to_string(c.bos)},
                                                        {"eos", std::to_string(c.eos)},
                                                        {"unk", std::to_string(c.unk)}};
  if (c.tie_embeddings) m.push_back({"tie_embeddings", "true"});
  if (c.has_text()) {
    // `tokenizer` is kept for readers from before per-side tokenizers; "mixed" makes them refuse a
    // model whose sides differ instead of tokenizing one side wrongly.
    m.push_back({"tokenizer", c.src_tokenizer == c.tgt_tokenizer ? to_string(c.src_tokenizer) : "mixed"});
    m.push_back({"src_tokenizer", to_string(c.src_tokenizer)});
    m.push_back({"tgt_tokenizer", to_string(c.tgt_tokenizer)});
    if (c.src_case != CaseFold::Keep) m.push_back({"src_case", to_string(c.src_case)});
    if (c.src_jamo) m.push_back({"src_hangul", "jamo"});
    auto arr = [](const std::vector<std::string>& v) {
      std::string s = "[";
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + json::quote(v[i]);
      return s + "]";
    };
    // A side's tokens: its SentencePiece model's bytes as a U8 tensor, or its vocabulary list.
    for (bool source : {true, false}) {
      const auto& spm = source ? c.src_spm : c.tgt_spm;
      if (spm)
        ts.push_back({source ? kSrcSpmTensor : kTgtSpmTensor,
                      {std::int64_t(spm->bytes().size())},
                      nullptr,
                      nullptr,
                      reinterpret_cast<const std::uint8_t*>(spm->bytes().data())});
      else
        m.push_back({source ? "src_vocab" : "tgt_vocab", arr(source ? c.src_tokens : c.tgt_tokens)});
    }
  }
  for (const auto& kv : c.extra) m.push_back(kv);
  return safetensors::write(ts, m);
}

void save_checkpoint_file(const Model& model, const std::string& path) {
  const auto bytes = save_checkpoint(model);
  std::unique_ptr<FILE, int (*)(FILE*)> fp(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!fp || std::fwrite(bytes.data(), 1, bytes.size(), fp.get()) != bytes.size())
    throw std::invalid_argument("cannot write '" + path + "'");
}

}  // namespace attnseq
