// Whole-model gradient check: d(mean loss)/d(every parameter) from train::forward_backward against
// central differences, on tiny models of every configuration, with padded batches of unequal lengths.
// Also: the training forward's loss equals the inference path's (teacher-forced) log-likelihood.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "decode/decode.hpp"
#include "test_util.hpp"
#include "train/backprop.hpp"

using namespace attnseq;

namespace {

ModelConfig tiny(Cell cell, Style style, Score score, bool bidir = false, bool feed = false, int layers = 1,
                 bool bridge = false) {
  ModelConfig c = test::small_config(cell, style, score, bidir, feed, layers, bridge);
  c.src_vocab = 9;
  c.tgt_vocab = 8;
  c.src_emb = 3;
  c.tgt_emb = 4;
  c.enc_hidden = bidir ? 3 : 5;
  c.dec_hidden = bidir && !bridge ? 6 : 5;
  if (bridge) c.enc_hidden = 4, c.dec_hidden = 5;
  c.attn_dim = 3;
  return c;
}

using test::describe;

// Worst relative error of forward_backward's gradient of the mean objective against central
// differences, and the parameter it is in.
std::pair<double, std::string> gradient_error(Model& m, const train::Batch& batch, const train::ForwardOptions& fo) {
  std::vector<float> grad(m.params().data.size(), 0.f);
  train::forward_backward(m, batch, grad.data(), fo);
  auto loss = [&] { return train::forward_backward(m, batch, nullptr, fo).objective_sum / batch.tokens; };
  const auto e = test::central_difference_error(m.params().data, grad.data(), loss, 1e-2);
  const double worst = e.worst;
  const std::size_t worst_i = e.at;
  std::string where;
  for (std::size_t k = 0; k < m.params().specs.size(); ++k)
    if (m.params().offsets[k] <= worst_i) where = m.params().specs[k].name;
  return {worst, where};
}

const std::vector<std::vector<std::int32_t>> kSrc = {{4, 5, 6, 7}, {8, 4}, {5}};
const std::vector<std::vector<std::int32_t>> kTgt = {{4, 5}, {6, 7, 4}, {5}};

}  // namespace

TEST_CASE("whole-model gradient check, every configuration, padded batch") {
  for (const auto& cfg : test::covering_configs(tiny)) {
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 3, 0.8f);
    const auto batch = train::make_batch(kSrc, kTgt, cfg);
    const auto st = train::forward_backward(m, batch, nullptr);
    CHECK(st.tokens == 3 + 4 + 2);
    CHECK(st.objective_sum == st.loss_sum);         // no label smoothing: the objective is the loss
    const auto err = gradient_error(m, batch, {});  // (clang 14 cannot capture structured bindings)
    INFO("worst relative error ", err.first, " in ", err.second);
    CHECK(err.first < 5e-3);
  }
}

TEST_CASE("whole-model gradient check with a bias on the additive attention's query projection") {
  for (const auto& base :
       {tiny(Cell::GRU, Style::Luong, Score::Additive, true), tiny(Cell::LSTM, Style::Bahdanau, Score::Additive)}) {
    ModelConfig cfg = base;
    cfg.attn_query_bias = true;
    CAPTURE(describe(cfg));
    Model m(cfg);
    REQUIRE(m.params().find("decoder.attention.query.bias") != nullptr);
    test::randomize(m, 5, 0.8f);
    const auto batch = train::make_batch(kSrc, kTgt, cfg);
    const auto err = gradient_error(m, batch, {});
    INFO("worst relative error ", err.first, " in ", err.second);
    CHECK(err.first < 5e-3);
  }
}

TEST_CASE("whole-model gradient check with tied target embeddings (the output layer's weight is the embedding)") {
  // Both uses of the shared matrix add into its gradient: checked with and without dropout, smoothing.
  for (const auto& base :
       {tiny(Cell::GRU, Style::Luong, Score::General, true, true), tiny(Cell::LSTM, Style::Bahdanau, Score::Additive),
        tiny(Cell::GRU, Style::None, Score::Dot)}) {
    ModelConfig cfg = base;
    cfg.tgt_emb = cfg.dec_hidden;
    cfg.tie_embeddings = true;
    CAPTURE(describe(cfg));
    Model m(cfg);
    CHECK(m.params().find("decoder.out.weight") == nullptr);
    test::randomize(m, 4, 0.8f);
    const auto batch = train::make_batch(kSrc, kTgt, cfg);
    for (const train::ForwardOptions& fo : {train::ForwardOptions{}, train::ForwardOptions{0.3f, 0.1f, 77}}) {
      const auto err = gradient_error(m, batch, fo);
      INFO("worst relative error ", err.first, " in ", err.second);
      CHECK(err.first < 5e-3);
    }
  }
}

