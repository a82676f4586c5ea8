// Model-level checkpoint tests (src/model/checkpoint.hpp). Valid files come from save_checkpoint of
// small random models; bad ones are crafted by editing a parsed copy (a Draft) and writing it back
// with safetensors::write, or by hand for F16/BF16 and absurd headers. Every refusal must be a
// std::invalid_argument naming the tensor and the numbers, and leave nothing behind that changes
// the next load. The container's own checks (offsets, dtypes, JSON) are test_safetensors.cpp's.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/json.hpp"
#include "model/safetensors.hpp"
#include "model/vocab.hpp"
#include "test_util.hpp"

using namespace attnseq;
namespace st = attnseq::safetensors;
using Bytes = std::vector<std::uint8_t>;

namespace {

// ---- crafting files ----------------------------------------------------------------------------

struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> data;  // numel(shape) values
};

std::size_t numel(const std::vector<std::int64_t>& shape) {
  std::size_t n = 1;
  for (auto d : shape) n *= std::size_t(d);
  return n;
}

// An editable copy of a checkpoint: tensors in file order, metadata in file order.
struct Draft {
  std::vector<Tensor> tensors;
  std::vector<std::pair<std::string, std::string>> meta;
  bool with_metadata = true;

  Tensor& at(const std::string& name) {
    for (auto& t : tensors)
      if (t.name == name) return t;
    FAIL("draft has no tensor " << name);
    throw std::logic_error("unreachable");
  }
  bool has(const std::string& name) const {
    for (const auto& t : tensors)
      if (t.name == name) return true;
    return false;
  }
  void erase(const std::string& name) {
    REQUIRE(has(name));
    for (auto it = tensors.begin(); it != tensors.end(); ++it)
      if (it->name == name) {
        tensors.erase(it);
        return;
      }
  }
  void add(const std::string& name, std::vector<std::int64_t> shape, float value = 0.125f) {
    tensors.push_back({name, shape, std::vector<float>(numel(shape), value)});
  }
  void reshape(const std::string& name, std::vector<std::int64_t> shape) {
    Tensor& t = at(name);
    t.shape = shape;
    t.data.assign(numel(shape), 0.125f);
  }
  void set_meta(const std::string& k, const std::string& v) {
    for (auto& kv : meta)
      if (kv.first == k) {
        kv.second = v;
        return;
      }
    meta.emplace_back(k, v);
  }
  void erase_meta(const std::string& k) {
    for (auto it = meta.begin(); it != meta.end(); ++it)
      if (it->first == k) {
        meta.erase(it);
        return;
      }
  }
  Bytes bytes() const {
    std::vector<st::TensorOut> out;
    for (const auto& t : tensors) out.push_back({t.name, t.shape, t.data.data()});
    return st::write(out, with_metadata ? meta : decltype(meta){}, with_metadata);
  }
};

Draft draft_of(const Bytes& b) {
  const st::File f = st::parse(b.data(), b.size());
  Draft d;
  d.with_metadata = f.has_metadata;
  d.meta = f.metadata;
  for (const auto& t : f.tensors) {
    Tensor x{t.name, t.shape, std::vector<float>(t.numel())};
    st::read_f32(f, t, x.data.data());
    d.tensors.push_back(std::move(x));
  }
  return d;
}

