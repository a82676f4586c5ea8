// The epoch trainer (src/train/epochs.hpp): batches hold every pair once, of similar lengths, in an order
// per seed and epoch; the caller's-batch step is the sampler's; a run continued from a saved state (work
// lost after the save, as in a kill) ends bit for bit as the uninterrupted one; epochs without a better
// dev figure scale the rate and `patience` of them stop the run; a state from another run is refused and
// changes nothing. Tiny models, so every build runs it fast.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include "train/epochs.hpp"

using namespace attnseq;
using train::Ids;

namespace {

ModelConfig tiny_config() {
  ModelConfig c;
  c.src_vocab = c.tgt_vocab = 10;  // specials 0..3, symbols 4..9
  c.src_emb = c.tgt_emb = 8;
  c.enc_hidden = c.dec_hidden = 12;
  return c;
}

// Copy pairs of lengths 1..max_len from a seed.
std::vector<train::Pair> copy_pairs(std::size_t n, std::uint64_t seed, int max_len = 6) {
  Rng rng(seed);
  std::vector<train::Pair> v;
  for (std::size_t i = 0; i < n; ++i) {
    Ids s(1 + rng.next() % std::uint64_t(max_len));
    for (auto& x : s) x = 4 + std::int32_t(rng.next() % 6);
    v.push_back({s, s});
  }
  return v;
}

std::vector<train::RefItem> copy_dev(std::size_t n, std::uint64_t seed) {
  std::vector<train::RefItem> d;
  for (auto& p : copy_pairs(n, seed)) d.push_back({p.first, {p.second}});
  return d;
}

std::vector<std::size_t> flatten(const std::vector<std::vector<std::size_t>>& batches) {
  std::vector<std::size_t> v;
  for (const auto& b : batches) v.insert(v.end(), b.begin(), b.end());
  return v;
}

// Mean over batches of (longest - shortest source).
double mean_spread(const std::vector<train::Pair>& pairs, const std::vector<std::vector<std::size_t>>& batches) {
  double sum = 0;
  for (const auto& b : batches) {
    std::size_t lo = 1u << 30, hi = 0;
    for (auto i : b) lo = std::min(lo, pairs[i].first.size()), hi = std::max(hi, pairs[i].first.size());
    sum += double(hi - lo);
  }
  return sum / double(batches.size());
}

train::TrainOptions tiny_options(int threads = 1) {
  train::TrainOptions o;
  o.batch_size = 4;
  o.lr = 1e-2f;
  o.warmup = 3;
  o.seed = 5;
  o.dropout = 0.2f;
  o.label_smoothing = 0.1f;
  o.threads = threads;
  return o;
}

train::EpochOptions tiny_epochs() {
  train::EpochOptions e;
  e.epochs = 3;
  e.patience = 0;
  e.bucket = 2;
  return e;
}

struct Run {
  std::vector<float> params, best;
  std::vector<std::uint8_t> state;
  std::vector<train::DevCounts> devs;  // per epoch
  int best_epoch = 0;
};

void finish(train::EpochTrainer& et, Model& m, Run& r) {
  while (!et.finished()) {
    const auto o = et.advance();
    if (o.ended) r.devs.push_back(o.epoch.dev);
  }
  r.params = m.params().data;
  r.best = et.best_params();
  r.state = et.save_state();
  r.best_epoch = et.best_epoch();
}

}  // namespace

TEST_CASE("epochs: every pair exactly once per epoch, full batches but the last, an order per seed and epoch") {
  const auto pairs = copy_pairs(103, 1, 12);
  const auto e0 = train::epoch_batches(pairs, 8, 4, 7, 0);
  for (int epoch : {0, 1, 2}) {
    const auto b = train::epoch_batches(pairs, 8, 4, 7, epoch);
    REQUIRE(b.size() == 13);  // ceil(103 / 8)
    int short_batches = 0;
    for (const auto& x : b) {
      CHECK(x.size() >= 1);
      CHECK(x.size() <= 8);
      short_batches += x.size() != 8;
    }
    CHECK(short_batches == 1);  // the 7 left over
    auto all = flatten(b);
    std::sort(all.begin(), all.end());
    std::vector<std::size_t> want(pairs.size());
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = i;
    CHECK(all == want);
    // The same seed and epoch give the same batches; another epoch or seed, another order.
    CHECK(train::epoch_batches(pairs, 8, 4, 7, epoch) == b);
    if (epoch) CHECK(flatten(b) != flatten(e0));
  }
  CHECK(flatten(train::epoch_batches(pairs, 8, 4, 8, 0)) != flatten(e0));
  CHECK_THROWS_AS(train::epoch_batches(pairs, 0, 4, 7, 0), std::invalid_argument);
  CHECK_THROWS_AS(train::epoch_batches(pairs, 8, 0, 7, 0), std::invalid_argument);
}