TEST_CASE("gradient check with dropout and label smoothing, every configuration") {
  // Masks depend only on the seed, so the finite differences see the same masks as the gradient.
  const train::ForwardOptions fo{0.3f, 0.1f, 77};
  for (const auto& cfg : test::covering_configs(tiny)) {
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 3, 0.8f);
    const auto batch = train::make_batch(kSrc, kTgt, cfg);
    const auto plain = train::forward_backward(m, batch, nullptr);
    const auto dropped = train::forward_backward(m, batch, nullptr, fo);
    CHECK(dropped.loss_sum != plain.loss_sum);         // dropout changed the forward pass
    CHECK(dropped.objective_sum != dropped.loss_sum);  // smoothing changed the objective
    const auto err = gradient_error(m, batch, fo);     // (clang 14 cannot capture structured bindings)
    INFO("worst relative error ", err.first, " in ", err.second);
    CHECK(err.first < 5e-3);
  }
}

// Token-level distillation: soft targets (a teacher's distributions) in the (Tt B, V) layout that
// probs_out writes, so a teacher's forward gives a student's targets directly.
static std::vector<float> teacher_probs(const ModelConfig& cfg, std::uint64_t seed, const train::Batch& batch) {
  Model t(cfg);
  test::randomize(t, seed, 1.2f);
  std::vector<float> q(std::size_t(batch.Tt) * batch.B * cfg.tgt_vocab, -1.f);
  train::ForwardOptions fo;
  fo.probs_out = q.data();
  train::forward_backward(t, batch, nullptr, fo);
  return q;
}

TEST_CASE("gradient check with soft targets (token-level distillation), every configuration") {
  for (const auto& cfg : test::covering_configs(tiny)) {
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 3, 0.8f);
    const auto batch = train::make_batch(kSrc, kTgt, cfg);
    const auto q = teacher_probs(cfg, 11, batch);
    for (const float a : {0.5f, 1.f}) {
      CAPTURE(a);
      train::ForwardOptions fo{0.3f, 0.1f, 77};
      fo.soft_targets = q.data();
      fo.soft_weight = a;
      const auto err = gradient_error(m, batch, fo);
      INFO("worst relative error ", err.first, " in ", err.second);
      CHECK(err.first < 5e-3);
    }
  }
}

