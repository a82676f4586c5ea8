// int8 models (Model::quantize, docs/checkpoint-format.md): every matrix a ParamSpec marks int8 is
// held as int8 with row scales and multiplied in int8 in every configuration; the outputs stay near
// the f32 model's; an int8 checkpoint holds I8 tensors and NAME.scale and loads to the same bits;
// rows of zeros and weights that cannot be quantised are handled; malformed int8 files are refused
// naming the tensor.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "decode/decode.hpp"
#include "kernels/kernels.hpp"
#include "model/checkpoint.hpp"
#include "model/safetensors.hpp"
#include "test_util.hpp"

using namespace attnseq;
namespace st = attnseq::safetensors;
using Bytes = std::vector<std::uint8_t>;

namespace {

using test::describe;

// What a model computes on one source: the encoder memory, then 6 steps of 3 rows (fixed previous
// tokens), every step's logits and attention weights.
struct Trace {
  std::vector<float> memory, logits, weights;
};
std::vector<std::int32_t> trace_source(const ModelConfig& c) {
  std::vector<std::int32_t> src;
  for (int i = 0; i < 7; ++i) src.push_back(4 + (i * 5) % (c.src_vocab - 4));
  return src;
}
// Step k's previous tokens, one per row.
std::array<std::int32_t, 3> trace_prev(const ModelConfig& c, int k) {
  return {c.bos, 4 + k % (c.tgt_vocab - 4), 5 + (2 * k) % (c.tgt_vocab - 5)};
}
Trace trace(const Model& m) {
  const auto& c = m.config();
  const std::vector<std::int32_t> src = trace_source(c);
  Encoded enc;
  m.encode(src.data(), int(src.size()), enc);
  DecoderState st;
  m.start(enc, st, 3);
  const std::int32_t parents[3] = {0, 0, 0};
  m.reorder(st, parents, 3);
  Trace t;
  t.memory = enc.memory;
  for (int k = 0; k < 6; ++k) {
    m.step(enc, st, trace_prev(c, k).data(), 3);
    t.logits.insert(t.logits.end(), st.logits.begin(), st.logits.begin() + 3 * c.tgt_vocab);
    t.weights.insert(t.weights.end(), st.attention.begin(), st.attention.begin() + 3 * enc.T);
  }
  return t;
}

float max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  float d = 0.f;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}
float max_abs(const std::vector<float>& a) {
  float d = 0.f;
  for (float x : a) d = std::max(d, std::fabs(x));
  return d;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// A copy of a model (parameters, int8 copies included) with its own inference data.
Model copy_of(const Model& m) { return Model(m.config(), m.params()); }

// ---- crafting int8 files -------------------------------------------------------------------------
struct Item {
  std::string name;
  st::DType dtype;
  std::vector<std::int64_t> shape;
  std::vector<float> f;        // F32 values
  std::vector<std::int8_t> q;  // I8 values
};
struct Draft {
  std::vector<Item> items;
  std::vector<std::pair<std::string, std::string>> meta;
  Item& at(const std::string& name) {
    for (auto& t : items)
      if (t.name == name) return t;
    FAIL("no tensor " << name);
    throw std::logic_error("unreachable");
  }
  void erase(const std::string& name) {
    for (auto it = items.begin(); it != items.end(); ++it)
      if (it->name == name) return void(items.erase(it));
    FAIL("no tensor " << name);
  }
  Bytes bytes() const {
    std::vector<st::TensorOut> out;
    for (const auto& t : items)
      out.push_back({t.name, t.shape, t.dtype == st::DType::I8 ? nullptr : t.f.data(),
                     t.dtype == st::DType::I8 ? t.q.data() : nullptr});
    return st::write(out, meta);
  }
};
Draft draft_of(const Bytes& b) {
  const st::File f = st::parse(b.data(), b.size());
  Draft d;
  d.meta = f.metadata;
  for (const auto& t : f.tensors) {
    Item x{t.name, t.dtype, t.shape, {}, {}};
    if (t.dtype == st::DType::I8) {
      x.q.resize(t.numel());
      st::read_i8(f, t, x.q.data());
    } else {
      x.f.resize(t.numel());
      st::read_f32(f, t, x.f.data());
    }
    d.items.push_back(std::move(x));
  }
  return d;
}

// The message of the BadCheckpoint loading `b` raises ("<loaded>" if it loads, the kind otherwise).
std::string refusal(const Bytes& b) {
  try {
    load_checkpoint(b.data(), b.size());
  } catch (const std::invalid_argument& e) {
    return kind_of(e) == ErrorKind::BadCheckpoint ? e.what() : std::string("<not BadCheckpoint> ") + e.what();
  }
  return "<loaded>";
}

Model random_model(const ModelConfig& c, unsigned seed) {
  Model m(c);
  test::randomize(m, seed, 0.5f);
  return m;
}

}  // namespace