// 8-byte little-endian length + header + data, as given (no padding).
Bytes raw_file(const std::string& header, const Bytes& data) {
  Bytes out(8);
  for (int i = 0; i < 8; ++i) out[i] = std::uint8_t(std::uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::string shape_json(const std::vector<std::int64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// ---- F16 / BF16 by hand ----------------------------------------------------------------------------
// Rounding is done in float arithmetic (independent of the loader's bit twiddling): x is rounded to
// nearest-even at the format's last place, and the rounded value, exactly representable, is encoded.

float round_to(float x, int fraction_bits, int min_exp) {
  if (x == 0.f || !std::isfinite(x)) return x;
  int e = 0;
  std::frexp(x, &e);                                                         // |x| in [2^(e-1), 2^e)
  const int lsb = std::max(e - 1 - fraction_bits, min_exp - fraction_bits);  // subnormals: fixed last place
  return float(std::ldexp(std::nearbyint(std::ldexp(double(x), -lsb)), lsb));
}
float round_f16(float x) { return round_to(x, 10, -14); }
float round_bf16(float x) { return round_to(x, 7, -126); }

std::uint16_t f16_bits(float r) {  // r exactly representable as a half
  const std::uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  const float a = std::fabs(r);
  if (std::isnan(r)) return 0x7E00;
  if (std::isinf(r)) return std::uint16_t(sign | 0x7C00);
  if (a == 0.f) return sign;
  int e = 0;
  std::frexp(a, &e);
  const int E = e - 1;
  if (E < -14) return std::uint16_t(sign | std::uint16_t(std::ldexp(a, 24)));  // subnormal: a = m 2^-24
  const auto mant = std::uint16_t(std::ldexp(a, -E) * 1024.f - 1024.f);
  return std::uint16_t(sign | ((E + 15) << 10) | mant);
}

std::uint16_t bf16_bits(float r) {  // r exactly representable as a bfloat16
  std::uint32_t u;
  std::memcpy(&u, &r, 4);
  return std::uint16_t(u >> 16);
}

enum class Dt { F32, F16, BF16 };

// Writes d with tensor i stored as dtype_of(i) (values rounded); *rounded gets the same file in F32
// holding exactly the values the loader must produce.
Bytes write_mixed(const Draft& d, const std::function<Dt(std::size_t)>& dtype_of, Draft* rounded) {
  *rounded = d;
  std::string header = "{";
  if (d.with_metadata) {
    header += "\"__metadata__\":{";
    for (std::size_t i = 0; i < d.meta.size(); ++i)
      header += (i ? "," : "") + json::quote(d.meta[i].first) + ":" + json::quote(d.meta[i].second);
    header += "}";
  }
  Bytes data;
  for (std::size_t i = 0; i < d.tensors.size(); ++i) {
    const Tensor& t = d.tensors[i];
    const Dt dt = dtype_of(i);
    const std::size_t begin = data.size();
    for (std::size_t k = 0; k < t.data.size(); ++k) {
      float& r = rounded->tensors[i].data[k];
      if (dt == Dt::F32) {
        std::uint8_t b[4];
        std::memcpy(b, &r, 4);
        data.insert(data.end(), b, b + 4);
        continue;
      }
      r = dt == Dt::F16 ? round_f16(t.data[k]) : round_bf16(t.data[k]);
      const std::uint16_t h = dt == Dt::F16 ? f16_bits(r) : bf16_bits(r);
      data.push_back(std::uint8_t(h & 0xFF));
      data.push_back(std::uint8_t(h >> 8));
    }
    if (header.size() > 1) header += ",";
    header += json::quote(t.name) + ":{\"dtype\":\"" +
              (dt == Dt::F32   ? "F32"
               : dt == Dt::F16 ? "F16"
                               : "BF16") +
              "\",\"shape\":" + shape_json(t.shape) + ",\"data_offsets\":[" + std::to_string(begin) + "," +
              std::to_string(data.size()) + "]}";
  }
  header += "}";
  return raw_file(header, data);
}

// ---- models ----------------------------------------------------------------------------------------

Model random_model(const ModelConfig& c, unsigned seed) {
  Model m(c);
  test::randomize(m, seed);
  return m;
}

ModelConfig char_config() {
  ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::General);
  c.set_tokenizer(TokenizerKind::Char);
  c.src_tokens = {"<pad>", "<s>", "</s>", "<unk>"};
  for (char ch = 'a'; c.src_tokens.size() < std::size_t(c.src_vocab); ++ch) c.src_tokens.push_back(std::string(1, ch));
  c.tgt_tokens = {"<pad>", "<s>", "</s>", "<unk>", "제", "인", "이", " ", "가", "게",
                  "에",    "갔",  "다",   "😀",     "\"", "\\", "x",  "y", "z"};
  c.extra = {{"name", "char toy"}, {"task", "copy"}, {"description", "tabs\tand \"quotes\""}};
  return c;
}

// The reference valid file every error test reloads afterwards ("no state survives a failed load").
const Bytes& reference_file() {
  static const Bytes b = save_checkpoint(random_model(char_config(), 7));
  return b;
}

// ---- what a load produces ------------------------------------------------------------------------

// The message of the std::invalid_argument load_checkpoint throws, or "<loaded>". Any other
// exception escapes and fails the test.
std::string load_error(const Bytes& b, std::size_t size) {
  try {
    Model m = load_checkpoint(b.data(), size);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<loaded>";
}
std::string load_error(const Bytes& b) { return load_error(b, b.size()); }

void check_reference_still_loads() {
  const Bytes& ref = reference_file();
  Model m = load_checkpoint(ref.data(), ref.size());
  CHECK(save_checkpoint(m) == ref);
}

// b must be refused with a message containing every part; then a valid file must still load.
void check_refused(const Bytes& b, std::initializer_list<std::string> parts) {
  const std::string msg = load_error(b);
  INFO("message: " << msg);
  CHECK(msg != "<loaded>");
  for (const auto& p : parts) CHECK_MESSAGE(msg.find(p) != std::string::npos, "missing \"" << p << "\"");
  check_reference_still_loads();
}

struct Trace {
  std::vector<std::int32_t> greedy;
  std::vector<float> greedy_attention;
  std::vector<std::int32_t> beam;  // best beam-3 hypothesis
  std::vector<float> beam_scores;
  std::vector<float> logits;   // forced steps, every logit
  std::vector<float> weights;  // forced steps, attention weights
  std::vector<float> scores;   // forced steps, raw scores
};

Trace trace(const Model& m, const std::vector<std::int32_t>& src) {
  Trace t;
  Encoded enc;
  m.encode(src.data(), int(src.size()), enc);
  DecodeOptions o;
  o.max_length = 8;
  const DecodeResult g = decode(m, enc, o);
  t.greedy = g.hypotheses[0].tokens;
  t.greedy_attention = g.hypotheses[0].attention;
  o.beam = 3;
  const DecodeResult b = decode(m, enc, o);
  t.beam = b.hypotheses[0].tokens;
  for (const auto& h : b.hypotheses) t.beam_scores.push_back(h.score);
  // Forced tokens: every step runs whatever the model prefers (EOS included).
  DecodeOptions f;
  f.max_length = 6;
  Session s(m, enc, f);
  const int V = m.config().tgt_vocab, T = enc.T;
  for (int k = 0; k < 6; ++k) {
    s.step((5 + 3 * k) % V);
    const auto& stt = s.state();
    t.logits.insert(t.logits.end(), stt.logits.begin(), stt.logits.begin() + V);
    if (m.config().has_attention()) {
      t.weights.insert(t.weights.end(), stt.attention.begin(), stt.attention.begin() + T);
      t.scores.insert(t.scores.end(), stt.scores.begin(), stt.scores.begin() + T);
    }
  }
  return t;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

void check_identical(const Trace& a, const Trace& b) {
  CHECK(a.greedy == b.greedy);
  CHECK(same_bits(a.greedy_attention, b.greedy_attention));
  CHECK(a.beam == b.beam);
  CHECK(same_bits(a.beam_scores, b.beam_scores));
  CHECK(same_bits(a.logits, b.logits));
  CHECK(same_bits(a.weights, b.weights));
  CHECK(same_bits(a.scores, b.scores));
}

float max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  float d = 0.f;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

float max_abs(const std::vector<float>& a) {
  float m = 0.f;
  for (float x : a) m = std::max(m, std::fabs(x));
  return m;
}

const std::vector<std::int32_t> kSrc = {4, 5, 6, 7, 8, 9, 4};

struct Variant {
  std::string name;
  ModelConfig config;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  static const char* cell_names[] = {"gru", "lstm"};
  for (int ci = 0; ci < 2; ++ci) {
    const Cell cell = ci ? Cell::LSTM : Cell::GRU;
    for (bool bidir : {false, true}) {
      const std::string base = std::string(cell_names[ci]) + (bidir ? " bi" : "");
      for (Style style : {Style::Luong, Style::Bahdanau, Style::None})
        for (Score score : {Score::Dot, Score::General, Score::Additive}) {
          if (style == Style::None && score != Score::Dot) continue;
          v.push_back(
              {base + " " + to_string(style) + (style == Style::None ? "" : std::string(" ") + to_string(score)),
               test::small_config(cell, style, score, bidir)});
        }
    }
  }
  v.push_back({"gru luong dot input feeding", test::small_config(Cell::GRU, Style::Luong, Score::Dot, false, true)});
  v.push_back({"lstm luong general input feeding bi",
               test::small_config(Cell::LSTM, Style::Luong, Score::General, true, true)});
  {
    ModelConfig c = test::small_config(Cell::LSTM, Style::Luong, Score::Additive, true, false, 2, true);
    c.enc_hidden = 10;  // He_out 20 != Hd 16: only the bridge makes this valid
    v.push_back({"lstm bi 2-layer bridge luong additive", c});
  }
  {
    ModelConfig c = test::small_config(Cell::GRU, Style::Bahdanau, Score::General, false, false, 3, true);
    c.enc_hidden = 12;
    v.push_back({"gru 3-layer bridge bahdanau general", c});
  }
  v.push_back({"char tokenizer with free-form metadata", char_config()});
  {
    ModelConfig c = char_config();
    c.set_tokenizer(TokenizerKind::Word);
    c.pad = 3, c.bos = 2, c.eos = 1, c.unk = 0;
    v.push_back({"word tokenizer, special ids permuted", c});
  }
  {
    ModelConfig c = char_config();  // spelling -> phonemes: the sides differ, the source folds case
    c.tgt_tokenizer = TokenizerKind::Word;
    c.src_case = CaseFold::Upper;
    v.push_back({"char source, word target, upper-cased source", c});
  }
  {
    ModelConfig c = char_config();  // Korean spelling -> IPA phones: Hangul read as jamo
    c.tgt_tokenizer = TokenizerKind::Word;
    c.src_jamo = true;
    v.push_back({"char source reading Hangul as jamo", c});
  }
  return v;
}

}  // namespace

// ---- positives ----------------------------------------------------------------------------------

TEST_CASE("checkpoint: save, load, save is byte-identical and decodes bit-identically") {
  unsigned seed = 100;
  for (const auto& v : variants()) {
    SUBCASE(v.name.c_str()) {
      Model m = random_model(v.config, seed);
      const Bytes a = save_checkpoint(m);
      Model l = load_checkpoint(a.data(), a.size());
      const Bytes b = save_checkpoint(l);
      CHECK(a == b);
      const auto& c = l.config();
      CHECK(c.cell == v.config.cell);
      CHECK(c.style == v.config.style);
      if (c.style != Style::None) CHECK(c.score == v.config.score);
      CHECK(c.bidirectional == v.config.bidirectional);
      CHECK(c.input_feeding == v.config.input_feeding);
      CHECK(c.bridge == v.config.bridge);
      CHECK(c.layers == v.config.layers);
      CHECK(c.src_tokenizer == v.config.src_tokenizer);
      CHECK(c.tgt_tokenizer == v.config.tgt_tokenizer);
      CHECK(c.src_case == v.config.src_case);
      CHECK(c.src_jamo == v.config.src_jamo);
      CHECK(c.src_tokens == v.config.src_tokens);
      CHECK(c.tgt_tokens == v.config.tgt_tokens);
      CHECK((c.pad == v.config.pad && c.bos == v.config.bos && c.eos == v.config.eos && c.unk == v.config.unk));
      CHECK(c.extra == v.config.extra);
      CHECK(same_bits(l.params().data, m.params().data));
      check_identical(trace(m, kSrc), trace(l, kSrc));
      // The plain matrix path of the loaded model agrees with the original's too.
      l.prepare(false);
      m.prepare(false);
      check_identical(trace(m, kSrc), trace(l, kSrc));
    }
    ++seed;
  }
}

TEST_CASE("checkpoint: PyTorch-written fixtures survive save, load, save unchanged") {
  for (const char* name : {"gru_luong_dot", "gru_bi_bridge_luong_general", "lstm_bi_2layer_bridge_luong_additive",
                           "lstm_none", "tensors_only"}) {
    SUBCASE(name) {
      Model f = load_checkpoint_file(test::data_path(std::string("parity/") + name + ".safetensors"));
      const Bytes a = save_checkpoint(f);
      Model l = load_checkpoint(a.data(), a.size());
      CHECK(save_checkpoint(l) == a);
      std::vector<std::int32_t> src = {4, 5, 6};
      for (auto& x : src) x %= f.config().src_vocab;
      check_identical(trace(f, src), trace(l, src));
    }
  }
}

TEST_CASE("checkpoint: a file without metadata reads the configuration off the shapes") {
  SUBCASE("gru luong dot") {
    Draft d = draft_of(save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot), 3)));
    d.with_metadata = false;
    d.meta.clear();
    const Bytes b = d.bytes();
    Model m = load_checkpoint(b.data(), b.size());
    CHECK(m.config().style == Style::Luong);
    CHECK(m.config().src_tokenizer == TokenizerKind::Ids);
    CHECK(m.config().tgt_tokenizer == TokenizerKind::Ids);
    CHECK((m.config().pad == 0 && m.config().bos == 1 && m.config().eos == 2 && m.config().unk == 3));
  }
  SUBCASE("lstm bi none: cell, direction and style come from the tensors") {
    const ModelConfig c = test::small_config(Cell::LSTM, Style::None, Score::Dot, true);
    Model orig = random_model(c, 4);
    Draft d = draft_of(save_checkpoint(orig));
    d.with_metadata = false;
    d.meta.clear();
    const Bytes b = d.bytes();
    Model m = load_checkpoint(b.data(), b.size());
    CHECK(m.config().cell == Cell::LSTM);
    CHECK(m.config().bidirectional);
    CHECK(m.config().style == Style::None);
    check_identical(trace(orig, kSrc), trace(m, kSrc));
  }
  SUBCASE("general and additive scores and a bridge come from the tensors") {
    ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::Additive, false, false, 1, true);
    c.enc_hidden = 12;
    Draft d = draft_of(save_checkpoint(random_model(c, 5)));
    d.with_metadata = false;
    d.meta.clear();
    const Bytes b = d.bytes();
    Model m = load_checkpoint(b.data(), b.size());
    CHECK(m.config().score == Score::Additive);
    CHECK(m.config().attn_dim == 11);
    CHECK(m.config().bridge);
    CHECK(m.config().enc_hidden == 12);
  }
}