TEST_CASE("soft targets: probs_out writes each real token's distribution, the objective is the mixed cross-entropy") {
  const auto cfg = tiny(Cell::GRU, Style::Luong, Score::General, true, true);
  Model m(cfg);
  test::randomize(m, 3, 0.8f);
  const auto batch = train::make_batch(kSrc, kTgt, cfg);
  const std::size_t V = cfg.tgt_vocab, B = batch.B;
  // The model's own distributions: each real token's row sums to 1, padded rows are untouched, and
  // the model's cross-entropy against its own distribution (weight 1) is its entropy, less than its
  // loss on the reference here.
  const auto own = [&] {
    std::vector<float> q(std::size_t(batch.Tt) * B * V, -1.f);
    train::ForwardOptions fo;
    fo.probs_out = q.data();
    train::forward_backward(m, batch, nullptr, fo);
    return q;
  }();
  int real = 0;
  for (std::size_t k = 0; k < std::size_t(batch.Tt); ++k)
    for (std::size_t b = 0; b < B; ++b) {
      const float* row = &own[(k * B + b) * V];
      if (batch.tgt_out[k * B + b] < 0) {
        CHECK(row[0] == -1.f);
        continue;
      }
      ++real;
      double sum = 0;
      float least = 1.f;
      for (std::size_t v = 0; v < V; ++v) sum += row[v], least = std::min(least, row[v]);
      CHECK(least >= 0.f);
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  CHECK(real == batch.tokens);
  const auto plain = train::forward_backward(m, batch, nullptr);
  train::ForwardOptions fo;
  fo.soft_targets = own.data();
  fo.soft_weight = 1.f;
  const auto self = train::forward_backward(m, batch, nullptr, fo);
  CHECK(self.loss_sum == plain.loss_sum);  // the reported loss stays the reference's
  CHECK(self.objective_sum < plain.loss_sum);
  // Weight a mixes the two: (1 - a) reference + a soft.
  fo.soft_weight = 0.25f;
  const auto mixed = train::forward_backward(m, batch, nullptr, fo);
  CHECK(mixed.objective_sum == doctest::Approx(0.75 * plain.objective_sum + 0.25 * self.objective_sum).epsilon(1e-6));
  // Weight 0 with targets given is the plain objective and gradient, bit for bit.
  std::vector<float> g0(m.params().data.size(), 0.f), g1(g0);
  train::forward_backward(m, batch, g0.data());
  fo.soft_weight = 0.f;
  train::forward_backward(m, batch, g1.data(), fo);
  CHECK(g0 == g1);
  // A weight out of range, or a weight without targets, is refused by name.
  fo.soft_weight = 1.5f;
  CHECK_THROWS_WITH(train::forward_backward(m, batch, nullptr, fo), doctest::Contains("soft_weight"));
  fo.soft_weight = 0.5f;
  fo.soft_targets = nullptr;
  CHECK_THROWS_WITH(train::forward_backward(m, batch, nullptr, fo), doctest::Contains("soft_targets"));
}

TEST_CASE("dropout: zero is the plain model, a seed fixes the masks, the scale keeps the mean") {
  const auto cfg = tiny(Cell::GRU, Style::Luong, Score::General, true, true, 2, true);
  Model m(cfg);
  test::randomize(m, 3, 0.8f);
  const auto batch = train::make_batch(kSrc, kTgt, cfg);
  std::vector<float> g0(m.params().data.size(), 0.f), g1(g0), g2(g0), g3(g0);
  const auto a = train::forward_backward(m, batch, g0.data());
  const auto b = train::forward_backward(m, batch, g1.data(), {0.f, 0.f, 123});
  CHECK(a.loss_sum == b.loss_sum);
  CHECK(g0 == g1);
  const auto c1 = train::forward_backward(m, batch, g2.data(), {0.5f, 0.f, 9});
  const auto c2 = train::forward_backward(m, batch, g3.data(), {0.5f, 0.f, 9});
  CHECK(c1.loss_sum == c2.loss_sum);
  CHECK(g2 == g3);
  CHECK(train::forward_backward(m, batch, nullptr, {0.5f, 0.f, 10}).loss_sum != c1.loss_sum);
  // Label smoothing alone leaves the forward pass (and so the loss) as it was.
  const auto s = train::forward_backward(m, batch, nullptr, {0.f, 0.2f, 0});
  CHECK(s.loss_sum == a.loss_sum);
  CHECK(s.objective_sum > s.loss_sum * 0.8);
  // Inverted dropout keeps the mean: averaged over seeds, a dropped loss is near the plain one.
  double mean = 0;
  for (int seed = 1; seed <= 200; ++seed)
    mean += train::forward_backward(m, batch, nullptr, {0.1f, 0.f, std::uint64_t(seed)}).loss_sum;
  mean /= 200;
  CHECK(mean == doctest::Approx(a.loss_sum).epsilon(0.05));
}

TEST_CASE("dropout and label smoothing out of range are refused, naming the option") {
  const auto cfg = tiny(Cell::GRU, Style::Luong, Score::Dot);
  Model m(cfg);
  const auto batch = train::make_batch(kSrc, kTgt, cfg);
  CHECK_THROWS_WITH(train::forward_backward(m, batch, nullptr, {1.f, 0.f, 0}), doctest::Contains("dropout"));
  CHECK_THROWS_WITH(train::forward_backward(m, batch, nullptr, {-0.1f, 0.f, 0}), doctest::Contains("dropout"));
  CHECK_THROWS_WITH(train::forward_backward(m, batch, nullptr, {0.f, 1.5f, 0}), doctest::Contains("label_smoothing"));
  CHECK_THROWS_WITH(train::forward_backward(m, batch, nullptr, {0.f, NAN, 0}), doctest::Contains("label_smoothing"));
}

TEST_CASE("training loss equals the inference path's teacher-forced log-likelihood") {
  for (auto cfg : {tiny(Cell::GRU, Style::Luong, Score::General, true, false, 1, true),
                   tiny(Cell::GRU, Style::Luong, Score::General, true, true, 1, true),  // input feeding
                   tiny(Cell::LSTM, Style::Luong, Score::Dot, false, true, 2),
                   tiny(Cell::LSTM, Style::Bahdanau, Score::Additive, false, false, 2)}) {
    Model m(cfg);
    test::randomize(m, 5, 0.8f);
    const std::vector<std::int32_t> src = {4, 5, 6}, tgt = {7, 4, 5};
    const auto batch = train::make_batch({src}, {tgt}, cfg);
    const double train_loss = train::forward_backward(m, batch, nullptr).loss_sum;
    Encoded enc;
    m.encode(src.data(), 3, enc);
    DecodeOptions o;
    o.max_length = 10;
    Session s(m, enc, o);
    double nll = 0;
    for (auto y : {7, 4, 5, int(cfg.eos)}) nll -= s.step(y).log_prob;
    CHECK(train_loss == doctest::Approx(nll).epsilon(1e-4));
  }
}

// Padding changes nothing: a batch's loss and gradient are its examples' taken alone (the encoder and
// the decoder drop a row once its sequence ends, in an order unrelated to the batch's).
TEST_CASE("a padded batch gives each example what it gives alone: loss and gradient, every configuration") {
  const std::vector<std::vector<std::int32_t>> src = {{4, 5}, {8, 4, 6, 7, 5}, {5}, {6, 7, 8}};
  const std::vector<std::vector<std::int32_t>> tgt = {{4, 5, 6, 7}, {6}, {5, 4}, {7, 7, 4}};
  for (const auto& cfg : test::covering_configs(tiny)) {
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 11, 0.8f);
    const std::size_t n = m.params().data.size();
    const auto batch = train::make_batch(src, tgt, cfg);
    std::vector<float> grad(n, 0.f), sum(n, 0.f);
    const auto all = train::forward_backward(m, batch, grad.data());
    double loss = 0;
    int correct = 0;
    for (std::size_t i = 0; i < src.size(); ++i) {
      const auto one = train::make_batch({src[i]}, {tgt[i]}, cfg);
      std::vector<float> g(n, 0.f);
      const auto st = train::forward_backward(m, one, g.data());
      loss += st.loss_sum;
      correct += st.correct;
      for (std::size_t k = 0; k < n; ++k) sum[k] += g[k] * float(one.tokens);  // gradients of sums, not means
    }
    CHECK(all.loss_sum == doctest::Approx(loss).epsilon(1e-6));
    CHECK(all.correct == correct);
    double worst = 0;
    for (std::size_t k = 0; k < n; ++k)
      worst = std::max(worst, std::abs(double(grad[k]) * batch.tokens - sum[k]) / (1e-3 + std::abs(double(sum[k]))));
    CHECK(worst < 1e-4);
  }
}

