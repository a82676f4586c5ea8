// A tokenizer per side (ModelConfig::src_tokenizer / tgt_tokenizer, metadata src_tokenizer,
// tgt_tokenizer, src_case and the older `tokenizer`): every checkpoint written before them loads with
// both sides set to its `tokenizer` and decodes as a re-saved copy does; a char -> word model saves,
// loads and translates with its target joined by spaces; the source's case fold.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/safetensors.hpp"
#include "model/vocab.hpp"
#include "test_util.hpp"
#include "train/tasks.hpp"

#ifndef ATTNSEQ_MODELS_DIR
#define ATTNSEQ_MODELS_DIR "models"
#endif

using namespace attnseq;
using Ids = std::vector<std::int32_t>;

namespace {

Ids greedy(const Model& m, const Ids& src) {
  Encoded enc;
  m.encode(src.data(), int(src.size()), enc);
  DecodeOptions o;
  o.max_length = 12;
  return decode(m, enc, o).hypotheses.at(0).tokens;
}

TokenizerKind kind_of(const std::string* meta) {
  if (!meta || *meta == "ids") return TokenizerKind::Ids;
  return *meta == "char" ? TokenizerKind::Char : TokenizerKind::Word;
}

// Tokens 4.. of a vocabulary written as text the way its tokenizer reads them back.
std::string text_of(const std::vector<std::string>& tokens, TokenizerKind kind, std::size_t n) {
  std::string s;
  for (std::size_t i = 4; i < tokens.size() && i < 4 + n; ++i) {
    if (kind == TokenizerKind::Word && !s.empty()) s += ' ';
    s += tokens[i];
  }
  return s;
}

ModelConfig g2p_config() {
  ModelConfig c = test::small_config(Cell::GRU, Style::Luong, Score::General);
  c.src_tokenizer = TokenizerKind::Char;
  c.tgt_tokenizer = TokenizerKind::Word;
  c.src_case = CaseFold::Upper;
  c.src_tokens = train::make_vocab({"'", "A", "E", "G", "H", "I", "K", "N", "O", "P", "S", "T", "X"});
  c.tgt_tokens = train::make_vocab({"AY", "EH", "F", "K", "N", "S", "T", "IY"});
  c.src_vocab = int(c.src_tokens.size());
  c.tgt_vocab = int(c.tgt_tokens.size());
  return c;
}

}  // namespace

