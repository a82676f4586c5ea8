// The trainer learns (loss falls on a copy task within a bounded number of steps), is deterministic
// for a seed, and resumes exactly from saved parameters + optimiser state.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "train/trainer.hpp"

using namespace attnseq;

namespace {

ModelConfig copy_config() {
  ModelConfig c;
  c.src_vocab = c.tgt_vocab = 10;  // specials 0..3, symbols 4..9
  c.src_emb = c.tgt_emb = 16;
  c.enc_hidden = c.dec_hidden = 32;
  return c;
}

train::Pair copy_pair(Rng& rng) {
  const int n = 1 + int(rng.next() % 5);
  std::vector<std::int32_t> s(n);
  for (auto& x : s) x = 4 + int(rng.next() % 6);
  return {s, s};
}

}  // namespace

TEST_CASE("trainer: loss falls on a copy task and the model then copies") {
  Model m(copy_config());
  train::initialize(m, 1);
  train::TrainOptions o;
  o.steps = 300;
  o.warmup = 20;
  o.lr = 1e-2f;
  o.batch_size = 32;
  train::Trainer tr(m, copy_pair, o);
  const double first = tr.step().loss;
  double last = first;
  for (int i = 1; i < o.steps; ++i) last = tr.step().loss;
  MESSAGE("copy task loss " << first << " -> " << last);
  CHECK(first > 1.5);
  CHECK(last < 0.3);
  m.prepare();
  Rng rng(99);
  int exact = 0;
  for (int i = 0; i < 50; ++i) {
    const auto p = copy_pair(rng);
    Encoded enc;
    m.encode(p.first.data(), int(p.first.size()), enc);
    DecodeOptions d;
    auto out = decode(m, enc, d).hypotheses[0].tokens;
    if (!out.empty() && out.back() == m.config().eos) out.pop_back();
    exact += out == p.second;
  }
  CHECK(exact >= 40);
}

TEST_CASE("trainer: deterministic for a seed, and resumes exactly") {
  train::TrainOptions o;
  o.steps = 40;
  o.batch_size = 8;
  auto run = [&](int steps) {
    Model m(copy_config());
    train::initialize(m, 7);
    train::Trainer tr(m, copy_pair, o);
    for (int i = 0; i < steps; ++i) tr.step();
    return std::make_pair(m.params().data, tr.save_state());
  };
  const auto a = run(20), b = run(20);
  CHECK(a.first == b.first);
  // Resume: parameters + state after 10 steps, then 10 more == 20 straight.
  Model m(copy_config());
  train::initialize(m, 7);
  {
    train::Trainer tr(m, copy_pair, o);
    for (int i = 0; i < 10; ++i) tr.step();
    const auto state = tr.save_state();
    const auto ckpt = save_checkpoint(m);
    Model m2 = load_checkpoint(ckpt.data(), ckpt.size());
    train::Trainer tr2(m2, copy_pair, o);
    tr2.load_state(state.data(), state.size());
    CHECK(tr2.steps_done() == 10);
    for (int i = 0; i < 10; ++i) tr2.step();
    CHECK(m2.params().data == a.first);
  }
}

#if !defined(__EMSCRIPTEN__)
TEST_CASE("trainer: threads share a batch, a thread count repeats bit for bit and matches one thread") {
  auto run = [](int threads, int steps) {
    Model m(copy_config());
    train::initialize(m, 5);
    train::TrainOptions o;
    o.steps = steps;
    o.warmup = 2;
    o.lr = 1e-2f;
    o.batch_size = 7;  // shards of unequal size (3 + 4, or 2 + 2 + 3)
    o.threads = threads;
    train::Trainer tr(m, copy_pair, o);
    double loss = 0;
    for (int i = 0; i < steps; ++i) loss = tr.step().loss;
    return std::make_pair(m.params().data, loss);
  };
  const auto one = run(1, 5), two = run(2, 5), two_again = run(2, 5), three = run(3, 5);
  CHECK(two.first == two_again.first);  // deterministic for a seed and a thread count
  CHECK(two.second == two_again.second);
  // The same mathematics: sharded gradients sum to the whole batch's, up to float rounding.
  for (const auto* other : {&two, &three}) {
    double worst = 0;
    for (std::size_t i = 0; i < one.first.size(); ++i)
      worst = std::max(worst, double(std::abs(one.first[i] - other->first[i])));
    CHECK(worst < 1e-4);
    CHECK(other->second == doctest::Approx(one.second).epsilon(1e-5));
  }
}

#endif

TEST_CASE("trainer: a thread count outside [1, 256] is refused, naming it") {
  Model m(copy_config());
  train::TrainOptions o;
  for (int bad : {0, -1, 10000}) {
    o.threads = bad;
    CHECK_THROWS_WITH_AS(train::Trainer(m, copy_pair, o), doctest::Contains("threads"), std::invalid_argument);
  }
#if defined(__EMSCRIPTEN__)
  o.threads = 2;  // the wasm module is single-threaded: more than one thread is refused, naming it
  CHECK_THROWS_WITH_AS(train::Trainer(m, copy_pair, o), doctest::Contains("threads"), std::invalid_argument);
#else
  o.threads = 64;  // more threads than examples: each example is its own shard
  o.batch_size = 3;
  train::Trainer tr(m, copy_pair, o);
  CHECK(tr.step().tokens > 0);
#endif
}
