// Finite-difference checks of every layer's backward pass: the analytic gradient of a random
// linear functional of the layer's outputs against central differences, for each input and weight.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "kernels/kernels.hpp"
#include "nn/layers.hpp"
#include "test_util.hpp"

using namespace attnseq;

namespace {

using test::rnd;

// Compares grad with central differences of loss() w.r.t. every element of x (perturbed in place).
void check_grad(const char* what, std::vector<float>& x, const std::vector<float>& grad,
                const std::function<double()>& loss) {
  REQUIRE(x.size() == grad.size());
  const double worst = test::central_difference_error(x, grad.data(), loss, 1.0).worst;
  INFO(what, " worst relative error ", worst);
  CHECK(worst < 2e-3);
}

double weighted_sum(const std::vector<float>& y, const std::vector<float>& c) {
  double s = 0;
  for (std::size_t i = 0; i < y.size(); ++i) s += double(y[i]) * c[i];
  return s;
}

}  // namespace

TEST_CASE("gradient check: linear") {
  const std::size_t B = 3, M = 5, N = 7;
  auto X = rnd(B * N, 1), W = rnd(M * N, 2), b = rnd(M, 3), C = rnd(B * M, 4);
  auto loss = [&] {
    std::vector<float> Y(B * M);
    nn::linear_forward(X.data(), N, W.data(), b.data(), Y.data(), M, B, M, N);
    return weighted_sum(Y, C);
  };
  std::vector<float> dX(B * N, 0.f), dW(M * N, 0.f), db(M, 0.f);
  nn::linear_backward(X.data(), N, W.data(), C.data(), M, dX.data(), dW.data(), db.data(), B, M, N);
  check_grad("dX", X, dX, loss);
  check_grad("dW", W, dW, loss);
  check_grad("db", b, db, loss);
}

TEST_CASE("gradient check: GRU and LSTM cells") {
  for (Cell cell : {Cell::GRU, Cell::LSTM}) {
    CAPTURE(to_string(cell));
    const std::size_t B = 2, H = 6, G = cell == Cell::GRU ? 3 : 4;
    auto gi0 = rnd(B * G * H, 5), h0 = rnd(B * H, 6), c0 = rnd(B * H, 7);
    auto Whh = rnd(G * H * H, 8, 0.7f), bhh = rnd(G * H, 9), Ch = rnd(B * H, 10), Cc = rnd(B * H, 11);
    nn::RnnWeights w;
    w.cell = cell;
    w.hidden = int(H);
    w.in = 0;
    auto run = [&](std::vector<float>& gates, std::vector<float>& gh, std::vector<float>& h, std::vector<float>& c) {
      w.hh.w = Whh.data();
      w.hh.b = bhh.data();
      gates = gi0;
      gh.assign(B * G * H, 0.f);
      h = h0;
      c = c0;
      nn::cell_forward(w, gates.data(), gh.data(), h.data(), c.data(), B);
    };
    auto loss = [&] {
      std::vector<float> gates, gh, h, c;
      run(gates, gh, h, c);
      return weighted_sum(h, Ch) + (cell == Cell::LSTM ? weighted_sum(c, Cc) : 0.0);
    };
    std::vector<float> gates, gh, h, c;
    run(gates, gh, h, c);
    std::vector<float> dh = Ch, dc = Cc, dgi(B * G * H, 0.f), dW(G * H * H, 0.f), db(G * H, 0.f), scratch(B * G * H);
    if (cell == Cell::GRU)
      nn::gru_cell_backward(w, gates.data(), gh.data(), h0.data(), dh.data(), dgi.data(), dW.data(), db.data(),
                            scratch.data(), B);
    else
      nn::lstm_cell_backward(w, gates.data(), h0.data(), c0.data(), c.data(), dh.data(), dc.data(), dgi.data(),
                             dW.data(), db.data(), B);
    check_grad("d input projection", gi0, dgi, loss);
    check_grad("dh_prev", h0, dh, loss);
    if (cell == Cell::LSTM) check_grad("dc_prev", c0, dc, loss);
    check_grad("dW_hh", Whh, dW, loss);
    check_grad("db_hh", bhh, db, loss);
  }
}

