// Saved training states (src/train/run_state.hpp, trainer.cpp, epochs.cpp) are checked before they are
// used: a state records the run it belongs to and a resume that differs is refused naming the flag;
// non-finite weights or moments are refused naming the tensor, and every counter that does not parse
// is named with its value; a step whose loss or gradient is not finite changes nothing. Also the TSV
// reader's BOM and reserved spellings (train/tasks.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "model/safetensors.hpp"
#include "test_util.hpp"
#include "train/epochs.hpp"
#include "train/pron_data.hpp"
#include "train/run_state.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"

using namespace attnseq;
using test::error_of;

namespace {

ModelConfig tiny() {
  ModelConfig c;
  c.src_vocab = c.tgt_vocab = 10;
  c.src_emb = c.tgt_emb = 8;
  c.enc_hidden = c.dec_hidden = 12;
  return c;
}

train::Pair copy_pair(Rng& rng) {
  std::vector<std::int32_t> s(1 + rng.next() % 4);
  for (auto& x : s) x = 4 + std::int32_t(rng.next() % 6);
  return {s, s};
}

train::TrainOptions options() {
  train::TrainOptions o;
  o.batch_size = 4;
  o.steps = 20;
  o.warmup = 2;
  return o;
}

// The same state with one value of a tensor, or one metadata entry, replaced.
std::vector<std::uint8_t> edited(const std::vector<std::uint8_t>& bytes, const std::string& tensor, float value,
                                 const std::string& key = "", const std::string& text = "") {
  const auto f = safetensors::parse(bytes.data(), bytes.size());
  std::vector<std::vector<float>> data;
  for (const auto& t : f.tensors) {
    data.emplace_back(t.numel());
    safetensors::read_f32(f, t, data.back().data());
    if (t.name == tensor) data.back()[1] = value;
  }
  std::vector<safetensors::TensorOut> out;
  for (std::size_t i = 0; i < f.tensors.size(); ++i)
    out.push_back({f.tensors[i].name, f.tensors[i].shape, data[i].data()});
  auto meta = f.metadata;
  for (auto& kv : meta)
    if (kv.first == key) kv.second = text;
  return safetensors::write(out, meta);
}

const train::RunRecord kRecord = {{"--style", "luong"}, {"--seed", "1"}, {"--data", "fnv1a:0000000000000001"}};

}  // namespace

TEST_CASE("run state: a step whose loss or gradient is not finite is refused, naming the step, and changes nothing") {
  Model m(tiny());
  train::initialize(m, 1);
  train::Trainer tr(m, copy_pair, options());
  tr.step();
  const auto state = tr.save_state();
  // Weights this large overflow the forward pass: the loss is not finite.
  for (auto& x : m.params().data) x = x > 0 ? 3e38f : -3e38f;
  m.prepare();
  const auto weights = m.params().data;
  CHECK_THROWS_WITH_AS(tr.step(), doctest::Contains("step 2: the loss is"), train::NonFiniteStep);
  CHECK(m.params().data == weights);
  CHECK(tr.steps_done() == 1);
  CHECK(tr.save_state() == state);
}

TEST_CASE("run state: non-finite moments and counters that do not parse are refused, naming tensor, field and value") {
  Model m(tiny());
  train::initialize(m, 1);
  train::Trainer tr(m, copy_pair, options());
  tr.step();
  const auto state = tr.save_state();
  train::Trainer other(m, copy_pair, options());
  const auto before = other.save_state();
  auto refused = [&](const std::vector<std::uint8_t>& bytes, const std::string& what) {
    CAPTURE(what);
    CHECK_THROWS_WITH_AS(other.load_state(bytes.data(), bytes.size()), doctest::Contains(what.c_str()), BadCheckpoint);
    CHECK(other.save_state() == before);
  };
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  refused(edited(state, "adam.m", nan), "'adam.m' holds nan at index 1");
  refused(edited(state, "adam.v", inf), "'adam.v' holds inf at index 1");
  refused(edited(state, "adam.v", -1.f), "'adam.v' holds -1 at index 1 (its values must be finite and >= 0)");
  refused(edited(state, "", 0, "step", "12x"), "'step' is \"12x\", not an integer in [0, 2147483647]");
  refused(edited(state, "", 0, "step", "99999999999999999999"), "'step' is \"99999999999999999999\"");
  refused(edited(state, "", 0, "rng", "-3"), "'rng' is \"-3\", not an unsigned 64-bit integer");
  refused(edited(state, "", 0, "lr_scale", "fast"), "'lr_scale' is \"fast\", not a finite number > 0");
}

