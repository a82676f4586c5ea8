// Shared helpers for the doctest suite: test data paths and small random models.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.hpp"

#include "decode/decode.hpp"
#include "model/model.hpp"

#ifndef ATTNSEQ_TEST_DATA
#define ATTNSEQ_TEST_DATA "tests/data"
#endif
#ifndef ATTNSEQ_MODELS_DIR
#define ATTNSEQ_MODELS_DIR "models"
#endif

namespace attnseq::test {

inline std::string data_path(const std::string& rel) { return std::string(ATTNSEQ_TEST_DATA) + "/" + rel; }
// The shipped models' folder (models/), where the build says it is.
inline std::string models_dir() { return ATTNSEQ_MODELS_DIR; }

// Fills every parameter with uniform(-scale, scale) from a seed, then re-derives the inference tables.
inline void randomize(Model& m, unsigned seed, float scale = 0.5f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  for (auto& x : m.params().data) x = d(g);
  m.prepare();
}

inline ModelConfig small_config(Cell cell, Style style, Score score, bool bidir = false, bool feed = false,
                                int layers = 1, bool bridge = false) {
  ModelConfig c;
  c.cell = cell;
  c.style = style;
  c.score = score;
  c.bidirectional = bidir;
  c.input_feeding = feed;
  c.layers = layers;
  c.bridge = bridge;
  c.src_vocab = 23;
  c.tgt_vocab = 19;
  c.src_emb = 7;
  c.tgt_emb = 9;
  c.enc_hidden = bidir ? 8 : 16;
  c.dec_hidden = 16;
  c.attn_dim = 11;
  return c;
}

// The gradient check both gradient suites use: central differences (step 1e-2) of loss() with respect
// to every element of x (perturbed in place, then restored), against grad. The worst relative error,
// |numeric - analytic| / max(floor, |numeric| + |analytic|), and the element where it is.
struct DifferenceError {
  double worst = 0;
  std::size_t at = 0;
};
// The worst relative error of `grad` against central differences of loss() in x (each step eps),
// |num - grad| / max(floor, |num| + |grad|): over every element, or over `samples` elements drawn
// from Rng(seed) (a large model).
template <class Loss>
DifferenceError central_difference_error(std::vector<float>& x, const float* grad, Loss&& loss, double floor,
                                         float eps = 1e-2f, std::size_t samples = 0, std::uint64_t seed = 0) {
  DifferenceError e;
  Rng rng(seed);
  for (std::size_t n = 0; n < (samples ? samples : x.size()); ++n) {
    const std::size_t i = samples ? std::size_t(rng.next() % x.size()) : n;
    const float keep = x[i];
    x[i] = keep + eps;
    const double lp = loss();
    x[i] = keep - eps;
    const double lm = loss();
    x[i] = keep;
    const double num = (lp - lm) / (2.0 * eps);
    const double err = std::abs(num - grad[i]) / std::max(floor, std::abs(num) + std::abs(double(grad[i])));
    if (err > e.worst) e.worst = err, e.at = i;
  }
  return e;
}

// n floats uniform in (-scale, scale) from a seed.
inline std::vector<float> rnd(std::size_t n, unsigned seed, float scale = 1.f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// A configuration's name in test messages: cell/style/score and the options it has.
inline std::string describe(const ModelConfig& c) {
  return std::string(to_string(c.cell)) + "/" + to_string(c.style) + "/" + to_string(c.score) +
         (c.bidirectional ? "/bi" : "") + (c.input_feeding ? "/if" : "") + (c.bridge ? "/bridge" : "") + "/L" +
         std::to_string(c.layers);
}

// The configurations the model-level suites run, made by `make` (small_config, or a suite's own
// smaller one with the same parameters): both cells, every style and score, and among them a
// bidirectional encoder, input feeding, a bridge, two layers, and an additive score with a query bias
// (and one without).
template <class Make>
std::vector<ModelConfig> covering_configs(Make make) {
  std::vector<ModelConfig> v;
  for (Cell cell : {Cell::GRU, Cell::LSTM}) {
    v.push_back(make(cell, Style::Luong, Score::Dot, false, false, 1, false));
    v.push_back(make(cell, Style::Luong, Score::General, false, true, 1, false));
    v.push_back(make(cell, Style::Luong, Score::Additive, true, false, 2, true));
    v.back().attn_query_bias = true;
    v.push_back(make(cell, Style::Bahdanau, Score::Additive, false, false, 1, false));
    v.push_back(make(cell, Style::Bahdanau, Score::Dot, true, false, 1, false));
    v.push_back(make(cell, Style::None, Score::Dot, false, false, 2, false));
  }
  return v;
}
inline std::vector<ModelConfig> covering_configs() { return covering_configs(small_config); }

// The message of the std::invalid_argument f throws, or "<ok>" if it throws none; other exceptions
// escape (to fail the test).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<ok>";
}

}  // namespace attnseq::test

// Outside namespace attnseq: doctest's CHECK breaks into the debugger with raise(SIGTRAP) in some builds
// (wasm), and attnseq::raise would hide ::raise there.
namespace decode_checks {

// n sources of lengths 1..13 in a scrambled order (so that batch groups and longest-first orders matter),
// ids from 4 (past the special tokens) to vocab - 1.
inline std::vector<std::vector<std::int32_t>> sources(int n, int vocab) {
  std::vector<std::vector<std::int32_t>> s(n);
  for (int i = 0; i < n; ++i) {
    const int T = 1 + (i * 7) % 13;
    for (int t = 0; t < T; ++t) s[i].push_back(4 + int((i * 7919u + t * 104729u) % unsigned(vocab - 4)));
  }
  return s;
}

// Two decodes are the same, bit for bit: tokens, log-probabilities, scores, attention (the mean and
// each ensemble member's own).
inline void check_same(const attnseq::DecodeResult& a, const attnseq::DecodeResult& b) {
  CHECK(a.src_len == b.src_len);
  REQUIRE(a.hypotheses.size() == b.hypotheses.size());
  for (std::size_t h = 0; h < a.hypotheses.size(); ++h) {
    const auto &x = a.hypotheses[h], &y = b.hypotheses[h];
    CHECK(x.tokens == y.tokens);
    CHECK(x.log_prob == y.log_prob);  // bit for bit, not approximately
    CHECK(x.score == y.score);
    CHECK(x.finished == y.finished);
    CHECK(x.attention == y.attention);
    CHECK(x.member_attention == y.member_attention);
  }
}

}  // namespace decode_checks