TEST_CASE("epochs: bucketing puts sources of similar length together") {
  const auto pairs = copy_pairs(400, 2, 12);
  // One chunk holding the whole epoch: the batches are consecutive runs of the sorted lengths, so
  // each batch's longest source is no longer than the next batch's shortest.
  const auto one = train::epoch_batches(pairs, 10, 1000, 3, 0);
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (const auto& b : one) {
    std::size_t lo = 99, hi = 0;
    for (auto i : b) lo = std::min(lo, pairs[i].first.size()), hi = std::max(hi, pairs[i].first.size());
    ranges.push_back({lo, hi});
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t k = 1; k < ranges.size(); ++k) CHECK(ranges[k - 1].second <= ranges[k].first);
  // Chunks of 5 batches: much tighter batches than no bucketing (random lengths 1..12).
  const double none = mean_spread(pairs, train::epoch_batches(pairs, 10, 1, 3, 0));
  const double five = mean_spread(pairs, train::epoch_batches(pairs, 10, 5, 3, 0));
  MESSAGE("mean length spread per batch: " << none << " unbucketed, " << five << " in chunks of 5 batches");
  CHECK(none > 7.0);
  CHECK(five < none / 2);
  // The batch order is shuffled: the epoch does not run from short to long.
  std::vector<std::size_t> mins;
  for (const auto& b : one) {
    std::size_t lo = 99;
    for (auto i : b) lo = std::min(lo, pairs[i].first.size());
    mins.push_back(lo);
  }
  CHECK_FALSE(std::is_sorted(mins.begin(), mins.end()));
}

TEST_CASE("epochs: a step on the caller's batch is the sampler's step, bit for bit") {
  const auto pairs = copy_pairs(8, 3);
  auto o = tiny_options();
  o.batch_size = int(pairs.size());
  Model a(tiny_config()), b(tiny_config());
  train::initialize(a, 1);
  train::initialize(b, 1);
  std::size_t next = 0;
  train::Trainer ta(
      a, [&](Rng&) { return pairs[next++ % pairs.size()]; }, o);
  train::Trainer tb(b, train::Sampler{}, o);
  std::vector<Ids> src, tgt;
  for (const auto& p : pairs) src.push_back(p.first), tgt.push_back(p.second);
  for (int s = 0; s < 3; ++s) {
    const auto ra = ta.step();
    const auto rb = tb.step(src, tgt);
    CHECK(ra.loss == rb.loss);
    CHECK(ra.lr == rb.lr);
  }
  CHECK(a.params().data == b.params().data);
  CHECK_THROWS_AS(tb.step(), std::logic_error);  // no sampler: batches must be passed
  CHECK_THROWS_AS(tb.step({}, {}), std::invalid_argument);
  // A batch smaller than the thread count (the short last batch of an epoch) still trains.
#if !defined(__EMSCRIPTEN__)
  o.threads = 4;
  train::Trainer tc(b, train::Sampler{}, o);
  CHECK(tc.step({src[0], src[1]}, {tgt[0], tgt[1]}).tokens == int(tgt[0].size() + tgt[1].size() + 2));
#endif
}