TEST_CASE("checkpoint: the hand-made F16/BF16 encoder agrees with known bit patterns") {
  CHECK(f16_bits(1.f) == 0x3C00);
  CHECK(f16_bits(-2.f) == 0xC000);
  CHECK(f16_bits(65504.f) == 0x7BFF);
  CHECK(f16_bits(std::ldexp(1.f, -14)) == 0x0400);
  CHECK(f16_bits(std::ldexp(1.f, -24)) == 0x0001);
  CHECK(f16_bits(std::ldexp(1023.f, -24)) == 0x03FF);
  CHECK(f16_bits(-0.f) == 0x8000);
  CHECK(round_f16(1.f + std::ldexp(1.f, -11)) == 1.f);  // tie: to even
  CHECK(round_f16(1.f + 3 * std::ldexp(1.f, -11)) == 1.f + std::ldexp(1.f, -9));
  CHECK(round_f16(std::ldexp(1.f, -26)) == 0.f);
  CHECK(round_f16(std::ldexp(3.f, -26)) == std::ldexp(1.f, -24));
  CHECK(bf16_bits(1.f) == 0x3F80);
  CHECK(round_bf16(1.f + std::ldexp(1.f, -8)) == 1.f);
  CHECK(round_bf16(1.f + 3 * std::ldexp(1.f, -8)) == 1.f + std::ldexp(1.f, -6));
}

TEST_CASE("checkpoint: F16 and BF16 checkpoints load exactly and decode close to F32") {
  struct Case {
    const char* name;
    ModelConfig config;
  };
  const Case cases[] = {
      {"gru luong general", test::small_config(Cell::GRU, Style::Luong, Score::General)},
      {"lstm bi bahdanau additive", test::small_config(Cell::LSTM, Style::Bahdanau, Score::Additive, true)},
      {"gru none", test::small_config(Cell::GRU, Style::None, Score::Dot)},
  };
  struct Mode {
    const char* name;
    std::function<Dt(std::size_t)> dtype_of;
    float tol;  // on logits, relative to the largest |logit|
  };
  const Mode modes[] = {
      {"F16", [](std::size_t) { return Dt::F16; }, 5e-3f},    // seen: 4e-4
      {"BF16", [](std::size_t) { return Dt::BF16; }, 3e-2f},  // seen: 4e-3
      {"mixed F32/F16/BF16", [](std::size_t i) { return Dt(i % 3); }, 3e-2f},
  };
  unsigned seed = 40;
  for (const auto& cs : cases)
    for (const auto& md : modes) {
      SUBCASE((std::string(cs.name) + ", " + md.name).c_str()) {
        Model m = random_model(cs.config, seed);
        const Draft d = draft_of(save_checkpoint(m));
        Draft rounded;
        const Bytes half = write_mixed(d, md.dtype_of, &rounded);
        Model h = load_checkpoint(half.data(), half.size());
        // Exactly the rounded values: the same decode as an F32 file holding them.
        const Bytes rb = rounded.bytes();
        Model r = load_checkpoint(rb.data(), rb.size());
        CHECK(same_bits(h.params().data, r.params().data));
        const Trace th = trace(h, kSrc), tr = trace(r, kSrc), tm = trace(m, kSrc);
        check_identical(th, tr);
        // And close to the unrounded F32 model.
        const float scale = std::max(1.f, max_abs(tm.logits));
        INFO("logit difference " << max_abs_diff(th.logits, tm.logits) << " of " << scale);
        CHECK(max_abs_diff(th.logits, tm.logits) <= md.tol * scale);
        CHECK(max_abs_diff(th.logits, tm.logits) > 0.f);  // the file really held rounded values
        if (!tm.weights.empty()) CHECK(max_abs_diff(th.weights, tm.weights) <= md.tol);
        // Saving writes F32: the round trip keeps the rounded values.
        const Bytes s = save_checkpoint(h);
        CHECK(s == save_checkpoint(r));
      }
      ++seed;
    }
}

