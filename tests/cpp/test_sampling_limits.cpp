// Sampling at the edge of float range: temperatures so small that logits / T overflows (or 1/T
// itself does) must still pick the most likely token, as the T -> 0 limit of softmax(logits / T)
// does, instead of a NaN softmax falling back to id 0 (<pad>). Checked on sample_token directly and
// through decode() on the shipped reverse model, whose logits are large enough to overflow.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/vocab.hpp"

#ifndef ATTNSEQ_MODELS_DIR
#define ATTNSEQ_MODELS_DIR "models"
#endif

using namespace attnseq;

namespace {
// Temperatures where logits / T overflows (1e-38, FLT_MIN) and where 1/T is infinite (denormals).
const float kTiny[] = {1e-30f, 1e-38f, std::numeric_limits<float>::min(), 1e-40f,
                       std::numeric_limits<float>::denorm_min()};
}  // namespace

TEST_CASE("sample_token: a tiny temperature picks the argmax, whatever the seed and the logits' sign") {
  // Index 1 is the largest in each; 7 * 1e38 and -20 * 1e38 both overflow a float.
  const std::vector<std::vector<float>> cases = {{2.5f, 7.f, 4.f, -3.f}, {-50.f, -20.f, -30.f}, {0.f, 1e-3f, -1e-3f}};
  for (const auto& logits : cases)
    for (const float t : kTiny)
      for (std::uint64_t seed = 0; seed < 16; ++seed) {
        Rng rng(seed);
        std::vector<float> scratch(logits.size());
        CAPTURE(t);
        CAPTURE(seed);
        CHECK(sample_token(logits.data(), logits.size(), t, rng, scratch.data()) == 1);
      }
}

TEST_CASE("sample_token: a tiny temperature draws only among tied maxima, an ordinary one is unchanged") {
  const std::vector<float> tied = {5.f, 1.f, 5.f};
  for (std::uint64_t seed = 0; seed < 16; ++seed) {
    Rng rng(seed);
    float scratch[3];
    const auto id = sample_token(tied.data(), 3, 1e-30f, rng, scratch);
    CHECK((id == 0 || id == 2));
  }
  // At T = 1 the draw is u against the cumulative softmax: recompute it here, independently.
  const std::vector<float> logits = {0.1f, 2.f, -1.f, 1.5f};
  double z = 0;
  for (float l : logits) z += std::exp(double(l));
  for (std::uint64_t seed = 0; seed < 32; ++seed) {
    Rng a(seed), b(seed);
    float scratch[4];
    const auto id = sample_token(logits.data(), 4, 1.f, a, scratch);
    const double u = b.uniform();
    double acc = 0;
    int want = 3;
    for (int i = 0; i < 4; ++i) {
      acc += std::exp(double(logits[i])) / z;
      if (u < acc) {
        want = i;
        break;
      }
    }
    CHECK(id == want);
  }
}

TEST_CASE("decode: temperature 1e-38 on the shipped reverse model gives the greedy output, not <pad>") {
  const Model m = load_checkpoint_file(std::string(ATTNSEQ_MODELS_DIR) + "/reverse.safetensors");
  const auto src = Vocab::source(m.config()).encode("abcdefg");
  Encoded enc;
  m.encode(src.data(), int(src.size()), enc);
  const auto greedy = decode(m, enc, DecodeOptions{}).hypotheses[0];
  REQUIRE(greedy.tokens.size() >= 2);
  CHECK(greedy.finished);
  for (const float t : kTiny)
    for (std::uint64_t seed : {1u, 2u, 99u}) {
      DecodeOptions o;
      o.temperature = t;
      o.seed = seed;
      const auto h = decode(m, enc, o).hypotheses[0];
      CAPTURE(t);
      CAPTURE(seed);
      CHECK(h.tokens == greedy.tokens);
      CHECK(std::isfinite(h.log_prob));
    }
}
