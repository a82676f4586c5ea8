// Parity with the PyTorch twin (tools/pytorch): for every configuration's fixture, greedy tokens are
// identical, logits agree within 1e-4 of the largest logit and attention weights within 1e-5.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/json.hpp"
#include "test_util.hpp"

using namespace attnseq;

namespace {

const char* kFixtures[] = {
    "gru_luong_dot", "gru_luong_general", "gru_luong_additive", "gru_luong_dot_if", "gru_bahdanau_additive",
    "gru_bahdanau_dot", "gru_none", "gru_bi_luong_dot", "gru_bi_bridge_luong_general", "gru_2layer_luong_dot",
    "lstm_luong_dot", "lstm_luong_general_if", "lstm_bahdanau_additive", "lstm_none",
    "lstm_bi_2layer_bridge_luong_additive", "lstm_bi_bahdanau_dot", "gru_bi_luong_general_if_tied",
    "gru_bi_luong_additive_qbias_if", "lstm_bahdanau_additive_qbias",
    // not the twin: tools/pytorch/port_example.py's own module, exported by names
    "ported_opennmt_mlp", "tensors_only"};

json::Value load_json(const std::string& path) {
  const auto bytes = read_file_bytes(path);
  return json::parse(std::string(bytes.begin(), bytes.end()));
}

std::vector<float> floats(const json::Value& v) {
  std::vector<float> out;
  for (const auto& x : v.array) out.push_back(float(x.number));
  return out;
}

void check_fixture(const std::string& name, bool tables) {
  const json::Value fx = load_json(test::data_path("parity/" + name + ".json"));
  Model model = load_checkpoint_file(test::data_path("parity/" + name + ".safetensors"));
  model.prepare(tables, tables);
  const auto& cfg = *fx.find("config");
  CHECK(to_string(model.config().cell) == cfg.find("cell")->string);
  CHECK(to_string(model.config().style) == cfg.find("style")->string);
  CHECK(model.config().bidirectional == cfg.find("bidirectional")->boolean);
  CHECK(model.config().layers == int(cfg.find("layers")->number));
  CHECK(model.config().input_feeding == cfg.find("input_feeding")->boolean);
  const auto* tie = cfg.find("tie_embeddings");  // fixtures made before the option have no key
  CHECK(model.config().tie_embeddings == (tie && tie->boolean));
  const auto* qbias = cfg.find("attn_query_bias");
  CHECK(model.config().attn_query_bias == (qbias && qbias->boolean));
  if (model.config().style != Style::None) CHECK(to_string(model.config().score) == cfg.find("score")->string);
  const int max_len = int(fx.find("max_len")->number);
  for (const auto& cs : fx.find("cases")->array) {
    std::vector<std::int32_t> src;
    for (const auto& x : cs.find("src")->array) src.push_back(std::int32_t(x.number));
    std::vector<std::int32_t> want;
    for (const auto& x : cs.find("tokens")->array) want.push_back(std::int32_t(x.number));
    CAPTURE(src.size());
    Encoded enc;
    model.encode(src.data(), int(src.size()), enc);
    DecodeOptions o;
    o.max_length = max_len;
    const DecodeResult r = decode(model, enc, o);
    CHECK(r.hypotheses[0].tokens == want);
    // Step by step with the reference tokens, comparing every logit and attention weight.
    Session s(model, enc, o);
    const auto& logits = cs.find("logits")->array;
    const auto& attn = cs.find("attention")->array;
    const auto& ctx = cs.find("context")->array;
    for (std::size_t k = 0; k < want.size(); ++k) {
      CAPTURE(k);
      s.step(want[k]);
      const auto L = floats(logits[k]);
      REQUIRE(L.size() == std::size_t(model.config().tgt_vocab));
      float scale = 0.f;
      for (float x : L) scale = std::max(scale, std::abs(x));
      float worst = 0.f;
      for (std::size_t i = 0; i < L.size(); ++i) worst = std::max(worst, std::abs(s.state().logits[i] - L[i]));
      CHECK(worst <= 1e-4f * std::max(scale, 1.f));
      if (model.config().has_attention()) {
        const auto A = floats(attn[k]);
        REQUIRE(A.size() == src.size());
        for (std::size_t t = 0; t < A.size(); ++t) CHECK(std::abs(s.state().attention[t] - A[t]) <= 1e-5f);
        const auto C = floats(ctx[k]);
        for (std::size_t i = 0; i < C.size(); ++i) CHECK(std::abs(s.state().context[i] - C[i]) <= 1e-4f);
      }
    }
  }
}

}  // namespace

TEST_CASE("parity with the PyTorch twin") {
  for (const char* name : kFixtures) {
    SUBCASE(name) {
      check_fixture(name, true);
      check_fixture(name, false);  // the plain matrix path (no tables, no packed copies) agrees too
    }
  }
}

TEST_CASE("a tensors-only checkpoint loads as a luong/dot GRU ids model") {
  Model m = load_checkpoint_file(test::data_path("parity/tensors_only.safetensors"));
  const auto& c = m.config();
  CHECK(c.style == Style::Luong);
  CHECK(c.score == Score::Dot);
  CHECK(c.cell == Cell::GRU);
  CHECK_FALSE(c.input_feeding);
  CHECK(c.src_tokenizer == TokenizerKind::Ids);
  CHECK(c.tgt_tokenizer == TokenizerKind::Ids);
  CHECK(c.pad == 0);
  CHECK(c.bos == 1);
  CHECK(c.eos == 2);
  CHECK(c.unk == 3);
}