// ---- refusals ------------------------------------------------------------------------------------

TEST_CASE("checkpoint: every truncation of a valid file is refused, never a crash") {
  ModelConfig c = char_config();
  c.src_vocab = 6, c.tgt_vocab = 5, c.src_emb = 2, c.tgt_emb = 3, c.enc_hidden = c.dec_hidden = 2, c.attn_dim = 2;
  c.src_tokens.resize(6);
  c.tgt_tokens.resize(5);
  c.score = Score::Additive;
  const Bytes tiny = save_checkpoint(random_model(c, 1));
  for (const Bytes* b : {&tiny, &reference_file()}) {
    Model ok = load_checkpoint(b->data(), b->size());
    std::size_t refused = 0;
    for (std::size_t n = 0; n < b->size(); ++n) {
      const Bytes prefix(b->begin(), b->begin() + std::ptrdiff_t(n));  // exact size: ASan sees overreads
      const std::string msg = load_error(prefix);
      if (msg == "<loaded>") FAIL("prefix of " << n << " of " << b->size() << " bytes loaded");
      ++refused;
    }
    CHECK(refused == b->size());
  }
  CHECK(load_error(tiny, 0).find("0 bytes") != std::string::npos);
  check_refused(Bytes(tiny.begin(), tiny.begin() + 5), {"5 bytes"});
  const std::size_t cut = tiny.size() - 3;
  check_refused(Bytes(tiny.begin(), tiny.begin() + std::ptrdiff_t(cut)), {"decoder.out.bias"});
}

TEST_CASE("checkpoint: header length beyond the file is refused") {
  Bytes b = reference_file();
  const std::uint64_t beyond = b.size() - 8 + 1;
  for (int i = 0; i < 8; ++i) b[i] = std::uint8_t(beyond >> (8 * i));
  check_refused(b, {"header length " + std::to_string(beyond), std::to_string(b.size())});
  for (int i = 0; i < 8; ++i) b[i] = 0xFF;
  check_refused(b, {"header length 18446744073709551615"});
  for (int i = 0; i < 8; ++i) b[i] = 0;
  check_refused(b, {"header length is 0"});
}

TEST_CASE("checkpoint: a missing tensor is named") {
  const ModelConfig gen = test::small_config(Cell::GRU, Style::Luong, Score::General);
  const ModelConfig add = test::small_config(Cell::LSTM, Style::Bahdanau, Score::Additive, true, false, 2);
  ModelConfig bridge = test::small_config(Cell::GRU, Style::Luong, Score::Dot, false, false, 1, true);
  struct Case {
    const ModelConfig* config;
    const char* name;
  };
  const Case cases[] = {
      {&gen, "encoder.embedding.weight"},
      {&gen, "decoder.embedding.weight"},
      {&gen, "encoder.rnn.weight_ih_l0"},
      {&gen, "encoder.rnn.bias_hh_l0"},
      {&gen, "decoder.rnn.weight_ih_l0"},
      {&gen, "decoder.rnn.bias_ih_l0"},
      {&gen, "decoder.combine.bias"},
      {&gen, "decoder.out.weight"},
      {&gen, "decoder.out.bias"},
      {&add, "encoder.rnn.weight_ih_l1_reverse"},
      {&add, "encoder.rnn.bias_ih_l0_reverse"},
      {&add, "decoder.rnn.bias_hh_l1"},
      {&add, "decoder.attention.query.weight"},
      {&add, "decoder.attention.key.weight"},
      {&bridge, "bridge.bias"},
  };
  for (const auto& cs : cases) {
    SUBCASE(cs.name) {
      Draft d = draft_of(save_checkpoint(random_model(*cs.config, 9)));
      d.erase(cs.name);
      check_refused(d.bytes(), {"'" + std::string(cs.name) + "'"});
    }
  }
}

// Removing a tensor whose presence the loader reads as a configuration choice (the combine layer,
// the attention weights, the bridge weight): the file then describes another model, which the
// metadata or the remaining tensors contradict.
TEST_CASE("checkpoint: a missing tensor that decides the configuration is still refused") {
  SUBCASE("decoder.combine.weight") {
    Draft d = draft_of(save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot), 1)));
    d.erase("decoder.combine.weight");
    check_refused(d.bytes(), {"decoder.combine", "luong", "none"});
    d.erase_meta("style");
    check_refused(d.bytes(), {"unexpected tensor 'decoder.combine.bias'"});
  }
  SUBCASE("decoder.attention.weight") {
    Draft d = draft_of(save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::General), 1)));
    d.erase("decoder.attention.weight");
    check_refused(d.bytes(), {"general", "dot"});
  }
  SUBCASE("decoder.attention.v.weight") {
    Draft d = draft_of(save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Additive), 1)));
    d.erase("decoder.attention.v.weight");
    check_refused(d.bytes(), {"additive", "dot"});
    d.erase_meta("score");
    check_refused(d.bytes(), {"unexpected tensor 'decoder.attention.query.weight'"});
  }
  SUBCASE("bridge.weight, bridge not needed for the sizes") {
    Draft d = draft_of(save_checkpoint(
        random_model(test::small_config(Cell::GRU, Style::Luong, Score::General, false, false, 1, true), 1)));
    d.erase("bridge.weight");
    check_refused(d.bytes(), {"unexpected tensor 'bridge.bias'"});
  }
  SUBCASE("bridge.weight, bridge needed for the sizes") {
    ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::General, false, false, 1, true);
    c.enc_hidden = 12;
    Draft d = draft_of(save_checkpoint(random_model(c, 1)));
    d.erase("bridge.weight");
    check_refused(d.bytes(), {"missing tensor 'bridge.weight'"});
  }
}

// The loader reads bidirectionality off encoder.rnn.weight_hh_l0_reverse, the layer count off
// weight_hh_l{k} and the bridge off bridge.weight. When exactly that marker tensor is missing, the
// message must still name it (and the sibling tensor that shows it should be there).
TEST_CASE("checkpoint: a missing marker tensor (reverse, layer, bridge) is named") {
  SUBCASE("encoder.rnn.weight_hh_l0_reverse") {
    Draft d = draft_of(save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot, true), 1)));
    d.erase("encoder.rnn.weight_hh_l0_reverse");
    check_refused(d.bytes(), {"encoder.rnn.weight_hh_l0_reverse"});
  }
  SUBCASE("encoder.rnn.weight_hh_l1") {
    Draft d = draft_of(
        save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot, false, false, 2), 1)));
    d.erase("encoder.rnn.weight_hh_l1");
    check_refused(d.bytes(), {"encoder.rnn.weight_hh_l1"});
  }
  SUBCASE("bridge.weight") {
    ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::General, false, false, 1, true);
    c.enc_hidden = 12;
    Draft d = draft_of(save_checkpoint(random_model(c, 1)));
    d.erase("bridge.weight");
    check_refused(d.bytes(), {"bridge.weight"});
  }
}