TEST_CASE("quantize: every int8 matrix of every configuration, its floats dequantised, outputs near f32") {
  float worst = 0.f;
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(describe(cfg));
    Model m = random_model(cfg, 3);
    const Trace f32 = trace(m);
    const std::vector<float> before = m.params().data;
    CHECK_FALSE(m.quantized());
    int want = 0;
    for (const auto& s : m.params().specs) want += s.int8;
    CHECK(m.quantize() == want);
    CHECK(m.quantized());
    CHECK(m.uses_int8_weights());
    const auto& p = m.params();
    REQUIRE(p.q8.size() == p.specs.size());
    for (std::size_t i = 0; i < p.specs.size(); ++i) {
      const auto& s = p.specs[i];
      CAPTURE(s.name);
      const bool matrix = s.shape.size() == 2 && s.name != "decoder.attention.v.weight";
      CHECK(s.int8 == matrix);  // every matrix (embeddings included) but v; no bias
      CHECK(p.q8[i].q.empty() == !s.int8);
      const float* w = p.data.data() + p.offsets[i];
      if (!s.int8) {
        CHECK(std::memcmp(w, before.data() + p.offsets[i], std::size_t(s.numel()) * sizeof(float)) == 0);
        continue;
      }
      const std::size_t N = std::size_t(s.shape[1]);
      for (std::int64_t k = 0; k < s.numel(); ++k) {
        const std::size_t r = std::size_t(k) / N;
        if (w[k] != float(p.q8[i].q[k]) * p.q8[i].scale[r]) FAIL_CHECK("element " << k << " is not q * scale");
        if (!(std::fabs(w[k] - before[p.offsets[i] + k]) <= 0.5001f * p.q8[i].scale[r])) FAIL_CHECK("element " << k);
      }
    }
    const Trace q8 = trace(m);
    // Against the f32 model: weights rounded to 1/254 of each row's range move the outputs a little.
    const float tol = 0.03f * (1.f + max_abs(f32.logits));
    worst = std::max(worst, max_diff(q8.logits, f32.logits));
    CHECK(max_diff(q8.logits, f32.logits) <= tol);
    CHECK(max_diff(q8.weights, f32.weights) <= 0.05f);
    // Against the same (dequantised) floats multiplied in f32: only the int16 activations differ.
    Model plain = copy_of(m);
    plain.prepare(false, false);
    CHECK_FALSE(plain.uses_int8_weights());
    const Trace fl = trace(plain);
    CHECK(max_diff(q8.logits, fl.logits) <= 1e-3f * (1.f + max_abs(fl.logits)));
    CHECK(max_diff(q8.memory, fl.memory) <= 1e-3f);
    // Without the per-token tables the first layers' W_ih are multiplied in int8 too.
    Model no_tables = copy_of(m);
    no_tables.prepare(false, true);
    CHECK_FALSE(no_tables.uses_token_tables());
    CHECK(max_diff(trace(no_tables).logits, fl.logits) <= 1e-3f * (1.f + max_abs(fl.logits)));
    CHECK(m.quantize() == 0);  // nothing left to quantise
  }
  MESSAGE("int8 vs f32 on random models of every configuration: max |logit difference| " << worst);
}

