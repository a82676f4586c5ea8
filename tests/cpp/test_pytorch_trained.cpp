// A checkpoint trained by PyTorch (tools/pytorch/train.py, bidirectional GRU, luong/general, char
// tokenizer) loads in attnseq unchanged: its metadata supplies the tokenizer and vocabularies (the
// same attnseq's TSV task builds), source TEXT encodes to the ids the twin used, and greedy tokens,
// logits (1e-4 of the largest) and attention (1e-5) match tests/data/pytorch_trained/reference.json.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/json.hpp"
#include "model/vocab.hpp"
#include "test_util.hpp"
#include "train/evaluate.hpp"
#include "train/tasks.hpp"

using namespace attnseq;

namespace {

std::string read_text(const std::string& path) {
  const auto bytes = read_file_bytes(path);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<std::int32_t> ints(const json::Value& v) {
  std::vector<std::int32_t> out;
  for (const auto& x : v.array) out.push_back(std::int32_t(x.number));
  return out;
}

std::vector<float> floats(const json::Value& v) {
  std::vector<float> out;
  for (const auto& x : v.array) out.push_back(float(x.number));
  return out;
}

Model load_trained() { return load_checkpoint_file(test::data_path("pytorch_trained/model.safetensors")); }

// Every reference case, through the table path or the plain matrix path.
void check_reference(bool tables) {
  const json::Value ref = json::parse(read_text(test::data_path("pytorch_trained/reference.json")));
  Model model = load_trained();
  model.prepare(tables, tables);
  const ModelConfig& c = model.config();
  const Vocab src_vocab = Vocab::source(c), tgt_vocab = Vocab::target(c);
  const auto& cases = ref.find("cases")->array;
  REQUIRE(cases.size() >= 5);
  for (const auto& cs : cases) {
    const std::string text = cs.find("text")->string;
    CAPTURE(text);
    const std::vector<std::int32_t> src = src_vocab.encode(text);  // attnseq's own tokenizer + vocab
    CHECK(src == ints(*cs.find("src")));
    const std::vector<std::int32_t> want = ints(*cs.find("tokens"));
    Encoded enc;
    model.encode(src.data(), int(src.size()), enc);
    DecodeOptions o;
    o.max_length = int(ref.find("max_len")->number);
    const DecodeResult r = decode(model, enc, o);
    CHECK(r.hypotheses[0].tokens == want);
    CHECK(tgt_vocab.decode(r.hypotheses[0].tokens.data(), r.hypotheses[0].tokens.size()) == cs.find("output")->string);
    // Step by step with the reference tokens: every logit and attention weight.
    Session s(model, enc, o);
    const auto& logits = cs.find("logits")->array;
    const auto& attn = cs.find("attention")->array;
    REQUIRE(logits.size() == want.size());
    REQUIRE(attn.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      CAPTURE(k);
      s.step(want[k]);
      const auto L = floats(logits[k]);
      REQUIRE(L.size() == std::size_t(c.tgt_vocab));
      float scale = 0.f, worst = 0.f;
      for (float x : L) scale = std::max(scale, std::abs(x));
      for (std::size_t i = 0; i < L.size(); ++i) worst = std::max(worst, std::abs(s.state().logits[i] - L[i]));
      CHECK(worst <= 1e-4f * std::max(scale, 1.f));
      const auto A = floats(attn[k]);
      REQUIRE(A.size() == src.size());
      for (std::size_t t = 0; t < A.size(); ++t) CHECK(std::abs(s.state().attention[t] - A[t]) <= 1e-5f);
    }
  }
}

}  // namespace

TEST_CASE("pytorch-trained checkpoint: configuration and vocabularies come from its metadata") {
  const Model m = load_trained();
  const ModelConfig& c = m.config();
  CHECK(c.cell == Cell::GRU);
  CHECK(c.style == Style::Luong);
  CHECK(c.score == Score::General);
  CHECK(c.bidirectional);
  CHECK_FALSE(c.bridge);
  CHECK_FALSE(c.input_feeding);
  CHECK(c.layers == 1);
  CHECK(c.enc_hidden == 12);
  CHECK(c.dec_hidden == 24);
  CHECK(c.src_tokenizer == TokenizerKind::Char);
  CHECK(c.tgt_tokenizer == TokenizerKind::Char);
  CHECK(c.pad == 0);
  CHECK(c.bos == 1);
  CHECK(c.eos == 2);
  CHECK(c.unk == 3);
  // train.py builds its vocabularies exactly as attnseq's TSV task does from the same file.
  const auto task = train::make_tsv_task(read_text(test::data_path("pytorch_trained/data.tsv")), TokenizerKind::Char);
  CHECK(c.src_tokens == task->src_vocab());
  CHECK(c.tgt_tokens == task->tgt_vocab());
  const auto name = std::find_if(c.extra.begin(), c.extra.end(), [](const auto& kv) { return kv.first == "name"; });
  REQUIRE(name != c.extra.end());
  CHECK(name->second == "pytorch-reverse");
}

TEST_CASE("pytorch-trained checkpoint: greedy, logits and attention match the PyTorch twin") {
  SUBCASE("token tables and packed weights") { check_reference(true); }
  SUBCASE("plain matrix path") { check_reference(false); }
}

TEST_CASE("pytorch-trained checkpoint: attnseq reverses its training words") {
  const Model m = load_trained();
  const auto task = train::make_tsv_task(read_text(test::data_path("pytorch_trained/data.tsv")), TokenizerKind::Char);
  const auto r = train::evaluate(m, train::sample_n(*task, 7, 200));
  CHECK(r.exact_rate() == 1.0);
}