TEST_CASE("checkpoint: an unexpected extra tensor is named") {
  const ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::Dot);
  const Bytes base = save_checkpoint(random_model(c, 2));
  SUBCASE("unknown name") {
    Draft d = draft_of(base);
    d.add("decoder.extra.weight", {2, 3});
    check_refused(d.bytes(), {"unexpected tensor 'decoder.extra.weight'"});
  }
  SUBCASE("half of a reverse direction") {
    Draft d = draft_of(base);
    d.add("encoder.rnn.weight_ih_l0_reverse", {48, 7});
    check_refused(d.bytes(), {"unexpected tensor 'encoder.rnn.weight_ih_l0_reverse'"});
  }
  SUBCASE("a scalar") {
    Draft d = draft_of(base);
    d.add("step", {});
    check_refused(d.bytes(), {"unexpected tensor 'step'"});
  }
  SUBCASE("attention weights of another score") {
    Draft d = draft_of(base);
    d.add("decoder.attention.query.weight", {11, 16});
    check_refused(d.bytes(), {"unexpected tensor 'decoder.attention.query.weight'"});
  }
  SUBCASE("a third encoder layer's input weights") {
    Draft d = draft_of(base);
    d.add("encoder.rnn.weight_ih_l2", {48, 16});
    check_refused(d.bytes(), {"unexpected tensor 'encoder.rnn.weight_ih_l2'"});
  }
}

// A PyTorch model renamed to attnseq's names (docs/porting.md) may carry what attnseq's models do not
// have: the message names the feature, and says what to do where there is something to do.
TEST_CASE("checkpoint: a feature attnseq's models do not have is named, not read as another shape") {
  const ModelConfig add = test::small_config(Cell::GRU, Style::Luong, Score::Additive);  // A 11, Hd 16
  const ModelConfig gen = test::small_config(Cell::GRU, Style::Luong, Score::General);
  SUBCASE("a decoder without the combine layer (the PyTorch tutorial's AttnDecoderRNN)") {
    ModelConfig c = test::small_config(Cell::GRU, Style::Bahdanau, Score::Additive);
    Draft d = draft_of(save_checkpoint(random_model(c, 4)));
    d.erase("decoder.combine.weight");
    d.erase("decoder.combine.bias");
    d.erase_meta("style");
    check_refused(d.bytes(), {"no combine layer", "AttnDecoderRNN", "decoder.attention."});
  }
  SUBCASE("a bias on the additive score's key projection") {
    Draft d = draft_of(save_checkpoint(random_model(add, 4)));
    d.add("decoder.attention.key.bias", {11});
    check_refused(d.bytes(), {"'decoder.attention.key.bias'", "key projection", "decoder.attention.query.bias"});
  }
  SUBCASE("a bias on v") {
    Draft d = draft_of(save_checkpoint(random_model(add, 4)));
    d.add("decoder.attention.v.bias", {1});
    check_refused(d.bytes(), {"'decoder.attention.v.bias'", "changes no attention weight"});
  }
  SUBCASE("a bias on the general score") {
    Draft d = draft_of(save_checkpoint(random_model(gen, 4)));
    d.add("decoder.attention.bias", {16});
    check_refused(d.bytes(), {"'decoder.attention.bias'", "changes no attention weight"});
  }
  SUBCASE("a query bias without the additive score") {
    Draft d = draft_of(save_checkpoint(random_model(gen, 4)));
    d.add("decoder.attention.query.bias", {11});
    check_refused(d.bytes(), {"'decoder.attention.query.bias'", "additive"});
  }
  SUBCASE("an LSTM with projections") {
    Draft d = draft_of(save_checkpoint(random_model(test::small_config(Cell::LSTM, Style::Luong, Score::Dot), 4)));
    d.add("encoder.rnn.weight_hr_l0", {8, 16});
    check_refused(d.bytes(), {"'encoder.rnn.weight_hr_l0'", "proj_size"});
  }
  SUBCASE("an RNN made with bias=False") {
    Draft d = draft_of(save_checkpoint(random_model(gen, 4)));
    d.erase("decoder.rnn.bias_ih_l0");
    d.erase("decoder.rnn.bias_hh_l0");
    check_refused(d.bytes(), {"'decoder.rnn.weight_ih_l0' has no biases", "bias=False", "zeros"});
  }
  SUBCASE("a combine layer without a bias") {
    Draft d = draft_of(save_checkpoint(random_model(gen, 4)));
    d.erase("decoder.combine.bias");
    check_refused(d.bytes(), {"missing tensor 'decoder.combine.bias'", "zeros"});
  }
  SUBCASE("a name from another code base") {
    Draft d = draft_of(save_checkpoint(random_model(gen, 4)));
    d.add("decoder.gru.weight_ih_l0", {48, 9});
    check_refused(d.bytes(), {"unexpected tensor 'decoder.gru.weight_ih_l0'"});
    Draft e = draft_of(save_checkpoint(random_model(gen, 4)));
    e.add("generator.0.weight", {19, 16});
    check_refused(e.bytes(),
                  {"unexpected tensor 'generator.0.weight'", "not one of attnseq's tensor names", "docs/porting.md"});
  }
}

// The additive score with a bias on its query projection (OpenNMT-py's "mlp" attention; the PyTorch
// tutorials' Bahdanau attention once its key bias is added in): read off the tensor, kept on save.
TEST_CASE("checkpoint: the additive score's query bias is read, used and written back") {
  for (Style style : {Style::Luong, Style::Bahdanau}) {
    CAPTURE(to_string(style));
    ModelConfig c = test::small_config(Cell::GRU, style, Score::Additive);
    c.attn_query_bias = true;
    const Model m = random_model(c, 6);
    const Bytes b = save_checkpoint(m);
    const Model back = load_checkpoint(b.data(), b.size());
    CHECK(back.config().attn_query_bias);
    REQUIRE(back.params().find("decoder.attention.query.bias") != nullptr);
    CHECK(save_checkpoint(back) == b);
    // The bias is used: the same file without it (a model whose bias is zero) attends differently.
    Draft d = draft_of(b);
    d.erase("decoder.attention.query.bias");
    const Bytes nb = d.bytes();
    const Model nobias = load_checkpoint(nb.data(), nb.size());
    CHECK_FALSE(nobias.config().attn_query_bias);
    const std::vector<std::int32_t> src = {4, 5, 6, 7, 8};
    const Trace a = trace(back, src), z = trace(nobias, src);
    REQUIRE(!a.greedy_attention.empty());
    CHECK(a.greedy_attention != z.greedy_attention);
  }
}