// Row j of trace()'s steps, decoded alone: the same previous tokens, one row.
std::vector<float> trace_row(const Model& m, int j) {
  const auto& c = m.config();
  const std::vector<std::int32_t> src = trace_source(c);
  Encoded enc;
  m.encode(src.data(), int(src.size()), enc);
  DecoderState st;
  m.start(enc, st, 1);
  std::vector<float> logits;
  for (int k = 0; k < 6; ++k) {
    m.step(enc, st, trace_prev(c, k).data() + j, 1);
    logits.insert(logits.end(), st.logits.begin(), st.logits.begin() + c.tgt_vocab);
  }
  return logits;
}

TEST_CASE("quantize: the 7-bit layout (relaxed SIMD's int8 dot) stays near the 16-bit one, rows alone get their bits") {
  struct Unset {  // whatever happens, later tests get gemm_q8's layout
    ~Unset() { kernels::set_q8r_product(nullptr); }
  } unset;
  float worst = 0.f;
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(describe(cfg));
    Model m = random_model(cfg, 5);
    m.quantize();
    const Trace q16 = trace(m);
    kernels::set_q8r_product(&ref::gemm_q8r);
    Model r = copy_of(m);  // packed in the 7-bit layout
    const Trace q7 = trace(r);
    // 63 steps per activation row instead of up to 32767: the outputs move, a little more.
    worst = std::max(worst, max_diff(q7.logits, q16.logits));
    CHECK(max_diff(q7.logits, q16.logits) <= 0.05f * (1.f + max_abs(q16.logits)));
    CHECK(max_diff(q7.weights, q16.weights) <= 0.05f);
    CHECK(q7.logits != q16.logits);  // it is another product
    const std::size_t V = std::size_t(cfg.tgt_vocab);
    for (int j = 0; j < 3; ++j) {  // a row of a step has the bits it has alone
      const std::vector<float> alone = trace_row(r, j);
      for (int k = 0; k < 6; ++k)
        CHECK(std::memcmp(alone.data() + std::size_t(k) * V, q7.logits.data() + (std::size_t(k) * 3 + j) * V,
                          V * sizeof(float)) == 0);
    }
    // Unset, the product is the reference's for what was packed in its layout (the same bits), and a
    // model prepared now has gemm_q8's layout again.
    kernels::set_q8r_product(nullptr);
    CHECK(trace(r).logits == q7.logits);
    CHECK(trace(copy_of(m)).logits == q16.logits);
  }
  MESSAGE("int8, 7-bit against 16-bit activations, random models of every configuration: max |logit difference| "
          << worst);
}

TEST_CASE("int8 checkpoint: I8 tensors with NAME.scale, the same bits after loading, a quarter of the size") {
  for (const auto& cfg : test::covering_configs()) {
    CAPTURE(describe(cfg));
    Model m = random_model(cfg, 5);
    const Bytes f32_file = save_checkpoint(m);
    m.quantize();
    const Bytes file = save_checkpoint(m);
    const st::File f = st::parse(file.data(), file.size());
    for (const auto& s : m.params().specs) {
      CAPTURE(s.name);
      const auto* t = f.find(s.name);
      REQUIRE(t);
      CHECK(t->shape == s.shape);
      CHECK((t->dtype == st::DType::I8) == s.int8);
      const auto* sc = f.find(s.name + ".scale");
      CHECK(bool(sc) == s.int8);
      if (sc) {
        CHECK(sc->dtype == st::DType::F32);
        CHECK(sc->shape == std::vector<std::int64_t>{s.shape[0]});
      }
    }
    Model loaded = load_checkpoint(file.data(), file.size());
    CHECK(loaded.quantized());
    CHECK(loaded.params().data == m.params().data);
    const Trace a = trace(m), b = trace(loaded);
    CHECK(same_bits(a.logits, b.logits));
    CHECK(same_bits(a.weights, b.weights));
    CHECK(save_checkpoint(loaded) == file);  // saving again changes nothing
    // Quantising on load is the same model as loading the int8 file.
    Model on_load = load_checkpoint(f32_file.data(), f32_file.size());
    on_load.quantize();
    CHECK(same_bits(trace(on_load).logits, a.logits));
  }
  // The int8 file is about a quarter of the f32 file (biases and scales are what is left in f32).
  ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::General, true, true, 2, true);
  c.src_vocab = c.tgt_vocab = 30;
  c.src_emb = c.tgt_emb = 16;
  c.enc_hidden = 64;
  c.dec_hidden = 128;
  Model big = random_model(c, 9);
  const double f32_bytes = double(save_checkpoint(big).size());
  big.quantize();
  const double ratio = double(save_checkpoint(big).size()) / f32_bytes;
  MESSAGE("int8 / f32 file size: " << ratio);
  CHECK(ratio > 0.25);
  CHECK(ratio < 0.29);
}