TEST_CASE("tokenizers: checkpoints from before per-side tokenizers load and decode as before") {
  std::vector<std::string> files;
  // Shipped models written before then (dates was retrained for issue 23, so it records both sides).
  for (const char* n :
       {"en-ko", "en-ko-additive", "en-ko-bahdanau", "en-ko-general", "en-ko-vanilla", "reverse", "reverse-vanilla"})
    files.push_back(std::string(ATTNSEQ_MODELS_DIR) + "/" + n + ".safetensors");
  for (const char* n : {"gru_luong_dot", "lstm_bahdanau_additive", "tensors_only", "gru_none"})
    files.push_back(test::data_path(std::string("parity/") + n + ".safetensors"));
  files.push_back(test::data_path("pytorch_trained/model.safetensors"));
  for (const auto& path : files) {
    CAPTURE(path);
    const auto bytes = read_file_bytes(path);
    const auto raw = safetensors::parse(bytes.data(), bytes.size());
    REQUIRE_MESSAGE(raw.meta("src_tokenizer") == nullptr, "not a file from before per-side tokenizers");
    const TokenizerKind old = kind_of(raw.meta("tokenizer"));
    const Model m = load_checkpoint(bytes.data(), bytes.size());
    const auto& c = m.config();
    CHECK(c.src_tokenizer == old);
    CHECK(c.tgt_tokenizer == old);
    CHECK(c.src_case == CaseFold::Keep);

    Ids src = {4, 5, 6};
    if (old != TokenizerKind::Ids) {
      // The tokenizer as it was: one kind for both sides, no case fold.
      const Vocab before_src(old, c.src_tokens, c.pad, c.bos, c.eos, c.unk);
      const Vocab before_tgt(old, c.tgt_tokens, c.pad, c.bos, c.eos, c.unk);
      const std::string text = text_of(c.src_tokens, old, 3);
      const std::string mixed_case = text + (old == TokenizerKind::Word ? " Xy" : "Xy");
      src = Vocab::source(c).encode(text);
      CHECK(src == before_src.encode(text));
      CHECK(Vocab::source(c).encode(mixed_case) == before_src.encode(mixed_case));
      const Ids out = greedy(m, src);
      CHECK(Vocab::target(c).decode(out.data(), out.size()) == before_tgt.decode(out.data(), out.size()));
    }
    // Saved again, it carries the old key with its old value beside the new ones, and decodes the same.
    const auto again = save_checkpoint(m);
    const auto raw2 = safetensors::parse(again.data(), again.size());
    if (old != TokenizerKind::Ids) {
      REQUIRE(raw2.meta("tokenizer"));
      CHECK(*raw2.meta("tokenizer") == *raw.meta("tokenizer"));
      REQUIRE(raw2.meta("src_tokenizer"));
      CHECK(*raw2.meta("src_tokenizer") == to_string(old));
      REQUIRE(raw2.meta("tgt_tokenizer"));
      CHECK(*raw2.meta("tgt_tokenizer") == to_string(old));
    } else {
      CHECK(raw2.meta("tokenizer") == nullptr);
    }
    CHECK(raw2.meta("src_case") == nullptr);
    const Model m2 = load_checkpoint(again.data(), again.size());
    CHECK(greedy(m2, src) == greedy(m, src));
  }
}

TEST_CASE("tokenizers: a char -> word model saves, loads and translates, its target joined by spaces") {
  Model m(g2p_config());
  test::randomize(m, 11, 1.0f);
  const auto bytes = save_checkpoint(m);
  const auto raw = safetensors::parse(bytes.data(), bytes.size());
  REQUIRE(raw.meta("tokenizer"));
  CHECK(*raw.meta("tokenizer") == "mixed");  // a reader that predates per-side tokenizers refuses it
  CHECK(*raw.meta("src_tokenizer") == "char");
  CHECK(*raw.meta("tgt_tokenizer") == "word");
  CHECK(*raw.meta("src_case") == "upper");

  const Model l = load_checkpoint(bytes.data(), bytes.size());
  const auto& c = l.config();
  CHECK(c.src_tokenizer == TokenizerKind::Char);
  CHECK(c.tgt_tokenizer == TokenizerKind::Word);
  CHECK(c.src_case == CaseFold::Upper);
  const Vocab sv = Vocab::source(c), tv = Vocab::target(c);
  CHECK(sv.kind() == TokenizerKind::Char);
  CHECK(tv.kind() == TokenizerKind::Word);
  CHECK(sv.pieces("KNIGHT") == std::vector<std::string>{"K", "N", "I", "G", "H", "T"});
  CHECK(tv.pieces("N AY T") == std::vector<std::string>{"N", "AY", "T"});
  // A word target's text is its tokens joined by single spaces, whatever they are.
  const Ids phon = tv.encode("N  AY\tT");
  CHECK(tv.decode(phon.data(), phon.size()) == "N AY T");

  const Ids src = sv.encode("KNIGHT");
  for (auto id : src) CHECK(id != c.unk);
  const Ids out = greedy(l, src), ref = greedy(m, src);
  CHECK(out == ref);
  REQUIRE_FALSE(out.empty());
  std::string joined;
  for (auto id : out) {
    if (id == c.eos || id == c.bos || id == c.pad) continue;  // text drops the specials
    joined += (joined.empty() ? "" : " ") + tv.token(id);
  }
  CHECK(tv.decode(out.data(), out.size()) == joined);
}

