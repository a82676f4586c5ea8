// evaluate() shares its examples across threads natively: the report (integer counts, buckets and
// forms) is identical for any thread count, for f32 and int8 models, and a count outside [1, 256] is refused.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "model/checkpoint.hpp"
#include "train/evaluate.hpp"
#include "train/tasks.hpp"

#ifndef ATTNSEQ_MODELS_DIR
#define ATTNSEQ_MODELS_DIR "models"
#endif

using namespace attnseq;

namespace {
void check_threads_agree(const Model& m) {
  const auto ex = train::sample_n(*train::make_task("en-ko"), 7, 97);
  const auto one = train::evaluate(m, ex, 1, 3);
  for (int threads : {2, 3}) {
    CAPTURE(threads);
    const auto r = train::evaluate(m, ex, 1, 3, {}, {}, threads);
    CHECK(r.n == one.n);
    CHECK(r.exact == one.exact);
    CHECK(r.tokens == one.tokens);
    CHECK(r.tokens_correct == one.tokens_correct);
    CHECK(r.align_hits == one.align_hits);
    CHECK(r.align_pred == one.align_pred);
    CHECK(r.align_gold == one.align_gold);
    REQUIRE(r.buckets.size() == one.buckets.size());
    for (std::size_t b = 0; b < r.buckets.size(); ++b) {
      CHECK(r.buckets[b].lo == one.buckets[b].lo);
      CHECK(r.buckets[b].n == one.buckets[b].n);
      CHECK(r.buckets[b].exact == one.buckets[b].exact);
    }
  }
  CHECK(one.n == 97);
  CHECK(one.buckets.size() >= 2);  // width 3 over sentences of several lengths
  for (int bad : {0, -1, 10000})
    CHECK_THROWS_WITH_AS(train::evaluate(m, ex, 1, 3, {}, {}, bad), doctest::Contains("threads"),
                         std::invalid_argument);
}
}  // namespace

TEST_CASE("evaluate: the same report for 1, 2 and 3 threads") {
  check_threads_agree(load_checkpoint_file(std::string(ATTNSEQ_MODELS_DIR) + "/en-ko.safetensors"));
}

// Each thread quantises an int8 model's activations in a scratch of its own (nn::linear_q8).
TEST_CASE("evaluate: the same report for 1, 2 and 3 threads on an int8 model") {
  Model m = load_checkpoint_file(std::string(ATTNSEQ_MODELS_DIR) + "/en-ko.safetensors");
  REQUIRE(m.quantize() > 0);
  check_threads_agree(m);
}