TEST_CASE("checkpoint: a wrong shape is refused with both shapes") {
  const ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::General);  // Vs 23 Vt 19 E 7/9 H 16
  const Bytes base = save_checkpoint(random_model(c, 3));
  struct Case {
    const char* name;
    std::vector<std::int64_t> shape;
    const char* got;
    const char* want;
  };
  const Case cases[] = {
      {"decoder.out.bias", {18}, "[18]", "[19]"},
      {"decoder.out.bias", {19, 1}, "[19, 1]", "[19]"},
      {"decoder.combine.weight", {16, 31}, "[16, 31]", "[16, 32]"},
      {"decoder.attention.weight", {16, 17}, "[16, 17]", "[16, 16]"},
      {"encoder.rnn.bias_ih_l0", {47}, "[47]", "[48]"},
      {"decoder.rnn.weight_hh_l0", {48, 16, 1}, "[48, 16, 1]", "2"},
  };
  for (const auto& cs : cases) {
    SUBCASE((std::string(cs.name) + " " + cs.got).c_str()) {
      Draft d = draft_of(base);
      d.reshape(cs.name, cs.shape);
      check_refused(d.bytes(), {"'" + std::string(cs.name) + "'", cs.got, cs.want});
    }
  }
}

TEST_CASE("checkpoint: shapes that disagree with each other are refused") {
  const ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::General);  // Vs 23 Vt 19 E 7/9 H 16
  const Bytes base = save_checkpoint(random_model(c, 3));
  SUBCASE("decoder.out.weight columns != decoder hidden") {
    Draft d = draft_of(base);
    d.reshape("decoder.out.weight", {19, 15});
    check_refused(d.bytes(), {"'decoder.out.weight'", "[19, 15]", "[19, 16]"});
  }
  SUBCASE("decoder.out.weight rows != target vocabulary") {
    Draft d = draft_of(base);
    d.reshape("decoder.out.weight", {20, 16});
    check_refused(d.bytes(), {"'decoder.out.weight'", "[20, 16]", "[19, 16]"});
  }
  SUBCASE("encoder embedding width != encoder input size") {
    Draft d = draft_of(base);
    d.reshape("encoder.embedding.weight", {23, 8});
    check_refused(d.bytes(), {"'encoder.rnn.weight_ih_l0'", "[48, 7]", "[48, 8]"});
  }
  SUBCASE("decoder hidden size inconsistent with its gates") {
    Draft d = draft_of(base);
    d.reshape("decoder.rnn.weight_hh_l0", {48, 15});
    check_refused(d.bytes(), {"'decoder.rnn.weight_hh_l0'", "[48, 15]"});
  }
  SUBCASE("encoder rows not a multiple of the hidden size") {
    Draft d = draft_of(base);
    d.reshape("encoder.rnn.weight_hh_l0", {48, 17});
    check_refused(d.bytes(), {"'encoder.rnn.weight_hh_l0'", "[48, 17]"});
  }
  SUBCASE("encoder GRU, decoder LSTM") {
    Draft d = draft_of(base);
    d.reshape("decoder.rnn.weight_hh_l0", {64, 16});
    check_refused(d.bytes(), {"'decoder.rnn.weight_hh_l0'", "[64, 16]", "3 gates"});
  }
  SUBCASE("zero-sized dimension") {
    Draft d = draft_of(base);
    d.reshape("decoder.embedding.weight", {0, 9});
    check_refused(d.bytes(), {"'decoder.embedding.weight'", "[0, 9]"});
  }
  SUBCASE("bridge.weight against the encoder output") {
    ModelConfig b = c;
    b.bridge = true;
    b.enc_hidden = 12;
    Draft d = draft_of(save_checkpoint(random_model(b, 3)));
    d.reshape("bridge.weight", {16, 13});
    check_refused(d.bytes(), {"'bridge.weight'", "[16, 13]", "[16, 12]"});
  }
  SUBCASE("dot score with encoder output != decoder hidden") {
    ModelConfig b = test::small_config(Cell::GRU, Style::Luong, Score::General, false, false, 1, true);
    b.enc_hidden = 12;
    Draft d = draft_of(save_checkpoint(random_model(b, 3)));
    d.erase("decoder.attention.weight");
    d.erase_meta("score");
    check_refused(d.bytes(), {"12", "16"});
  }
}

TEST_CASE("checkpoint: NaN and infinity are refused with the tensor and the index") {
  const ModelConfig c = test::small_config(Cell::LSTM, Style::Luong, Score::Additive, true);
  const Bytes base = save_checkpoint(random_model(c, 4));
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* name;
    std::size_t index;
    float value;
  };
  const Case cases[] = {{"decoder.out.weight", 37, nan},
                        {"encoder.rnn.bias_hh_l0_reverse", 5, -inf},
                        {"decoder.attention.v.weight", 10, inf},
                        {"encoder.embedding.weight", 0, nan},
                        {"decoder.out.bias", 18, inf}};
  for (const auto& cs : cases) {
    SUBCASE(cs.name) {
      Draft d = draft_of(base);
      d.at(cs.name).data.at(cs.index) = cs.value;
      check_refused(d.bytes(), {"'" + std::string(cs.name) + "'", "index " + std::to_string(cs.index)});
    }
  }
  SUBCASE("F16 infinity and BF16 NaN") {
    Draft d = draft_of(base);
    d.at("decoder.combine.bias").data.at(3) = std::numeric_limits<float>::infinity();
    Draft rounded;
    const auto combine = [&] {
      for (std::size_t i = 0; i < d.tensors.size(); ++i)
        if (d.tensors[i].name == "decoder.combine.bias") return i;
      return std::size_t(0);
    }();
    check_refused(write_mixed(
                      d, [&](std::size_t i) { return i == combine ? Dt::F16 : Dt::F32; }, &rounded),
                  {"'decoder.combine.bias'", "index 3"});
    d.at("decoder.combine.bias").data.at(3) = nan;
    check_refused(write_mixed(
                      d, [&](std::size_t i) { return i == combine ? Dt::BF16 : Dt::F32; }, &rounded),
                  {"'decoder.combine.bias'", "index 3"});
  }
}