TEST_CASE("quantize: a row of zeros gets scale 0 and its outputs are the bias alone") {
  Model m = random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot), 11);
  const auto& c = m.config();
  float* out = m.params().get("decoder.out.weight");
  for (int n = 0; n < c.dec_hidden; ++n) out[3 * c.dec_hidden + n] = 0.f;
  m.prepare();
  m.quantize();
  std::size_t i = 0;
  while (m.params().specs[i].name != "decoder.out.weight") ++i;
  CHECK(m.params().q8[i].scale[3] == 0.f);
  for (int n = 0; n < c.dec_hidden; ++n) CHECK(m.params().q8[i].q[3 * c.dec_hidden + n] == 0);
  const Trace t = trace(m);
  const float bias = m.params().get("decoder.out.bias")[3];
  for (std::size_t r = 0; r < t.logits.size() / c.tgt_vocab; ++r) CHECK(t.logits[r * c.tgt_vocab + 3] == bias);
  for (float x : t.logits) CHECK(std::isfinite(x));
}

TEST_CASE("checkpoint: an F32 weight beyond 2^50 is refused naming the tensor and the index, and 2^50 itself loads") {
  const Bytes good = save_checkpoint(random_model(test::small_config(Cell::GRU, Style::Luong, Score::General), 5));
  for (float big : {1e16f, -3e38f}) {
    Draft d = draft_of(good);
    d.at("decoder.out.weight").f[7] = big;
    const std::string got = refusal(d.bytes());
    CAPTURE(got);
    CHECK(got.find("tensor 'decoder.out.weight' holds " + number_text(big) +
                   " at index 7, beyond the largest weight a checkpoint may hold (2^50 = 1125899906842624)") !=
          std::string::npos);
  }
  Draft d = draft_of(good);
  d.at("decoder.out.bias").f[0] = float(-kMaxAbsWeight);
  CHECK(refusal(d.bytes()) == "<loaded>");
}

// Numbers a file may not carry, set in memory: a decode whose logits stop being finite is an error
// (BadCheckpoint, naming the step), never an answer, greedy, beam and step by step alike.
TEST_CASE("decode: logits that overflow or turn NaN are a BadCheckpoint naming the step, on every search") {
  for (float bad : {INFINITY, NAN}) {
    Model m = random_model(test::small_config(Cell::GRU, Style::Luong, Score::Dot), 3);
    m.params().get("decoder.out.bias")[4] = bad;
    m.prepare();
    Encoded enc;
    const std::vector<std::int32_t> src = {4, 5, 6};
    m.encode(src.data(), int(src.size()), enc);
    CAPTURE(bad);
    for (int beam : {1, 3}) {
      DecodeOptions o;
      o.beam = beam;
      std::string what;
      try {
        decode(m, enc, o);
      } catch (const BadCheckpoint& e) {
        what = e.what();
      }
      CAPTURE(beam);
      CHECK(what.rfind("target step 1: the model's logits are not finite (", 0) == 0);
      CHECK(what.find("); its weights overflow float32 arithmetic") != std::string::npos);
    }
    Session s(m, enc, DecodeOptions{});
    CHECK_THROWS_AS(s.step(), BadCheckpoint);
    m.params().get("decoder.out.bias")[4] = 0.f;  // finite again: the same model decodes
    m.prepare();
    CHECK_NOTHROW(decode(m, enc, DecodeOptions{}));
  }
}