TEST_CASE("gradient check at sizes that fill the SIMD tiles (sampled parameters)") {
  // The tiny models above exercise only the kernels' scalar tails; here every product has full
  // register tiles on every arch (hidden 40: 120 and 160 gate rows, 80 encoder outputs).
  for (Cell cell : {Cell::GRU, Cell::LSTM}) {
    ModelConfig c = test::small_config(cell, Style::Luong, Score::General, true, true, 1, true);
    c.src_vocab = 30, c.tgt_vocab = 25, c.src_emb = 24, c.tgt_emb = 20, c.enc_hidden = 40, c.dec_hidden = 40;
    c.attn_dim = 16;
    CAPTURE(describe(c));
    Model m(c);
    test::randomize(m, 11, 0.3f);
    Rng rng(5);
    std::vector<std::vector<std::int32_t>> src, tgt;
    for (int b = 0; b < 9; ++b) {
      std::vector<std::int32_t> s(2 + rng.next() % 11), t(1 + rng.next() % 9);
      for (auto& x : s) x = 4 + std::int32_t(rng.next() % 26);
      for (auto& x : t) x = 4 + std::int32_t(rng.next() % 21);
      src.push_back(s), tgt.push_back(t);
    }
    const auto batch = train::make_batch(src, tgt, c);
    const train::ForwardOptions fo{0.2f, 0.1f, 3};
    std::vector<float> grad(m.params().data.size(), 0.f);
    train::forward_backward(m, batch, grad.data(), fo);
    auto loss = [&] { return train::forward_backward(m, batch, nullptr, fo).objective_sum / batch.tokens; };
    const double worst =
        test::central_difference_error(m.params().data, grad.data(), loss, 1e-3, 3e-3f, 300, rng.next()).worst;
    INFO("worst relative error ", worst);  // float32 differences: ~1.5e-2 seen; a wrong term gives ~1
    CHECK(worst < 5e-2);
  }
}