TEST_CASE("checkpoint: metadata that contradicts the shapes or is malformed is refused") {
  const Bytes dot = save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot), 5));
  const Bytes gen = save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::General), 5));
  const Bytes lstm_if =
      save_checkpoint(random_model(test::small_config(Cell::LSTM, Style::Luong, Score::Dot, false, true), 5));
  const Bytes bahd = save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Bahdanau, Score::Dot), 5));
  const Bytes chars = save_checkpoint(random_model(char_config(), 5));
  auto with = [](const Bytes& base, const std::string& k, const std::string& v) {
    Draft d = draft_of(base);
    d.set_meta(k, v);
    return d.bytes();
  };
  auto without = [](const Bytes& base, const std::string& k) {
    Draft d = draft_of(base);
    d.erase_meta(k);
    return d.bytes();
  };
  SUBCASE("style foo") { check_refused(with(dot, "style", "foo"), {"'style'", "\"foo\""}); }
  SUBCASE("style none on an attention model") { check_refused(with(dot, "style", "none"), {"none", "luong"}); }
  SUBCASE("style bahdanau with luong-only shapes") {
    check_refused(with(dot, "style", "bahdanau"), {"bahdanau", "luong", "decoder.rnn.weight_ih_l0", "9"});
  }
  SUBCASE("style luong on a bahdanau model (same widths as input feeding)") {
    check_refused(with(bahd, "style", "luong"), {"input_feeding", "decoder.rnn.weight_ih_l0", "25"});
  }
  SUBCASE("cell lstm on GRU shapes") {
    check_refused(with(dot, "cell", "lstm"), {"lstm", "encoder.rnn.weight_hh_l0", "3 gates"});
  }
  SUBCASE("cell gru on LSTM shapes") {
    check_refused(with(lstm_if, "cell", "gru"), {"gru", "encoder.rnn.weight_hh_l0", "4 gates"});
  }
  SUBCASE("cell rnn") { check_refused(with(dot, "cell", "rnn"), {"'cell'", "\"rnn\""}); }
  SUBCASE("score general on dot shapes") { check_refused(with(dot, "score", "general"), {"general", "dot"}); }
  SUBCASE("score dot on general shapes") { check_refused(with(gen, "score", "dot"), {"dot", "general"}); }
  SUBCASE("score additive on general shapes") {
    check_refused(with(gen, "score", "additive"), {"additive", "general"});
  }
  SUBCASE("score cosine") { check_refused(with(gen, "score", "cosine"), {"'score'", "\"cosine\""}); }
  SUBCASE("input_feeding true without the extra decoder input") {
    check_refused(with(dot, "input_feeding", "true"),
                  {"input_feeding", "decoder.rnn.weight_ih_l0", "9 columns", "embedding 9", "hidden 16"});
  }
  SUBCASE("input_feeding false with the extra decoder input") {
    check_refused(with(lstm_if, "input_feeding", "false"), {"input_feeding", "decoder.rnn.weight_ih_l0", "25 columns"});
  }
  SUBCASE("input_feeding yes") { check_refused(with(dot, "input_feeding", "yes"), {"'input_feeding'", "\"yes\""}); }
  SUBCASE("tokenizer bpe") { check_refused(with(chars, "tokenizer", "bpe"), {"'tokenizer'", "\"bpe\""}); }
  SUBCASE("tokenizer char without vocabularies") {
    check_refused(with(dot, "tokenizer", "char"), {"src_vocab", "missing"});
    check_refused(without(chars, "tgt_vocab"), {"tgt_vocab", "missing"});
  }
  SUBCASE("a vocabulary without a tokenizer") {
    check_refused(without(without(without(chars, "tokenizer"), "src_tokenizer"), "tgt_tokenizer"),
                  {"vocabulary", "tokenizer"});
  }
  SUBCASE("per-side tokenizers: bad values, contradictions, one side ids") {
    check_refused(with(chars, "src_tokenizer", "bpe"), {"'src_tokenizer'", "\"bpe\""});
    check_refused(with(chars, "tgt_tokenizer", "chars"), {"'tgt_tokenizer'", "\"chars\""});
    // tokenizer char but tgt_tokenizer word: the file contradicts itself (it should say mixed).
    check_refused(with(chars, "tgt_tokenizer", "word"), {"tokenizer char", "tgt_tokenizer word", "mixed"});
    check_refused(with(chars, "tokenizer", "mixed"), {"tokenizer mixed", "both sides are char"});
    check_refused(without(with(chars, "tokenizer", "mixed"), "src_tokenizer"), {"mixed", "'src_tokenizer' is missing"});
    check_refused(with(with(chars, "tokenizer", "mixed"), "tgt_tokenizer", "ids"), {"char", "ids", "both sides"});
  }
  SUBCASE("src_case") {
    check_refused(with(chars, "src_case", "title"), {"'src_case'", "\"title\"", "upper, lower or keep"});
    check_refused(with(dot, "src_case", "upper"), {"'src_case'", "no source tokenizer"});
  }
  SUBCASE("src_hangul") {
    check_refused(with(chars, "src_hangul", "nfd"), {"'src_hangul'", "\"nfd\"", "jamo or syllables"});
    check_refused(with(dot, "src_hangul", "jamo"), {"src_hangul jamo", "char source tokenizer", "ids"});
  }
  SUBCASE("vocabulary not JSON") {
    check_refused(with(chars, "src_vocab", "[\"a\", \"b\""), {"'src_vocab'", "not valid JSON"});
    check_refused(with(chars, "tgt_vocab", "a b c"), {"'tgt_vocab'", "not valid JSON"});
  }
  SUBCASE("vocabulary not an array of strings") {
    check_refused(with(chars, "src_vocab", "{\"a\": 1}"), {"'src_vocab'", "array of strings"});
    check_refused(with(chars, "src_vocab", "\"abc\""), {"'src_vocab'", "array of strings"});
    std::string v = "[\"<pad>\",\"<s>\",\"</s>\",\"<unk>\",\"a\",7";
    for (int i = 0; i < 17; ++i) v += ",\"t" + std::to_string(i) + "\"";
    check_refused(with(chars, "src_vocab", v + "]"), {"'src_vocab'", "entry 5", "not a string"});
    check_refused(with(chars, "tgt_vocab", "[\"a\",\"\",\"c\"]"), {"'tgt_vocab'", "entry 1", "empty"});
  }
  SUBCASE("vocabulary length != embedding rows") {
    check_refused(with(chars, "src_vocab", "[\"<pad>\",\"<s>\",\"</s>\",\"<unk>\",\"a\"]"),
                  {"src_vocab", "5 tokens", "encoder.embedding.weight", "23 rows"});
    std::string v = "[\"<pad>\",\"<s>\",\"</s>\",\"<unk>\"";
    for (int i = 0; i < 16; ++i) v += ",\"t" + std::to_string(i) + "\"";
    check_refused(with(chars, "tgt_vocab", v + "]"), {"tgt_vocab", "20 tokens", "decoder.embedding.weight", "19 rows"});
  }
  SUBCASE("special ids out of range or malformed") {
    check_refused(with(dot, "bos", "19"), {"19", "target 19"});
    check_refused(with(dot, "eos", "23"), {"23", "source 23"});
    check_refused(with(dot, "pad", "-1"), {"'pad'", "\"-1\""});
    check_refused(with(dot, "unk", "3x"), {"'unk'", "\"3x\""});
    check_refused(with(dot, "bos", "99999999999999999999"), {"'bos'", "99999999999999999999"});
    check_refused(with(dot, "bos", ""), {"'bos'"});
  }
}

TEST_CASE("checkpoint: duplicate vocabulary tokens are refused by the Vocab") {
  Draft d = draft_of(save_checkpoint(random_model(char_config(), 6)));
  std::string v = "[\"<pad>\",\"<s>\",\"</s>\",\"<unk>\"";
  for (int i = 0; i < 19; ++i) v += i == 11 ? ",\"c\"" : ",\"" + std::string(1, char('a' + i)) + "\"";
  d.set_meta("src_vocab", v + "]");
  const Bytes b = d.bytes();
  std::string msg = "<accepted>";
  try {
    Model m = load_checkpoint(b.data(), b.size());  // the loader may refuse it already
    Vocab::source(m.config());
  } catch (const std::invalid_argument& e) {
    msg = e.what();
  }
  INFO(msg);
  CHECK(msg.find("src_vocab") != std::string::npos);
  CHECK(msg.find("\"c\"") != std::string::npos);
  CHECK(msg.find("6") != std::string::npos);
  CHECK(msg.find("15") != std::string::npos);
  // The target side is checked the same way and a valid vocabulary passes.
  Model ok = load_checkpoint(reference_file().data(), reference_file().size());
  CHECK_NOTHROW(Vocab::source(ok.config()));
  CHECK_NOTHROW(Vocab::target(ok.config()));
  ModelConfig c = ok.config();
  c.tgt_tokens[17] = "제";
  CHECK_THROWS_WITH_AS(Vocab::target(c), doctest::Contains("ids 4 and 17"), std::invalid_argument);
}

