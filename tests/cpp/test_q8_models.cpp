// Every shipped model (models/index.json) quantised to int8 (Model::quantize) gives the f32 model's
// greedy output on at least 99.5 % of its held-out inputs: the sets models/README.md evaluates
// (seed 20261130; 2000 examples, or the length study's 1200 reversals of lengths 1-60). One model,
// reverse-vanilla, does not meet it (below); its exact match is checked instead.
#include <doctest/doctest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/json.hpp"
#include "test_util.hpp"
#include "train/evaluate.hpp"
#include "train/pron_data.hpp"
#include "train/tasks.hpp"
#include "train/wer.hpp"

using namespace attnseq;

namespace {
const std::string kModels = test::models_dir();
constexpr std::uint64_t kHeldOut = train::kHeldOutSeed;

// The names this file checks; a model added to models/index.json must be added here too, except the
// SIGMORPHON languages' ensembles (files under g2p/): they ship as int8 where dev says it keeps their
// outputs (scripts/train-sigmorphon.sh), and test_models.cpp measures them as shipped.
const char* const kChecked[] = {"g2p-en",          "dates",          "en-ko",         "en-ko-general",
                                "en-ko-additive",  "en-ko-bahdanau", "en-ko-vanilla", "reverse",
                                "reverse-vanilla", "en-de",          "en-fr"};

std::vector<train::Example> held_out(const std::string& task) {
  if (task == "reverse") {
    train::TaskOptions o;
    o.min_len = 1;
    o.max_len = 60;
    return train::sample_n(*train::make_task("reverse", o), kHeldOut, 1200);
  }
  return train::sample_n(*train::make_task(task), kHeldOut, 2000);
}

// all_inputs: assert the agreement over the whole set (the target); otherwise only that int8's
// exact match stays within 0.5 points of f32's (the same 0.5 % of the set the target allows).
void check_agreement(const std::string& name, const std::string& task, bool all_inputs = true) {
  const std::string path = kModels + "/" + name + ".safetensors";
  const Model f32 = load_checkpoint_file(path);
  Model q8 = load_checkpoint_file(path);
  REQUIRE(q8.quantize() > 0);
  REQUIRE(q8.uses_int8_weights());
  const auto& c = f32.config();
  const auto examples = held_out(task);
  Encoded e1, e2;
  int same = 0, exact_f32 = 0, exact_q8 = 0, kept = 0;
  for (const auto& ex : examples) {
    const auto src = train::to_ids(ex.src, c.src_tokens, c.unk);
    auto tgt = train::to_ids(ex.tgt, c.tgt_tokens, c.unk);
    tgt.push_back(c.eos);  // a right output ends with EOS
    f32.encode(src.data(), int(src.size()), e1);
    q8.encode(src.data(), int(src.size()), e2);
    const auto a = decode(f32, e1, DecodeOptions{}).hypotheses[0].tokens;
    const auto b = decode(q8, e2, DecodeOptions{}).hypotheses[0].tokens;
    same += a == b;
    exact_f32 += a == tgt;
    exact_q8 += b == tgt;
    kept += a == tgt && b == tgt;
  }
  const int n = int(examples.size());
  MESSAGE(name << ": int8 greedy output = f32 on " << same << "/" << n << "; right answers f32 " << exact_f32
               << ", int8 " << exact_q8 << ", both " << kept);
  if (all_inputs) {
    CHECK(same * 1000 >= 995 * n);
    CHECK(kept * 1000 >= 995 * exact_f32);
  } else {
    CHECK(std::abs(exact_q8 - exact_f32) * 1000 <= 5 * n);
  }
}
}  // namespace

TEST_CASE("int8: models/index.json lists exactly the models this file checks") {
  const auto b = read_file_bytes(kModels + "/index.json");
  const json::Value j = json::parse(std::string(b.begin(), b.end()));
  const json::Value* list = j.find("models");
  REQUIRE(list);
  std::set<std::string> listed, checked(std::begin(kChecked), std::end(kChecked));
  for (const auto& m : list->array) {
    const json::Value* files = m.find("files");
    if (files && !files->array.empty() && files->array[0].string.rfind("g2p/", 0) == 0) continue;
    listed.insert(m.find("id")->string);
  }
  CHECK(listed == checked);
}