TEST_CASE("quantize: inf or NaN in a matrix is refused, naming tensor, row and column, and the model is unchanged") {
  for (float bad : {INFINITY, -INFINITY, NAN}) {
    Model m = random_model(test::small_config(Cell::LSTM, Style::Bahdanau, Score::Additive), 13);
    const std::size_t N = std::size_t(m.config().enc_out() + m.config().dec_hidden);
    m.params().get("decoder.combine.weight")[2 * N + 5] = bad;
    const std::vector<float> data = m.params().data;
    std::string what;
    try {
      m.quantize();
    } catch (const BadCheckpoint& e) {
      what = e.what();
    }
    CAPTURE(what);
    CHECK(what.find("tensor 'decoder.combine.weight'") != std::string::npos);
    CHECK(what.find("at row 2, column 5") != std::string::npos);
    CHECK_FALSE(m.quantized());
    CHECK(std::memcmp(m.params().data.data(), data.data(), data.size() * sizeof(float)) == 0);
    m.params().get("decoder.combine.weight")[2 * N + 5] = 0.f;
    CHECK(m.quantize() > 0);  // and it still works once the weight is finite
    CHECK(m.quantized());
  }
}

TEST_CASE(
    "int8 checkpoint: missing, misshapen or invalid scales and int8 where it does not belong are refused naming the "
    "tensor") {
  Model m = random_model(test::small_config(Cell::GRU, Style::Luong, Score::Additive), 17);
  const Bytes f32_file = save_checkpoint(m);
  m.quantize();
  const Bytes good = save_checkpoint(m);
  REQUIRE(refusal(good) == "<loaded>");
  const std::string W = "decoder.out.weight", S = W + ".scale";
  const std::int64_t V = m.config().tgt_vocab;
  auto check = [&](Draft d, const std::string& expect) {
    const std::string got = refusal(d.bytes());
    CAPTURE(got);
    CHECK(got.find(expect) != std::string::npos);
  };
  {
    Draft d = draft_of(good);
    d.erase(S);
    check(d, "checkpoint: tensor 'decoder.out.weight' is I8 but its scales 'decoder.out.weight.scale' are missing");
  }
  {
    Draft d = draft_of(good);
    d.at(S).shape = {V + 1};
    d.at(S).f.push_back(0.5f);
    check(d, "scales 'decoder.out.weight.scale' have shape [" + std::to_string(V + 1) + "], expected [" +
                 std::to_string(V) + "] (one per row of 'decoder.out.weight')");
  }
  {
    Draft d = draft_of(good);
    d.at(S).shape = {V, 1};
    check(d, "scales 'decoder.out.weight.scale' have shape [" + std::to_string(V) + ", 1], expected [" +
                 std::to_string(V) + "]");
  }
  {
    Draft d = draft_of(good);
    Item& s = d.at(S);
    s.dtype = st::DType::I8;
    s.q.assign(s.f.size(), 1);
    check(d, "scales 'decoder.out.weight.scale' of I8 tensor 'decoder.out.weight' are I8; expected F32");
  }
  for (float bad : {INFINITY, NAN, -0.5f, -1e-30f}) {  // -1e-30 once read "-0.000000"
    Draft d = draft_of(good);
    d.at(S).f[2] = bad;
    check(d,
          "scales 'decoder.out.weight.scale' hold " + number_text(bad) + " at row 2; a scale must be finite and >= 0");
  }
  // Finite scales whose weights overflow (1e38 x 127 is inf) or reach sizes that overflow the
  // products (1e30 gave garbage with score 0): refused naming the tensor and the row.
  for (const auto& big : {std::pair<std::string, float>{"encoder.embedding.weight", 1e38f},
                          std::pair<std::string, float>{W, 1e30f}, std::pair<std::string, float>{W, 1e13f}}) {
    const std::string name = big.first;  // not a structured binding: clang 14 cannot capture one
    const float scale = big.second;
    Draft d = draft_of(good);
    Item& w = d.at(name);
    const std::int64_t N = w.shape[1];
    w.q[std::size_t(N)] = 127;  // row 1 holds a 127
    d.at(name + ".scale").f[1] = scale;
    CAPTURE(name);
    CAPTURE(scale);
    check(d, "tensor '" + name + "' row 1: its scale " + number_text(scale) + " times its weight 127 is " +
                 number_text(127.0 * double(scale)) + ", beyond the largest weight a checkpoint may hold");
  }
  {  // just inside the bound: 127 x scale <= 2^50 loads
    Draft d = draft_of(good);
    d.at(W).q[0] = 127;
    d.at(S).f[0] = float(kMaxAbsWeight / 127.0 * 0.999);
    check(d, "<loaded>");
  }
  {
    Draft d = draft_of(good);
    const std::int64_t N = d.at(W).shape[1];
    d.at(W).q[size_t(3 * N + 1)] = -128;
    check(d, "tensor 'decoder.out.weight' holds -128 at row 3, column 1; int8 weights are in [-127, 127]");
  }
  {  // int8 is for the matrices only: not the additive score's v
    Draft d = draft_of(good);
    Item& e = d.at("decoder.attention.v.weight");
    e.dtype = st::DType::I8;
    e.q.assign(e.f.size(), 3);
    d.items.push_back({"decoder.attention.v.weight.scale", st::DType::F32, {1}, {0.1f}, {}});
    check(d, "tensor 'decoder.attention.v.weight' is I8, but only the embeddings and the weight matrices");
  }
  {  // scales beside an F32 tensor
    Draft d = draft_of(f32_file);
    d.items.push_back({S, st::DType::F32, {V}, std::vector<float>(std::size_t(V), 0.1f), {}});
    check(d, "unexpected tensor 'decoder.out.weight.scale': 'decoder.out.weight' is F32, not I8, so it has no scales");
  }
  {  // scales of no tensor at all
    Draft d = draft_of(good);
    d.items.push_back({"decoder.nothing.scale", st::DType::F32, {2}, {0.5f, 0.5f}, {}});
    check(d, "unexpected tensor 'decoder.nothing.scale'");
  }
  {  // an F32 matrix read as int8 is caught however it is named: an I8 bias
    Draft d = draft_of(good);
    Item& b = d.at("decoder.out.bias");
    b.dtype = st::DType::I8;
    b.q.assign(b.f.size(), 1);
    check(d, "tensor 'decoder.out.bias' is I8, but only the embeddings and the weight matrices");
  }
}

TEST_CASE("int8 checkpoint: a file with some matrices int8 and the rest f32 loads, and quantize() finishes it") {
  Model m = random_model(test::small_config(Cell::GRU, Style::Luong, Score::General, false, true), 19);
  const Bytes f32_file = save_checkpoint(m);
  Model q = copy_of(m);
  q.quantize();
  Draft d = draft_of(save_checkpoint(q));
  const Draft f = draft_of(f32_file);
  // decoder.out.weight back to its f32 values, its scales gone.
  for (const auto& it : f.items)
    if (it.name == "decoder.out.weight") d.at("decoder.out.weight") = it;
  d.erase("decoder.out.weight.scale");
  const Bytes mixed = d.bytes();
  Model x = load_checkpoint(mixed.data(), mixed.size());
  CHECK(x.quantized());
  CHECK(x.quantize() == 1);  // only the one f32 matrix was left
  CHECK(same_bits(trace(x).logits, trace(q).logits));
}