TEST_CASE("checkpoint: decoder and encoder layer counts must agree") {
  SUBCASE("2-layer encoder, 1-layer decoder") {
    Draft d = draft_of(
        save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot, false, false, 2), 8)));
    for (const char* n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"})
      d.erase(std::string("decoder.rnn.") + n + "_l1");
    check_refused(d.bytes(), {"decoder has 1", "encoder 2"});
  }
  SUBCASE("1-layer encoder, 2-layer decoder") {
    Draft d = draft_of(save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot), 8)));
    d.add("decoder.rnn.weight_ih_l1", {48, 16});
    d.add("decoder.rnn.weight_hh_l1", {48, 16});
    d.add("decoder.rnn.bias_ih_l1", {48});
    d.add("decoder.rnn.bias_hh_l1", {48});
    check_refused(d.bytes(), {"decoder has 2", "encoder 1"});
  }
  SUBCASE("a gap in the layers") {
    Draft d = draft_of(
        save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot, false, false, 3), 8)));
    d.erase("encoder.rnn.weight_hh_l1");
    d.erase("decoder.rnn.weight_hh_l1");
    check_refused(d.bytes(), {"_l"});
  }
}

TEST_CASE("checkpoint: absurd sizes are refused before anything is allocated") {
  SUBCASE("[4294967296, 4294967296] F32") {
    check_refused(raw_file("{\"encoder.embedding.weight\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],"
                           "\"data_offsets\":[0,16]}}",
                           Bytes(16)),
                  {"encoder.embedding.weight", "4294967296"});
  }
  SUBCASE("a 16 GiB tensor claimed in a small file") {
    check_refused(raw_file("{\"decoder.out.weight\":{\"dtype\":\"F32\",\"shape\":[1048576,4096],"
                           "\"data_offsets\":[0,17179869184]}}",
                           Bytes(64)),
                  {"decoder.out.weight", "17179869184"});
  }
  SUBCASE("offsets far beyond the file") {
    check_refused(raw_file("{\"decoder.out.bias\":{\"dtype\":\"F32\",\"shape\":[2],"
                           "\"data_offsets\":[9007199254740000,9007199254740008]}}",
                           Bytes(8)),
                  {"decoder.out.bias", "9007199254740008"});
  }
  SUBCASE("a dimension beyond the model limit, with the bytes present") {
    Draft d = draft_of(save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot), 1)));
    d.reshape("encoder.embedding.weight", {kMaxDim + 1, 7});
    check_refused(d.bytes(), {"'encoder.embedding.weight'", "[" + std::to_string(kMaxDim + 1) + ", 7]"});
  }
  SUBCASE("a header claiming more than the limit") {
    Bytes b(16, 0);
    const std::uint64_t n = (std::uint64_t(1) << 40);
    for (int i = 0; i < 8; ++i) b[i] = std::uint8_t(n >> (8 * i));
    check_refused(b, {"header length 1099511627776"});
  }
}

TEST_CASE("checkpoint: a failed load leaves nothing behind") {
  // Alternate bad and good loads of different models: each good one must be what was saved.
  const Model a = random_model(test::small_config(Cell::GRU, Style::Bahdanau, Score::Additive), 21);
  const Model b = random_model(test::small_config(Cell::LSTM, Style::None, Score::Dot, true), 22);
  const Bytes ga = save_checkpoint(a), gb = save_checkpoint(b);
  Draft bad1 = draft_of(ga);
  bad1.at("decoder.out.bias").data[2] = std::numeric_limits<float>::quiet_NaN();
  Draft bad2 = draft_of(gb);
  bad2.set_meta("cell", "gru");
  const Bytes bads[] = {bad1.bytes(), bad2.bytes(), Bytes(ga.begin(), ga.begin() + 100)};
  const Trace ta = trace(a, kSrc), tb = trace(b, kSrc);
  for (int round = 0; round < 3; ++round) {
    for (const auto& bad : bads) {
      CHECK(load_error(bad) != "<loaded>");
      Model la = load_checkpoint(ga.data(), ga.size());
      check_identical(trace(la, kSrc), ta);
      CHECK(load_error(bad) != "<loaded>");
      Model lb = load_checkpoint(gb.data(), gb.size());
      check_identical(trace(lb, kSrc), tb);
    }
  }
}

TEST_CASE("tied embeddings: no decoder.out.weight in the file, metadata says so, f32 and int8 round trips") {
  ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::General, true, true);
  c.tgt_emb = c.dec_hidden;
  c.tie_embeddings = true;
  Model m(c);
  test::randomize(m, 9);
  const Bytes b = save_checkpoint(m);
  const auto f = safetensors::parse(b.data(), b.size());
  CHECK(f.find("decoder.out.weight") == nullptr);
  REQUIRE(f.meta("tie_embeddings"));
  CHECK(*f.meta("tie_embeddings") == "true");
  const Model back = load_checkpoint(b.data(), b.size());
  CHECK(back.config().tie_embeddings);
  CHECK(save_checkpoint(back) == b);
  const std::vector<std::int32_t> src = {4, 5, 6, 7};
  Encoded e1, e2;
  m.encode(src.data(), int(src.size()), e1);
  back.encode(src.data(), int(src.size()), e2);
  DecodeOptions o;
  o.max_length = 8;
  CHECK(decode(m, e1, o).hypotheses[0].tokens == decode(back, e2, o).hypotheses[0].tokens);
  // The output layer reads the embedding: changing the embedding changes the logits.
  Model q = load_checkpoint(b.data(), b.size());
  q.quantize();
  const Bytes qb = save_checkpoint(q);
  const Model qback = load_checkpoint(qb.data(), qb.size());
  Encoded e3, e4;
  q.encode(src.data(), int(src.size()), e3);
  qback.encode(src.data(), int(src.size()), e4);
  CHECK(decode(q, e3, o).hypotheses[0].tokens == decode(qback, e4, o).hypotheses[0].tokens);
  // A file that says tied but still holds decoder.out.weight is refused: which one would the layer use?
  ModelConfig u = c;
  u.tie_embeddings = false;
  Model untied(u);
  test::randomize(untied, 9);
  std::vector<safetensors::TensorOut> ts;
  const auto& p = untied.params();
  for (std::size_t i = 0; i < p.specs.size(); ++i)
    ts.push_back({p.specs[i].name, p.specs[i].shape, p.data.data() + p.offsets[i]});
  const Bytes both = safetensors::write(ts, {{"tie_embeddings", "true"}});
  CHECK(test::error_of([&] {
          load_checkpoint(both.data(), both.size());
        }).find("tie_embeddings true, so decoder.out.weight is decoder.embedding.weight") != std::string::npos);
  // The sizes must allow it.
  ModelConfig bad = c;
  bad.tgt_emb = c.dec_hidden + 1;
  CHECK(test::error_of([&] { bad.validate(); }).find("tied embeddings need the target embedding size") !=
        std::string::npos);
}
