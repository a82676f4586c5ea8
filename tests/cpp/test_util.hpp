// Shared helpers for the doctest suite: test data paths and small random models.
#pragma once
#include <random>
#include <string>

#include "model/model.hpp"

#ifndef ATTNSEQ_TEST_DATA
#define ATTNSEQ_TEST_DATA "tests/data"
#endif

namespace attnseq::test {

inline std::string data_path(const std::string& rel) { return std::string(ATTNSEQ_TEST_DATA) + "/" + rel; }

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

}  // namespace attnseq::test