namespace {

// An uninterrupted run, and runs continued from a state saved after `saved_at` steps, with `lost`
// more steps done and thrown away (what a kill between two saves costs).
void check_resume(int threads) {
  const auto pairs = copy_pairs(38, 4);  // 10 batches of 4 per epoch, the last one of 2
  const auto dev = copy_dev(9, 5);
  Run full;
  {
    Model m(tiny_config());
    train::initialize(m, 9);
    train::EpochTrainer et(m, pairs, dev, tiny_options(threads), tiny_epochs());
    CHECK(et.batches_per_epoch() == 10);
    finish(et, m, full);
  }
  CHECK(full.devs.size() == 3);
  for (const int saved_at : {10, 14, 29}) {  // an epoch's end, the middle of epoch 2, before the last step
    CAPTURE(saved_at);
    std::vector<std::uint8_t> state;
    {
      Model m(tiny_config());
      train::initialize(m, 9);
      train::EpochTrainer et(m, pairs, dev, tiny_options(threads), tiny_epochs());
      while (et.steps_done() < saved_at) et.advance();
      state = et.save_state();
      for (int lost = 0; lost < 3 && !et.finished(); ++lost) et.advance();
    }
    Run resumed;
    Model m(tiny_config());
    train::initialize(m, 123);  // other weights: the state must replace them all
    train::EpochTrainer et(m, pairs, dev, tiny_options(threads), tiny_epochs());
    et.load_state(state.data(), state.size());
    CHECK(et.steps_done() == saved_at);
    CHECK(et.epoch() == saved_at / 10);
    CHECK(et.batch() == saved_at % 10);
    finish(et, m, resumed);
    CHECK(resumed.params == full.params);
    CHECK(resumed.best == full.best);
    CHECK(resumed.best_epoch == full.best_epoch);
    CHECK(resumed.state == full.state);
    // The epochs evaluated after the resume score what the uninterrupted run scored.
    const std::size_t first = std::size_t(saved_at / 10);
    REQUIRE(resumed.devs.size() == full.devs.size() - first);
    for (std::size_t k = 0; k < resumed.devs.size(); ++k) {
      CHECK(resumed.devs[k] == full.devs[first + k]);
    }
  }
}

}  // namespace

TEST_CASE("epochs: a run continued from its saved state ends bit for bit as the uninterrupted run") { check_resume(1); }

#if !defined(__EMSCRIPTEN__)
TEST_CASE("epochs: the same with two threads sharing each batch") { check_resume(2); }
#endif

TEST_CASE("epochs: the best epoch's weights are kept, and they score what was reported") {
  const auto pairs = copy_pairs(60, 6);
  const auto dev = copy_dev(12, 7);
  Model m(tiny_config());
  train::initialize(m, 2);
  auto e = tiny_epochs();
  e.epochs = 4;
  train::EpochTrainer et(m, pairs, dev, tiny_options(), e);
  CHECK(et.best_params().empty());
  std::vector<train::EpochResult> results;
  while (!et.finished()) {
    const auto o = et.advance();
    if (o.ended) results.push_back(o.epoch);
  }
  REQUIRE(results.size() == 4);
  CHECK(results[0].improved);  // the first epoch is the best so far by definition
  CHECK(results.back().stop);
  long best = -1;
  int best_epoch = 0;
  for (const auto& r : results)
    if (r.improved) {
      const auto dev_report = train::wer_report(r.dev);
      CHECK((best < 0 || dev_report.errors <= best));
      best = dev_report.errors, best_epoch = r.epoch;
    }
  CHECK(et.best_epoch() == best_epoch);
  const auto best_report = train::wer_report(et.best_dev());
  CHECK(best_report.errors == best);
  Model b(tiny_config());
  b.params().data = et.best_params();
  b.prepare();
  const auto again = train::evaluate_refs(b, dev, e.eval_beam, 1);
  CHECK(again.errors == best_report.errors);
  CHECK(again.edits == best_report.edits);
  CHECK(again.ref_tokens == best_report.ref_tokens);
}

