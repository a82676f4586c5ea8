// Whole-model gradient check: d(mean loss)/d(every parameter) from train::forward_backward against
// central differences, on tiny models of every configuration, with padded batches of unequal lengths.
// Also: the training forward's loss equals the inference path's (teacher-forced) log-likelihood.
#include <doctest/doctest.h>

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

std::string describe(const ModelConfig& c) {
  return std::string(to_string(c.cell)) + "/" + to_string(c.style) + "/" + to_string(c.score) +
         (c.bidirectional ? "/bi" : "") + (c.input_feeding ? "/if" : "") + (c.bridge ? "/bridge" : "") + "/L" +
         std::to_string(c.layers);
}

}  // namespace

TEST_CASE("whole-model gradient check, every configuration, padded batch") {
  std::vector<ModelConfig> cfgs;
  for (Cell cell : {Cell::GRU, Cell::LSTM}) {
    cfgs.push_back(tiny(cell, Style::Luong, Score::Dot));
    cfgs.push_back(tiny(cell, Style::Luong, Score::General, false, true));
    cfgs.push_back(tiny(cell, Style::Luong, Score::Additive, true, false, 2, true));
    cfgs.push_back(tiny(cell, Style::Bahdanau, Score::Additive));
    cfgs.push_back(tiny(cell, Style::Bahdanau, Score::Dot, true));
    cfgs.push_back(tiny(cell, Style::None, Score::Dot, false, false, 2));
  }
  const std::vector<std::vector<std::int32_t>> src = {{4, 5, 6, 7}, {8, 4}, {5}};
  const std::vector<std::vector<std::int32_t>> tgt = {{4, 5}, {6, 7, 4}, {5}};
  for (const auto& cfg : cfgs) {
    CAPTURE(describe(cfg));
    Model m(cfg);
    test::randomize(m, 3, 0.8f);
    const auto batch = train::make_batch(src, tgt, cfg);
    std::vector<float> grad(m.params().data.size(), 0.f);
    const auto st = train::forward_backward(m, batch, grad.data());
    CHECK(st.tokens == 3 + 4 + 2);
    auto loss = [&] { return train::forward_backward(m, batch, nullptr).loss_sum / batch.tokens; };
    auto& p = m.params().data;
    double worst = 0;
    std::size_t worst_i = 0;
    const float eps = 1e-2f;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const float keep = p[i];
      p[i] = keep + eps;
      const double lp = loss();
      p[i] = keep - eps;
      const double lm = loss();
      p[i] = keep;
      const double num = (lp - lm) / (2.0 * eps);
      const double err = std::abs(num - grad[i]) / std::max(1e-2, std::abs(num) + std::abs(double(grad[i])));
      if (err > worst) worst = err, worst_i = i;
    }
    std::string where;
    for (std::size_t k = 0; k < m.params().specs.size(); ++k)
      if (m.params().offsets[k] <= worst_i) where = m.params().specs[k].name;
    INFO("worst relative error ", worst, " in ", where);
    CHECK(worst < 5e-3);
  }
}

TEST_CASE("training loss equals the inference path's teacher-forced log-likelihood") {
  for (auto cfg : {tiny(Cell::GRU, Style::Luong, Score::General, true, false, 1, true),
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