TEST_CASE("tokenizers: the source folds case the way the model was trained, the target does not") {
  ModelConfig c = g2p_config();
  const Vocab upper = Vocab::source(c);
  // Any letter case finds the upper-case ids; non-letters are untouched.
  CHECK(upper.encode("knight") == upper.encode("KNIGHT"));
  CHECK(upper.encode("KnIgHt") == upper.encode("KNIGHT"));
  CHECK(upper.encode("o'neil").at(1) == upper.lookup("'"));
  CHECK(upper.pieces("Knight") == std::vector<std::string>{"K", "n", "i", "g", "h", "t"});  // shown as typed
  // Only ASCII letters fold: an accented letter stays unknown rather than becoming another letter.
  CHECK(upper.encode("\xC3\xA9").at(0) == c.unk);
  CHECK(fold_case("Knight-\xC3\xA9", CaseFold::Upper) == "KNIGHT-\xC3\xA9");
  CHECK(fold_case("Knight-\xC3\x89", CaseFold::Lower) == "knight-\xC3\x89");
  CHECK(fold_case("Knight", CaseFold::Keep) == "Knight");

  // Without a fold the case matters, as it always did.
  c.src_case = CaseFold::Keep;
  const Vocab keep = Vocab::source(c);
  CHECK(keep.encode("knight") == Ids(6, c.unk));
  // A lower-case model folds the other way.
  c.src_tokens = train::make_vocab({"a", "b"});
  c.src_vocab = int(c.src_tokens.size());
  c.src_case = CaseFold::Lower;
  const Vocab lower = Vocab::source(c);
  CHECK(lower.encode("AbB") == Ids{lower.lookup("a"), lower.lookup("b"), lower.lookup("b")});
  CHECK(lower.lookup("a") != c.unk);
  // The target side has no fold: a phoneme must be spelt as in the vocabulary.
  CHECK(Vocab::target(c).encode("ay") == Ids{c.unk});

  // A model cannot have text on one side and ids on the other, nor a fold without a tokenizer.
  ModelConfig bad = g2p_config();
  bad.tgt_tokenizer = TokenizerKind::Ids;
  CHECK_THROWS_WITH_AS(bad.validate(), doctest::Contains("both sides"), std::invalid_argument);
  ModelConfig ids = test::small_config(Cell::GRU, Style::Luong, Score::General);
  ids.src_case = CaseFold::Upper;
  CHECK_THROWS_WITH_AS(ids.validate(), doctest::Contains("src_case"), std::invalid_argument);
}

TEST_CASE("tokenizers: a TSV task with a tokenizer per side") {
  const auto t = train::make_tsv_task("knight\tN AY T\nphone\tF OW N\n", TokenizerKind::Char, TokenizerKind::Word);
  CHECK(t->src_tokenizer() == TokenizerKind::Char);
  CHECK(t->tgt_tokenizer() == TokenizerKind::Word);
  CHECK(t->tgt_vocab() == train::make_vocab({"AY", "F", "N", "OW", "T"}));
  CHECK(t->src_vocab() == train::make_vocab({"e", "g", "h", "i", "k", "n", "o", "p", "t"}));
  Rng rng(3);
  const auto e = t->sample(rng);
  CHECK((e.tgt == std::vector<std::string>{"N", "AY", "T"} || e.tgt == std::vector<std::string>{"F", "OW", "N"}));
  // The one-kind form still gives both sides that kind.
  const auto w = train::make_tsv_task("a b\tc d\n", TokenizerKind::Word);
  CHECK(w->src_tokenizer() == TokenizerKind::Word);
  CHECK(w->tgt_tokenizer() == TokenizerKind::Word);
  CHECK_THROWS_AS(train::make_tsv_task("a\tb\n", TokenizerKind::Char, TokenizerKind::Ids), std::invalid_argument);
}