TEST_CASE("epochs: an epoch without a better dev figure scales the rate, and patience stops the run") {
  const auto pairs = copy_pairs(12, 8);
  const auto dev = copy_dev(6, 9);
  auto o = tiny_options();
  o.warmup = 0;
  o.lr = 1e-20f;  // steps too small to move a float weight: every epoch decodes the same outputs
  auto e = tiny_epochs();
  e.epochs = 10;
  e.patience = 2;
  e.lr_decay = 0.5;
  Model m(tiny_config());
  train::initialize(m, 3);
  train::EpochTrainer et(m, pairs, dev, o, e);
  std::vector<train::EpochResult> results;
  std::vector<double> rates;  // the rate of each epoch's first step
  std::vector<std::uint8_t> after_two;
  while (!et.finished()) {
    const auto r = et.advance();
    if (et.batch() == 1) rates.push_back(r.step.lr);
    if (r.ended) results.push_back(r.epoch);
    if (r.ended && results.size() == 2) after_two = et.save_state();
  }
  REQUIRE(results.size() == 3);  // 1 best + 2 without improvement
  CHECK(results[0].improved);
  CHECK_FALSE(results[1].improved);
  CHECK_FALSE(results[2].improved);
  CHECK(results[1].dev == results[0].dev);
  CHECK(results[1].lr_scale == 0.5);
  CHECK(results[2].lr_scale == 0.25);
  CHECK(results[2].stop);
  CHECK(et.stopped_early());
  CHECK(et.epoch() == 3);
  CHECK(et.best_epoch() == 1);
  REQUIRE(rates.size() == 3);
  CHECK(rates[1] == doctest::Approx(rates[0] * 0.5).epsilon(1e-12));
  CHECK(rates[2] == doctest::Approx(rates[0] * 0.25).epsilon(1e-12));
  CHECK_THROWS_AS(et.advance(), std::logic_error);
  // The scale and the count of epochs without improvement are part of the state.
  {
    Model mm(tiny_config());
    train::EpochTrainer mid(mm, pairs, dev, o, e);
    mid.load_state(after_two.data(), after_two.size());
    CHECK(mid.lr_scale() == 0.5);
    CHECK(mid.bad_epochs() == 1);
    CHECK(mid.best_epoch() == 1);
    CHECK(mid.advance().step.lr == doctest::Approx(rates[0] * 0.5).epsilon(1e-12));
  }
  // The stop is part of the state: a continued run is over too.
  const auto state = et.save_state();
  Model m2(tiny_config());
  train::EpochTrainer et2(m2, pairs, dev, o, e);
  et2.load_state(state.data(), state.size());
  CHECK(et2.finished());
  CHECK(et2.stopped_early());
  // Patience 0 runs every epoch.
  e.patience = 0;
  e.epochs = 4;
  Model m3(tiny_config());
  train::initialize(m3, 3);
  train::EpochTrainer et3(m3, pairs, dev, o, e);
  while (!et3.finished()) et3.advance();
  CHECK(et3.epoch() == 4);
  CHECK_FALSE(et3.stopped_early());
  CHECK(et3.bad_epochs() == 3);
}

TEST_CASE("epochs: a state from another run is refused, naming the difference, and changes nothing") {
  const auto pairs = copy_pairs(20, 10);
  const auto dev = copy_dev(5, 11);
  Model m(tiny_config());
  train::initialize(m, 1);
  train::EpochTrainer et(m, pairs, dev, tiny_options(), tiny_epochs());
  for (int i = 0; i < 3; ++i) et.advance();
  const auto state = et.save_state();

  Model m2(tiny_config());
  train::initialize(m2, 2);
  auto refused = [&](train::TrainOptions o, const std::vector<train::Pair>& p, const char* what) {
    CAPTURE(what);
    train::EpochTrainer other(m2, p, dev, o, tiny_epochs());
    const auto before = other.save_state();
    const auto weights = m2.params().data;
    CHECK_THROWS_WITH_AS(other.load_state(state.data(), state.size()), doctest::Contains(what), std::invalid_argument);
    CHECK(other.save_state() == before);
    CHECK(m2.params().data == weights);
  };
  auto o = tiny_options();
  o.seed = 6;
  refused(o, pairs, "seed");
  o = tiny_options();
  o.batch_size = 5;
  refused(o, pairs, "batch size");
  auto changed = pairs;
  changed[7].second.push_back(4);
  refused(tiny_options(), changed, "data fingerprint");
  refused(tiny_options(), copy_pairs(21, 10), "training pairs");
  // Not an epoch trainer's state at all: a plain Trainer's, and garbage.
  train::Trainer plain(m2, train::Sampler{}, tiny_options());
  const auto ps = plain.save_state();
  train::EpochTrainer fresh(m2, pairs, dev, tiny_options(), tiny_epochs());
  CHECK_THROWS_WITH_AS(fresh.load_state(ps.data(), ps.size()), doctest::Contains("format"), std::invalid_argument);
  const std::vector<std::uint8_t> junk(64, 0x41);
  CHECK_THROWS_AS(fresh.load_state(junk.data(), junk.size()), std::invalid_argument);
  // Options out of range are refused, naming them.
  auto e = tiny_epochs();
  e.lr_decay = 0;
  CHECK_THROWS_WITH_AS(train::EpochTrainer(m2, pairs, dev, tiny_options(), e), doctest::Contains("lr_decay"),
                       std::invalid_argument);
  e = tiny_epochs();
  e.epochs = 0;
  CHECK_THROWS_WITH_AS(train::EpochTrainer(m2, pairs, dev, tiny_options(), e), doctest::Contains("epochs"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(train::EpochTrainer(m2, pairs, std::vector<train::RefItem>{}, tiny_options(), tiny_epochs()),
                       doctest::Contains("development"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(train::EpochTrainer(m2, {}, dev, tiny_options(), tiny_epochs()),
                       doctest::Contains("no training pairs"), std::invalid_argument);
}
