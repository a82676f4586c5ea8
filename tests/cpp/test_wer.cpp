// Multi-reference scoring (src/train/wer.hpp) against figures worked out by hand: edit distances,
// the closest of several references, WER and PER sums and their split by word length; a model's
// evaluation against references built from its own decoded outputs (so the figures are known by
// construction) for one and several threads; pronunciations through a model's vocabularies.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "test_util.hpp"
#include "train/tasks.hpp"
#include "train/wer.hpp"

using namespace attnseq;
using train::Ids;

TEST_CASE("wer: edit distance, worked by hand") {
  CHECK(train::edit_distance({}, {}) == 0);
  CHECK(train::edit_distance({1, 2, 3}, {}) == 3);  // three deletions
  CHECK(train::edit_distance({}, {4, 5}) == 2);     // two insertions
  CHECK(train::edit_distance({1, 2, 3}, {1, 2, 3}) == 0);
  CHECK(train::edit_distance({1, 2, 3}, {1, 9, 3}) == 1);        // one substitution
  CHECK(train::edit_distance({1, 2}, {2, 1}) == 2);              // a swap is two edits, not one
  CHECK(train::edit_distance({1, 2, 3, 4}, {2, 3, 4, 5}) == 2);  // drop the head, add a tail
  // kitten -> sitting: k->s, e->i, + g = 3 (letters as ids).
  const Ids kitten = {'k', 'i', 't', 't', 'e', 'n'}, sitting = {'s', 'i', 't', 't', 'i', 'n', 'g'};
  CHECK(train::edit_distance(kitten, sitting) == 3);
  CHECK(train::edit_distance(sitting, kitten) == 3);
  // AH B ER G vs B ER G ER: delete AH, insert ER at the end.
  CHECK(train::edit_distance({7, 8, 9, 10}, {8, 9, 10, 9}) == 2);
}

TEST_CASE("wer: the closest of several references decides, the first among equals") {
  // Right when equal to any reference, whichever it is.
  auto s = train::score_against({5, 6, 7}, {{5, 6}, {5, 6, 7}, {1}});
  CHECK(s.correct);
  CHECK(s.edits == 0);
  CHECK(s.ref_length == 3);
  // Not right: 1 edit to the second (length 4), 2 to the first (length 2).
  s = train::score_against({5, 6, 7}, {{5, 9}, {5, 6, 7, 8}});
  CHECK_FALSE(s.correct);
  CHECK(s.edits == 1);
  CHECK(s.ref_length == 4);
  // A tie (1 edit each) counts the first reference's length.
  s = train::score_against({5, 6}, {{5, 6, 7}, {5}});
  CHECK(s.edits == 1);
  CHECK(s.ref_length == 3);
  // An empty output is as many edits as the closest reference is long.
  s = train::score_against({}, {{4, 4, 4}, {4, 4}});
  CHECK(s.edits == 2);
  CHECK(s.ref_length == 2);
  CHECK_THROWS_AS(train::score_against({1}, {}), std::invalid_argument);
}

TEST_CASE("wer: WER and PER sum over words, and split by word length") {
  train::RefReport r;
  r.add(3, train::score_against({1, 2, 3}, {{1, 2, 3}}));     // right; 0 edits / 3
  r.add(5, train::score_against({1, 2, 3}, {{1, 2, 4, 5}}));  // 2 edits / 4
  // {9} is 2 edits from {1, 2} and 2 from {9, 9, 9}: a tie, the first counts (2 edits / 2).
  r.add(3, train::score_against({9}, {{1, 2}, {9, 9, 9}}));
  CHECK(r.words == 3);
  CHECK(r.errors == 2);
  CHECK(r.edits == 4);
  CHECK(r.ref_tokens == 9);
  CHECK(r.wer() == doctest::Approx(2.0 / 3.0));
  CHECK(r.per() == doctest::Approx(4.0 / 9.0));
  REQUIRE(r.by_length.size() == 2);
  CHECK(r.by_length[0].length == 3);
  CHECK(r.by_length[0].words == 2);
  CHECK(r.by_length[0].errors == 1);
  CHECK(r.by_length[0].edits == 2);
  CHECK(r.by_length[0].ref_tokens == 5);
  CHECK(r.by_length[1].length == 5);
  CHECK(r.by_length[1].words == 1);
  CHECK(r.by_length[1].edits == 2);
  CHECK(train::RefReport().wer() == 0.0);
}

namespace {

// What the model decodes for src (pad, BOS and EOS dropped), through the decoder's own API.
Ids decoded(const Model& m, const Ids& src, int beam) {
  Encoded enc;
  m.encode(src.data(), int(src.size()), enc);
  DecodeOptions o;
  o.beam = beam;
  o.max_length = int(src.size()) * 2 + 10;
  const auto out = decode(m, enc, o);
  Ids ids;
  for (auto id : out.hypotheses[0].tokens)
    if (id != m.config().pad && id != m.config().bos && id != m.config().eos) ids.push_back(id);
  return ids;
}

}  // namespace

