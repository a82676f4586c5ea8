// The settings table (train/settings.hpp) is the one source of defaults and ranges: its defaults are
// the ones the C++ structures start from, every default lies in its range, and the named choices
// parse to the enums and refuse anything else, naming the setting as the caller wrote it.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "train/settings.hpp"
#include "train/trainer.hpp"

using namespace attnseq;

TEST_CASE("settings: the table's defaults are the structures' and lie in their ranges") {
  const train::TrainOptions o;
  const train::ModelChoice m;
  CHECK(train::setting("--hidden").def == m.hidden);
  CHECK(train::setting("--layers").def == m.layers);
  CHECK(std::string(train::setting("--embedding").same_as) == "--hidden");
  CHECK(m.embedding == 0);  // 0: the hidden size, as same_as says
  CHECK(std::string(train::setting("--attn-dim").same_as) == "--hidden");
  CHECK(m.attn_dim == 0);
  CHECK(train::setting("--steps").def == o.steps);
  CHECK(train::setting("--batch").def == o.batch_size);
  CHECK(float(train::setting("--lr").def) == o.lr);
  CHECK(train::setting("--warmup").def == o.warmup);
  CHECK(float(train::setting("--clip").def) == o.clip);
  CHECK(train::setting("--seed").def == double(o.seed));
  for (const auto& s : train::settings()) {
    CAPTURE(s.cli);
    CHECK(std::string(s.cli).rfind("--", 0) == 0);
    CHECK(std::string(s.js).size() > 0);
    CHECK(s.lo <= s.hi);
    if (!s.same_as) CHECK((s.def >= s.lo && s.def <= s.hi));
    if (s.integer) CHECK((s.lo == std::floor(s.lo) && s.hi == std::floor(s.hi)));
  }
  CHECK_THROWS_AS(train::setting("--no-such"), std::logic_error);
  CHECK(train::default_text(train::setting("--lr")) == "0.003");
  CHECK(train::default_text(train::setting("--embedding")) == "");
}

TEST_CASE("settings: named choices parse in one place and name the setting when refused") {
  CHECK(train::parse_style("bahdanau", "--style") == Style::Bahdanau);
  CHECK(train::parse_score("additive", "--score") == Score::Additive);
  CHECK(train::parse_cell("lstm", "--cell") == Cell::LSTM);
  CHECK(train::parse_text_tokenizer("char", "--tokenizer") == TokenizerKind::Char);
  CHECK_THROWS_WITH(train::parse_style("Luong", "'style'"), "'style' is luong, bahdanau or none, not \"Luong\"");
  CHECK_THROWS_WITH(train::parse_score("", "--score"), "--score is dot, general or additive, not \"\"");
  CHECK_THROWS_WITH(train::parse_cell("rnn", "--cell"), "--cell is gru or lstm, not \"rnn\"");
  CHECK_THROWS_WITH(train::parse_text_tokenizer("ids", "'srcTokenizer'"),
                    "'srcTokenizer' is char or word, not \"ids\"");
}

TEST_CASE("settings: the architecture a choice implies") {
  train::ModelChoice m;
  m.hidden = 10;
  m.bidirectional = true;
  auto c = train::architecture(m, "--hidden");
  CHECK(c.enc_hidden == 5);
  CHECK(c.enc_out() == 10);
  CHECK(c.src_emb == 10);
  CHECK(c.attn_dim == 10);
  m.bridge = true;
  m.embedding = 4;
  c = train::architecture(m, "--hidden");
  CHECK(c.enc_hidden == 10);
  CHECK(c.src_emb == 4);
  m.bridge = false;
  m.hidden = 9;
  CHECK_THROWS_WITH(train::architecture(m, "'hidden'"),
                    "'hidden' must be even for a bidirectional encoder without a bridge");
}

TEST_CASE("each enum's names are one table: to_string, parse_name and choices agree") {
  auto round_trip = [](auto... values) {
    for (auto v : {values...}) {
      decltype(v) back{};
      CHECK(parse_name(to_string(v), back));
      CHECK(back == v);
      CHECK(choices<decltype(v)>().find(to_string(v)) != std::string::npos);
    }
  };
  round_trip(Cell::GRU, Cell::LSTM);
  round_trip(Style::Luong, Style::Bahdanau, Style::None);
  round_trip(Score::Dot, Score::General, Score::Additive);
  round_trip(TokenizerKind::Char, TokenizerKind::Word, TokenizerKind::Spm, TokenizerKind::Ids);
  round_trip(CaseFold::Upper, CaseFold::Lower, CaseFold::Keep);
  Style s = Style::None;
  CHECK_FALSE(parse_name("Luong", s));  // names are exact
  CHECK(s == Style::None);              // and a miss changes nothing
  CHECK(choices<Style>() == "luong, bahdanau or none");
  CHECK(choices<Cell>() == "gru or lstm");
}