TEST_CASE("int8 dates: the f32 greedy output on >= 99.5 % of 2000 held-out dates") {
  check_agreement("dates", "dates");
}
TEST_CASE("int8 en-ko: the f32 greedy output on >= 99.5 % of 2000 held-out sentences") {
  check_agreement("en-ko", "en-ko");
}
TEST_CASE("int8 en-ko-general: the f32 greedy output on >= 99.5 % of 2000 held-out sentences") {
  check_agreement("en-ko-general", "en-ko");
}
TEST_CASE("int8 en-ko-additive: the f32 greedy output on >= 99.5 % of 2000 held-out sentences") {
  check_agreement("en-ko-additive", "en-ko");
}
TEST_CASE("int8 en-ko-bahdanau: the f32 greedy output on >= 99.5 % of 2000 held-out sentences") {
  check_agreement("en-ko-bahdanau", "en-ko");
}
TEST_CASE("int8 en-ko-vanilla: the f32 greedy output on >= 99.5 % of 2000 held-out sentences") {
  check_agreement("en-ko-vanilla", "en-ko");
}
TEST_CASE("int8 reverse: the f32 greedy output on >= 99.5 % of 1200 held-out sequences of lengths 1-60") {
  check_agreement("reverse", "reverse");
}
// Not the whole set: reverse-vanilla is wrong on most sequences beyond 10 tokens (models/length-study.md)
// and barely right on others, and its outputs there change with any perturbation of its weights.
// Measured on this set: int8 gives the f32 output on about a third of the 1200 (nearly all of lengths
// 1-10, none beyond 40); weights rounded to 16 bits per row instead of 8 still change 17 of 1200, while
// the f32 kernels of SSE2, AVX2 and AVX-512 agree on 1199. So the 99.5 % target is not met for this
// model (bench/RESULTS.md); what is asserted is that its quality stays (236 right against 238).
TEST_CASE(
    "int8 reverse-vanilla: exact match within 0.5 points of f32's on 1200 held-out sequences (agreement reported)") {
  check_agreement("reverse-vanilla", "reverse", false);
}

// The English pronunciation model, on its held-out set, CMUdict's 12,000 test words: the greedy
// output of int8 equals f32's on at least 99.5 % of them (measured 11,962: 99.68 %), and its WER at
// beam 5 moves by at most 0.3 points. Natively only for the whole set (it takes minutes in the
// other builds, which check the first 1000 words at >= 98.5 %: 992 measured, the few words on which
// int8 differs not being spread evenly, so 1000 is too small a sample to hold to 99.5 %).
TEST_CASE(
    "int8 g2p-en: the f32 greedy output on >= 99.5 % of the 12,000 test words, test WER at beam 5 within 0.3 points") {
  const std::string path = kModels + "/g2p-en.safetensors";
  const Model f32 = load_checkpoint_file(path);
  Model q8 = load_checkpoint_file(path);
  REQUIRE(q8.quantize() > 0);
  const auto words = train::read_pron_file(std::string(ATTNSEQ_DATA_DIR) + "/cmudict/g014b2b.ref");
  const auto items = train::pron_items(f32.config(), words.entries, "g2p-en");
#if !defined(__EMSCRIPTEN__) && !defined(ATTNSEQ_REFERENCE_KERNELS) && !defined(__SANITIZE_ADDRESS__)
  const std::size_t n = items.size();
#else
  const std::size_t n = 1000;
#endif
  std::vector<std::vector<std::int32_t>> sources;
  for (std::size_t i = 0; i < n; ++i) sources.push_back(items[i].src);
  const auto a32 = translate_batch(f32, sources, DecodeOptions{}), a8 = translate_batch(q8, sources, DecodeOptions{});
  std::size_t same = 0;
  for (std::size_t i = 0; i < n; ++i) same += a32[i].hypotheses[0].tokens == a8[i].hypotheses[0].tokens;
  MESSAGE("g2p-en int8: " << same << "/" << n << " greedy outputs as f32's");
  if (n == items.size()) {
    CHECK(n == 12000);
    CHECK(same * 1000 >= 995 * n);
  } else {
    CHECK(same >= 985);
  }
#if !defined(__EMSCRIPTEN__) && !defined(ATTNSEQ_REFERENCE_KERNELS) && !defined(__SANITIZE_ADDRESS__)
  const auto a = train::evaluate_refs(f32, items, 5, 2), b = train::evaluate_refs(q8, items, 5, 2);
  MESSAGE("g2p-en test words at beam 5: f32 " << a.errors << ", int8 " << b.errors << " of " << a.words << " wrong");
  CHECK(std::abs(a.errors - b.errors) * 1000 <= 3 * a.words);  // 0.3 points
#endif
}

// en-de and en-fr ship as int8 ensembles of two (their first members' f32 originals, 51 MB each, are
// over the 20 MB a translation pair may take; each second member is 21.5 MB as f32): their quality
// tables in models/README.md are the int8 files' own (test_models.cpp), and the recipe sets each first
// member beside f32 on val (en-de: BLEU 40.20 against 40.26, the same text on 962 of 1,014 sentences;
// en-fr: 58.61 against 58.65, 998 of 1,014).
TEST_CASE("int8 translation models: every file models/index.json lists for them holds every matrix as int8") {
  const auto b = read_file_bytes(kModels + "/index.json");
  const json::Value j = json::parse(std::string(b.begin(), b.end()));
  std::vector<std::string> files;
  for (const auto& m : j.find("models")->array) {
    if (m.find("task")->string != "translate") continue;
    if (const json::Value* list = m.find("files"))
      for (const auto& f : list->array) files.push_back(f.string);
    else
      files.push_back(m.find("file")->string);
  }
  CHECK(files.size() == 4);  // en-de and en-fr, each with its second member
  for (const std::string& file : files) {
    CAPTURE(file);
    Model m = load_checkpoint_file(kModels + "/" + file);
    CHECK(m.uses_int8_weights());
    CHECK(m.quantize() == 0);  // nothing left to quantise
  }
}