TEST_CASE("wer: a model's evaluation against references made from its own outputs") {
  Model m(test::small_config(Cell::GRU, Style::Luong, Score::General));
  test::randomize(m, 11);
  std::vector<train::RefItem> items;
  long want_errors = 0, want_edits = 0, want_ref = 0;
  for (int i = 0; i < 12; ++i) {
    Ids src;
    for (int t = 0; t < 2 + i % 5; ++t) src.push_back(4 + (i * 7 + t * 3) % (m.config().src_vocab - 4));
    const Ids out = decoded(m, src, 1);
    train::RefItem it{src, {}};
    Ids other = out;
    other.push_back(4);  // one insertion away from the output
    switch (i % 3) {
      case 0:  // right through its second reference
        it.refs = {other, out};
        want_ref += long(out.size());
        break;
      case 1:  // one edit from its only reference
        it.refs = {other};
        ++want_errors, ++want_edits, want_ref += long(other.size());
        break;
      default: {  // |out| + 2 BOS ids, which a scored output never holds: |out| + 2 edits
        const Ids far(out.size() + 2, m.config().bos);
        it.refs = {far};
        ++want_errors, want_edits += long(out.size()) + 2, want_ref += long(far.size());
      }
    }
    items.push_back(it);
  }
  const auto r = train::evaluate_refs(m, items, 1, 1);
  CHECK(r.words == 12);
  CHECK(r.errors == want_errors);
  CHECK(r.edits == want_edits);
  CHECK(r.ref_tokens == want_ref);
  CHECK(r.beam == 1);
  long by_len_words = 0;
  for (const auto& b : r.by_length) by_len_words += b.words;
  CHECK(by_len_words == 12);
  CHECK(r.by_length.front().length == 2);
  CHECK(r.by_length.back().length == 6);
  // Several threads: the same counts.
  const auto r3 = train::evaluate_refs(m, items, 1, 3);
  CHECK(r3.errors == r.errors);
  CHECK(r3.edits == r.edits);
  CHECK(r3.ref_tokens == r.ref_tokens);
  REQUIRE(r3.by_length.size() == r.by_length.size());
  for (std::size_t k = 0; k < r.by_length.size(); ++k) CHECK(r3.by_length[k].errors == r.by_length[k].errors);
  // Beam: each item right exactly when its reference is the beam's output.
  std::vector<train::RefItem> beam_items;
  for (const auto& it : items) beam_items.push_back({it.src, {decoded(m, it.src, 4)}});
  const auto rb = train::evaluate_refs(m, beam_items, 4, 2);
  CHECK(rb.errors == 0);
  CHECK(rb.beam == 4);
  CHECK_THROWS_AS(train::evaluate_refs(m, {}, 1, 1), std::invalid_argument);
  CHECK_THROWS_AS(train::evaluate_refs(m, items, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(train::evaluate_refs(m, items, 1, 0), std::invalid_argument);
}

TEST_CASE("wer: pronunciations through a model's vocabularies, with its case folding") {
  ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::Dot);
  c.src_tokenizer = TokenizerKind::Char;
  c.tgt_tokenizer = TokenizerKind::Word;
  c.src_case = CaseFold::Lower;  // a model trained on lower-case letters reads "ABC" as "abc"
  c.src_tokens = train::make_vocab({"a", "b", "c", "'"});
  c.tgt_tokens = train::make_vocab({"AH", "B", "EY", "S", "IY"});
  c.src_vocab = int(c.src_tokens.size());
  c.tgt_vocab = int(c.tgt_tokens.size());
  const auto id = [](const std::vector<std::string>& v, const std::string& s) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] == s) return std::int32_t(i);
    FAIL("no token " << s);
    return std::int32_t(-1);
  };
  const auto items = train::pron_items(c, {{"ABC'", {"EY B IY S IY", "AH B"}}, {"Z", {"S"}}}, "dict.txt");
  REQUIRE(items.size() == 2);
  CHECK(items[0].src ==
        Ids{id(c.src_tokens, "a"), id(c.src_tokens, "b"), id(c.src_tokens, "c"), id(c.src_tokens, "'")});
  REQUIRE(items[0].refs.size() == 2);
  CHECK(items[0].refs[0] == Ids{id(c.tgt_tokens, "EY"), id(c.tgt_tokens, "B"), id(c.tgt_tokens, "IY"),
                                id(c.tgt_tokens, "S"), id(c.tgt_tokens, "IY")});
  CHECK(items[0].refs[1] == Ids{id(c.tgt_tokens, "AH"), id(c.tgt_tokens, "B")});
  CHECK(items[1].src == Ids{c.unk});  // a letter the model never saw is unknown, not an error
  // A phoneme the target vocabulary lacks, a word over the source limit: errors naming the word.
  CHECK_THROWS_WITH_AS(train::pron_items(c, {{"AB", {"AH ZH"}}}, "dict.txt"),
                       doctest::Contains("dict.txt: word 'AB' has the phoneme ZH"), std::invalid_argument);
  const std::string long_word(kMaxSourceLength + 1, 'A');
  CHECK_THROWS_WITH_AS(train::pron_items(c, {{long_word, {"AH"}}}, "dict.txt"),
                       doctest::Contains("(1025 bytes) is longer than the 1024 source tokens"), std::invalid_argument);
  CHECK(train::pron_items(c, {{std::string(kMaxSourceLength, 'A'), {"AH"}}}, "d").at(0).src.size() == 1024);
  CHECK_THROWS_WITH_AS(train::pron_items(test::small_config(Cell::GRU, Style::Luong, Score::Dot), {{"A", {"AH"}}}, "d"),
                       doctest::Contains("ids only"), std::invalid_argument);
}