TEST_CASE("GRU and LSTM cells from a zero state: skipping the recurrent product (h_zero) changes nothing") {
  // An encoder's first step starts from h = 0, where h W_hh^T is 0 and the product is skipped.
  for (Cell cell : {Cell::GRU, Cell::LSTM})
    for (bool bias : {true, false}) {
      CAPTURE(to_string(cell));
      CAPTURE(bias);
      const std::size_t B = 3, H = 7, G = cell == Cell::GRU ? 3 : 4;
      auto gi0 = rnd(B * G * H, 21), Whh = rnd(G * H * H, 22), bhh = rnd(G * H, 23);
      nn::RnnWeights w;
      w.cell = cell;
      w.hidden = int(H);
      w.hh.w = Whh.data();
      w.hh.b = bias ? bhh.data() : nullptr;
      std::vector<float> out[2], gates[2];
      for (int skip : {0, 1}) {
        gates[skip] = gi0;
        std::vector<float> gh(B * G * H, 99.f), c(B * H, 0.f);
        out[skip].assign(B * H, 0.f);
        nn::cell_forward(w, gates[skip].data(), gh.data(), out[skip].data(), c.data(), B, skip == 1);
        if (cell == Cell::LSTM) out[skip].insert(out[skip].end(), c.begin(), c.end());
      }
      CHECK(out[1] == out[0]);
      CHECK(gates[1] == gates[0]);  // the gate activations training keeps
      CHECK(std::any_of(out[0].begin(), out[0].end(), [](float v) { return v != 0.f; }));
    }
}

TEST_CASE("gradient check: attention (dot, general keys, additive with and without a query bias)") {
  for (int variant : {0, 1, 2}) {
    const Score score = variant == 0 ? Score::Dot : Score::Additive;
    const bool query_bias = variant == 2;
    CAPTURE(to_string(score));
    CAPTURE(query_bias);
    const std::size_t T = 5, valid = 4, Hd = 6, Ho = 7, A = 3;
    const std::size_t Kd = score == Score::Additive ? A : Hd;  // dot/general keys live in Hd
    auto q = rnd(Hd, 12), keys = rnd(T * Kd, 13), values = rnd(T * Ho, 14), Wq = rnd(A * Hd, 15), v = rnd(A, 16);
    auto bq = rnd(A, 19);
    auto Cc = rnd(Ho, 17), Cw = rnd(T, 18);
    nn::AttentionWeights a;
    a.score = score;
    a.attn_dim = int(A);
    auto forward = [&](std::vector<float>& w, std::vector<float>& ctx, std::vector<float>& u) {
      a.query.w = Wq.data();
      a.query.b = query_bias ? bq.data() : nullptr;
      a.v = v.data();
      std::vector<float> s(T), scratch(A + T * A);
      nn::attention_scores(a, q.data(), 1, Hd, keys.data(), T, s.data(), scratch.data());
      u.assign(scratch.begin() + A, scratch.end());  // additive leaves tanh(W_q q + k_t) here
      w = s;
      kernels::masked_softmax(w.data(), T, valid);
      ctx.assign(Ho, 0.f);
      nn::attention_context(w.data(), 1, values.data(), T, Ho, ctx.data());
    };
    auto loss = [&] {
      std::vector<float> w, ctx, u;
      forward(w, ctx, u);
      return weighted_sum(ctx, Cc) + weighted_sum(w, Cw);  // weights are an output too (the demo shows them)
    };
    std::vector<float> w, ctx, u;
    forward(w, ctx, u);
    std::vector<float> dq(Hd, 0.f), dk(T * Kd, 0.f), dvals(T * Ho, 0.f), dWq(A * Hd, 0.f), dbq(A, 0.f), dv(A, 0.f),
        scratch(2 * T + A);
    nn::attention_backward(a, q.data(), Hd, keys.data(), Kd, values.data(), Ho, w.data(), u.data(), T, valid, Cc.data(),
                           Cw.data(), dvals.data(), dk.data(), dq.data(), dWq.data(), query_bias ? dbq.data() : nullptr,
                           dv.data(), scratch.data());
    check_grad("dq", q, dq, loss);
    check_grad("dkeys", keys, dk, loss);
    check_grad("dvalues", values, dvals, loss);
    if (score == Score::Additive) {
      check_grad("dW_q", Wq, dWq, loss);
      check_grad("dv", v, dv, loss);
    }
    if (query_bias) {
      check_grad("db_q", bq, dbq, loss);
      CHECK(std::any_of(dbq.begin(), dbq.end(), [](float g) { return g != 0.f; }));
    }
  }
}