TEST_CASE("run state: the sampling trainer's state holds its weights and continues exactly, only the run it records") {
  auto fresh = [](Model& m) {
    train::initialize(m, 3);
    return train::Trainer(m, copy_pair, options());
  };
  Model a(tiny());
  auto ta = fresh(a);
  for (int i = 0; i < 6; ++i) ta.step();
  Model b(tiny());
  auto tb = fresh(b);
  for (int i = 0; i < 3; ++i) tb.step();
  const auto state = train::save_run_state(tb, b, kRecord);
  // Into a model with other weights: the state's own weights are what continues.
  Model c(tiny());
  train::initialize(c, 99);
  train::Trainer tc(c, copy_pair, options());
  train::load_run_state(tc, c, kRecord, state.data(), state.size());
  CHECK(tc.steps_done() == 3);
  for (int i = 0; i < 3; ++i) tc.step();
  CHECK(c.params().data == a.params().data);

  Model d(tiny());
  train::initialize(d, 5);
  train::Trainer td(d, copy_pair, options());
  const auto weights = d.params().data;
  auto refused = [&](const std::vector<std::uint8_t>& bytes, const train::RunRecord& mine, const std::string& what) {
    CAPTURE(what);
    CHECK_THROWS_WITH_AS(train::load_run_state(td, d, mine, bytes.data(), bytes.size()),
                         doctest::Contains(what.c_str()), std::invalid_argument);
    CHECK(td.steps_done() == 0);
    CHECK(d.params().data == weights);
  };
  auto other = kRecord;
  other[0].second = "bahdanau";
  refused(state, other, "--style: the state was saved with luong, this run asks for bahdanau");
  other = kRecord;
  other[2].second = "fnv1a:0000000000000002";
  refused(state, other,
          "--data: the state was saved with fnv1a:0000000000000001, this run asks for fnv1a:0000000000000002");
  refused(edited(state, "params", std::nanf("")), kRecord, "'params' holds nan at index 1");
  // An older state (the Trainer's blob alone) records neither weights nor configuration.
  const auto old = tb.save_state();
  refused(old, kRecord, "saved by an older attnseq");
}

TEST_CASE("run state: an epoch trainer with a record refuses another configuration and non-finite weights") {
  std::vector<train::Pair> pairs;
  Rng rng(4);
  for (int i = 0; i < 12; ++i) pairs.push_back(copy_pair(rng));
  std::vector<train::RefItem> dev = {{pairs[0].first, {pairs[0].second}}, {pairs[1].first, {pairs[1].second}}};
  train::EpochOptions e;
  e.epochs = 2;
  Model m(tiny());
  train::initialize(m, 1);
  train::EpochTrainer et(m, pairs, dev, options(), e);
  et.set_record(kRecord);
  while (!et.finished() && et.epoch() == 0) et.advance();
  et.advance();
  const auto state = et.save_state();

  Model m2(tiny());
  train::initialize(m2, 2);
  train::EpochTrainer other(m2, pairs, dev, options(), e);
  auto mine = kRecord;
  mine[0].second = "bahdanau";
  other.set_record(mine);
  CHECK(error_of([&] { other.load_state(state.data(), state.size()); }) ==
        "--style: the state was saved with luong, this run asks for bahdanau");
  other.set_record(kRecord);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* t : {"params", "best_params", "adam.m"}) {
    const auto bad = edited(state, t, nan);
    CHECK_THROWS_WITH_AS(other.load_state(bad.data(), bad.size()),
                         doctest::Contains((std::string("'") + t + "' holds nan").c_str()), BadCheckpoint);
  }
  CHECK(other.steps_done() == 0);
  other.load_state(state.data(), state.size());
  CHECK(other.steps_done() == et.steps_done());
  // A state saved without a record (by an older attnseq) cannot be checked: refused.
  train::EpochTrainer plain(m, pairs, dev, options(), e);
  const auto old = plain.save_state();
  CHECK_THROWS_WITH_AS(other.load_state(old.data(), old.size()), doctest::Contains("saved by an older attnseq"),
                       std::invalid_argument);
}

TEST_CASE("tsv: a BOM is dropped, tokens spelled like the reserved ones are refused naming the line") {
  const auto t = train::make_tsv_task(
      "\xEF\xBB\xBF"
      "ab\tx y\ncd\tz\n",
      TokenizerKind::Word, TokenizerKind::Word);
  const auto& ex = train::tsv_examples(*t);
  REQUIRE(ex.size() == 2);
  CHECK(ex[0].src == std::vector<std::string>{"ab"});
  CHECK(ex[1].tgt == std::vector<std::string>{"z"});
  for (const char* r : {"</s>", "<pad>", "<unk>", "<s>"}) {
    CAPTURE(r);
    CHECK(error_of([&] { train::make_tsv_task(std::string("a\tb\nc\tb ") + r + " d\n", TokenizerKind::Word); }) ==
          std::string("tsv line 2: target token 2 is \"") + r +
              "\", the spelling of a reserved token (<pad>, <s>, </s>, <unk>)");
    CHECK(error_of([&] { train::make_tsv_task(std::string(r) + "\tb\n", TokenizerKind::Word); }) ==
          std::string("tsv line 1: source token 1 is \"") + r +
              "\", the spelling of a reserved token (<pad>, <s>, </s>, <unk>)");
  }
  // Characters cannot spell a reserved token: "<unk>" read by characters is five ordinary tokens.
  CHECK(train::tsv_examples(*train::make_tsv_task("<unk>\tb\n", TokenizerKind::Char))[0].src.size() == 5);
  CHECK(error_of([&] { train::tsv_examples(*train::make_task("copy")); }) ==
        "tsv_examples: the task 'copy' is not a TSV task");
}

#if !defined(__EMSCRIPTEN__)
TEST_CASE("read_text_file: a directory is named as one, not read as an empty file") {
  CHECK(error_of([] { train::read_text_file(ATTNSEQ_TEST_DATA); }) ==
        std::string("cannot read '") + ATTNSEQ_TEST_DATA + "': it is a directory");
  CHECK(error_of([] { train::read_pron_file(ATTNSEQ_TEST_DATA); }) ==
        std::string("cannot read '") + ATTNSEQ_TEST_DATA + "': it is a directory");
}
#endif
