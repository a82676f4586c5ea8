// A model whose sides read SentencePiece pieces (TokenizerKind::Spm): the checkpoint carries each
// side's .model bytes (tensors tokenizer.src / tokenizer.tgt) and loading restores the tokenizers;
// malformed tokenizers and ones that do not fit the model are refused as BadCheckpoint. Also the
// parallel-text reader of the translation trainer (src/train/parallel_data.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <tuple>

#include "core/errors.hpp"
#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/safetensors.hpp"
#include "model/spm.hpp"
#include "model/vocab.hpp"
#include "model/words.hpp"
#include "test_util.hpp"
#include "train/bleu.hpp"
#include "train/epochs.hpp"
#include "train/parallel_data.hpp"

using namespace attnseq;
using namespace attnseq::test;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::shared_ptr<const SpmTokenizer> multi30k_spm(const char* lang) {
  const std::string path = std::string(ATTNSEQ_DATA_DIR) + "/multi30k/spm/m30k_" + lang + ".model";
  const std::string bytes = read_bytes(path);
  return std::make_shared<const SpmTokenizer>(parse_spm_model(bytes, path), path, bytes);
}

ModelConfig spm_config() {
  ModelConfig c = small_config(Cell::GRU, Style::Luong, Score::General, true, true);
  use_spm(c, true, multi30k_spm("en"));
  use_spm(c, false, multi30k_spm("de"));
  c.src_emb = c.tgt_emb = 4;
  c.validate();
  return c;
}

// The checkpoint's bytes with one tensor's bytes replaced (same length) or its header rewritten.
std::vector<std::uint8_t> with_header(const std::vector<std::uint8_t>& file, const std::string& from,
                                      const std::string& to) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[std::size_t(i)];
  std::string header(file.begin() + 8, file.begin() + 8 + std::ptrdiff_t(n));
  const auto at = header.find(from);
  REQUIRE(at != std::string::npos);
  header.replace(at, from.size(), to);
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<std::uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = std::uint8_t(std::uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), file.begin() + 8 + std::ptrdiff_t(n), file.end());
  return out;
}

}  // namespace

TEST_CASE("spm model: save then load restores both tokenizers and gives the same translation") {
  Model m(spm_config());
  randomize(m, 5);
  const auto bytes = save_checkpoint(m);
  const Model back = load_checkpoint(bytes.data(), bytes.size());
  const auto& c = back.config();
  CHECK(c.src_tokenizer == TokenizerKind::Spm);
  CHECK(c.tgt_tokenizer == TokenizerKind::Spm);
  REQUIRE(c.src_spm);
  REQUIRE(c.tgt_spm);
  CHECK(c.src_spm->bytes() == m.config().src_spm->bytes());
  CHECK(c.tgt_spm->bytes() == m.config().tgt_spm->bytes());
  CHECK(c.src_tokens == m.config().src_tokens);
  CHECK(c.tgt_vocab == 8000);
  CHECK(save_checkpoint(back) == bytes);  // bit for bit
  const Vocab sv = Vocab::source(c), tv = Vocab::target(c);
  const auto ids = sv.encode("A man is riding a bike.");
  const auto spm_ids = c.src_spm->encode("A man is riding a bike.");
  CHECK(ids == std::vector<std::int32_t>(spm_ids.begin(), spm_ids.end()));
  Encoded e1, e2;
  m.encode(ids.data(), int(ids.size()), e1);
  back.encode(ids.data(), int(ids.size()), e2);
  DecodeOptions o;
  o.beam = 3;
  o.max_length = 12;
  const auto a = decode(m, e1, o), b = decode(back, e2, o);
  CHECK(a.hypotheses[0].tokens == b.hypotheses[0].tokens);
  // The target side decodes pieces to text as spm does: pad, bos and eos dropped.
  const auto de = c.tgt_spm->encode("Ein Mann fährt Fahrrad.");
  std::vector<std::int32_t> with_specials = {c.bos};
  with_specials.insert(with_specials.end(), de.begin(), de.end());
  with_specials.push_back(c.eos);
  CHECK(tv.decode(with_specials.data(), with_specials.size()) == "Ein Mann fährt Fahrrad.");
  CHECK(sv.pieces("A man")[0] ==
        "\xE2\x96\x81"
        "A");
}

TEST_CASE("spm model: a tokenizer that is malformed or does not fit the model is refused, naming it") {
  Model m(spm_config());
  randomize(m, 6);
  const auto good = save_checkpoint(m);
  const auto refused = [](const std::vector<std::uint8_t>& b, const std::string& part) {
    const std::string msg = error_of([&] { load_checkpoint(b.data(), b.size()); });
    CHECK_MESSAGE(msg.find(part) != std::string::npos, msg);
    try {
      load_checkpoint(b.data(), b.size());
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::BadCheckpoint);
    }
  };
  // The tokenizer's tensor missing: the metadata still says spm.
  refused(with_header(good, "\"tokenizer.tgt\"", "\"tokenizer.xyz\""), "missing tensor 'tokenizer.tgt'");
  // Wrong dtype.
  refused(with_header(good, "\"tokenizer.src\":{\"dtype\":\"U8\"", "\"tokenizer.src\":{\"dtype\":\"I8\""),
          "tensor 'tokenizer.src' is I8 [369269]; a tokenizer is U8 of one dimension");
  // A truncated .model: the data is cut by rewriting the tensor's length in the header.
  {
    const auto parsed = safetensors::parse(good.data(), good.size());
    const auto* t = parsed.find("tokenizer.src");
    REQUIRE(t);
    const std::string from = "\"shape\":[" + std::to_string(t->numel()) + "],\"data_offsets\":[" +
                             std::to_string(t->begin) + "," + std::to_string(t->end) + "]";
    const std::string to =
        "\"shape\":[1000],\"data_offsets\":[" + std::to_string(t->begin) + "," + std::to_string(t->begin + 1000) + "]";
    // The rest of the data section is then unclaimed: safetensors refuses gaps only between tensors,
    // so the model reader sees 1,000 bytes of a 369,269-byte model.
    const std::string msg = error_of([&] {
      const auto b = with_header(good, from, to);
      load_checkpoint(b.data(), b.size());
    });
    CHECK_MESSAGE(msg.find("tokenizer.src") != std::string::npos, msg);
  }
  // A vocabulary whose size differs from the embedding's rows: a de tokenizer (8,000 pieces) beside
  // an embedding of 7,999 rows is refused by the config's own check.
  {
    ModelConfig c = spm_config();
    c.tgt_vocab = 7999;
    c.tgt_tokens.pop_back();
    CHECK(error_of([&] { c.validate(); }).find("8000 pieces but decoder.embedding.weight has 7999 rows") !=
          std::string::npos);
  }
  // The model's special ids must be the tokenizer's control pieces.
  {
    ModelConfig c = spm_config();
    c.bos = 5;  // a byte piece
    CHECK(error_of([&] { c.validate(); }).find("is not a control piece, but it is the model's bos id") !=
          std::string::npos);
  }
}

TEST_CASE("parallel text: lines, and what is refused naming file and line") {
  using train::text_lines;
  CHECK(text_lines("a\nb\n", "f") == std::vector<std::string>{"a", "b"});
  CHECK(text_lines("\xEF\xBB\xBF"
                   "a\r\nb",
                   "f") == std::vector<std::string>{"a", "b"});
  CHECK(error_of([] { text_lines("a\n\nb\n", "f.en"); }) ==
        "f.en:2: empty line (every line is a sentence of the pair)");
  CHECK(error_of([] { text_lines("a\nb\xff\n", "f.en"); }) == "f.en:2: invalid UTF-8 at byte 1");
  train::ParallelText t;
  t.src = {"A dog runs.", "Two men."};
  t.tgt = {"Ein Hund rennt.", "Zwei Männer."};
  const ModelConfig c = spm_config();
  const auto pairs = train::parallel_pairs(c, t, "s", "t");
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0].first == Vocab::source(c).encode("A dog runs."));
  CHECK(pairs[1].second == Vocab::target(c).encode("Zwei Männer."));
  const auto refs = train::parallel_refs(c, t, "s");
  CHECK(refs[1].ref == "Zwei Männer.");
}

TEST_CASE("words: a subword side's pieces grouped into words, and the alignment between words") {
  const ModelConfig c = spm_config();
  const Vocab sv = Vocab::source(c), tv = Vocab::target(c);
  // "A man's bike." -> _A _man ' s _bike . : the apostrophe and the period are words of their own.
  const auto ids = sv.encode("A man's bike.");
  const auto words = group_words(sv, ids.data(), ids.size());
  std::vector<std::string> texts;
  for (const auto& w : words) texts.push_back(w.text);
  CHECK(texts == std::vector<std::string>{"A", "man", "'", "s", "bike", "."});
  // Target: pieces of one word stay together; bos and eos are not words.
  const auto de = tv.encode("Ein Mann fährt einem Fahrrad.");
  std::vector<std::int32_t> t = {c.bos};
  t.insert(t.end(), de.begin(), de.end());
  t.push_back(c.eos);
  const auto tw = group_words(tv, t.data(), t.size());
  std::vector<std::string> tt;
  int covered = 0;
  for (const auto& w : tw) tt.push_back(w.text), covered += w.count;
  CHECK(tt == std::vector<std::string>{"Ein", "Mann", "fährt", "einem", "Fahrrad", "."});
  CHECK(covered == int(de.size()));
  CHECK(tw.front().first == 1);  // after bos
  // Word-level weights: columns summed over a source word's pieces, rows averaged over a target word's.
  // Source: 3 pieces in 2 words [0,1] [2]; target: 3 rows in 2 words [0] [1,2], plus an eos row.
  const std::vector<WordSpan> src = {{0, 2, "ab"}, {2, 1, "c"}}, tgt = {{0, 1, "x"}, {1, 2, "yz"}};
  const std::vector<float> att = {0.2f, 0.3f, 0.5f,   // row 0
                                  1.0f, 0.0f, 0.0f,   // row 1
                                  0.0f, 0.4f, 0.6f,   // row 2
                                  0.1f, 0.1f, 0.8f};  // eos: in no word
  const auto w = word_attention(att.data(), 4, 3, tgt, src);
  REQUIRE(w.size() == 4);
  CHECK(w[0] == doctest::Approx(0.5));
  CHECK(w[1] == doctest::Approx(0.5));
  CHECK(w[2] == doctest::Approx((1.0 + 0.4) / 2));
  CHECK(w[3] == doctest::Approx((0.0 + 0.6) / 2));
  CHECK_THROWS_AS(word_attention(att.data(), 4, 3, {{3, 2, "bad"}}, src), std::invalid_argument);
  // Char and word tokenizers: every token is a word.
  ModelConfig g = small_config(Cell::GRU, Style::Luong, Score::Dot);
  g.set_tokenizer(TokenizerKind::Word);
  g.src_tokens = g.tgt_tokens = {};
  for (int i = 0; i < g.src_vocab; ++i) g.src_tokens.push_back("s" + std::to_string(i));
  for (int i = 0; i < g.tgt_vocab; ++i) g.tgt_tokens.push_back("t" + std::to_string(i));
  const Vocab gw = Vocab::source(g);
  const std::vector<std::int32_t> some = {5, 6, 7};
  CHECK(group_words(gw, some.data(), some.size()).size() == 3);
}

TEST_CASE("translation epochs: dev BLEU judges the epochs, saves with the state, and a resumed run repeats them") {
  // A tiny model on eight Multi30K-like pairs: what matters is the bookkeeping, not the quality.
  const ModelConfig c = spm_config();
  train::ParallelText text;
  text.src = {"A dog runs.",   "Two men talk.", "A red car.", "A girl sings.",
              "The man eats.", "A cat sleeps.", "Boys play.", "A woman reads."};
  text.tgt = {"Ein Hund rennt.", "Zwei Männer reden.",  "Ein rotes Auto.", "Ein Mädchen singt.",
              "Der Mann isst.",  "Eine Katze schläft.", "Jungen spielen.", "Eine Frau liest."};
  const auto pairs = train::parallel_pairs(c, text, "s", "t");
  const auto refs = train::parallel_refs(c, text, "s");
  const auto dev = train::bleu_dev(refs);
  train::TrainOptions o;
  o.batch_size = 4;
  o.lr = 0.01f;
  o.warmup = 0;
  o.seed = 3;
  train::EpochOptions e;
  e.epochs = 3;
  e.patience = 0;
  e.eval_beam = 2;
  const auto run = [&](int stop_at, const std::vector<std::uint8_t>* from) {
    Model m(c);
    train::initialize(m, 5);
    train::EpochTrainer et(m, pairs, dev, o, e);
    if (from) et.load_state(from->data(), from->size());
    std::vector<train::DevCounts> devs;
    while (!et.finished() && et.steps_done() != stop_at) {
      const auto out = et.advance();
      if (out.ended) devs.push_back(out.epoch.dev);
    }
    return std::tuple{et.save_state(), devs, et.best_dev(), m.params().data};
  };
  const auto [full_state, full_devs, full_best, full_params] = run(-1, nullptr);
  REQUIRE(full_devs.size() == 3);
  for (const auto& d : full_devs) CHECK(d.size() == 10);  // BleuStats::counts()
  // The best epoch's counts are those of the BLEU re-measured on its weights.
  CHECK(full_best == *std::max_element(full_devs.begin(), full_devs.end(), [](const auto& a, const auto& b) {
          return train::BleuStats::from_counts(a).score() < train::BleuStats::from_counts(b).score();
        }));
  const auto [mid_state, mid_devs, mid_best, mid_params] = run(3, nullptr);  // into epoch 2
  (void)mid_best;
  (void)mid_params;
  const auto [res_state, res_devs, res_best, res_params] = run(-1, &mid_state);
  CHECK(res_params == full_params);
  CHECK(res_best == full_best);
  CHECK(res_state == full_state);
  REQUIRE(mid_devs.size() == 1);
  REQUIRE(res_devs.size() == 2);
  CHECK(res_devs[0] == full_devs[1]);
  CHECK(res_devs[1] == full_devs[2]);
  // The summary names the figure.
  CHECK(dev->short_summary(full_best).rfind("BLEU ", 0) == 0);
}

TEST_CASE("parallel text: sampled segmentations for an epoch (subword regularisation)") {
  const ModelConfig c = spm_config();
  train::ParallelText t;
  const std::string dir = std::string(ATTNSEQ_DATA_DIR) + "/multi30k/raw/";
  t = train::read_parallel(dir + "val.en", dir + "val.de");
  t.src.resize(200), t.tgt.resize(200);
  const auto best = train::parallel_pairs(c, t, "val.en", "val.de");
  const auto e0 = train::sampled_pairs(c, t, best, 0.1, 1, 0);
  REQUIRE(e0.size() == best.size());
  // A pure function of (seed, epoch): again the same; another epoch or seed, other draws.
  CHECK(train::sampled_pairs(c, t, best, 0.1, 1, 0) == e0);
  CHECK(train::sampled_pairs(c, t, best, 0.1, 1, 1) != e0);
  CHECK(train::sampled_pairs(c, t, best, 0.1, 2, 0) != e0);
  // Every draw decodes to the best segmentation's text; most lines are cut otherwise than the best way on each side.
  const Vocab sv = Vocab::source(c), tv = Vocab::target(c);
  int src_other = 0, tgt_other = 0;
  for (std::size_t i = 0; i < e0.size(); ++i) {
    CHECK(sv.decode(e0[i].first.data(), e0[i].first.size()) == sv.decode(best[i].first.data(), best[i].first.size()));
    CHECK(tv.decode(e0[i].second.data(), e0[i].second.size()) ==
          tv.decode(best[i].second.data(), best[i].second.size()));
    src_other += e0[i].first != best[i].first;
    tgt_other += e0[i].second != best[i].second;
  }
  CHECK(src_other > 100);
  CHECK(tgt_other > 100);
  // A large alpha gives the best segmentations themselves.
  CHECK(train::sampled_pairs(c, t, best, 1e4, 1, 3) == best);
  // A draw over the length limit keeps the best segmentation: "the " 500 times is 500 pieces at best,
  // and about 1,250 when every cut is alike (alpha 0), over the 1,024 a source may have.
  train::ParallelText long_text;
  long_text.src = {""};
  for (int i = 0; i < 500; ++i) long_text.src[0] += "the ";
  long_text.tgt = {"Hallo."};
  const auto long_best = train::parallel_pairs(c, long_text, "long.en", "long.de");
  REQUIRE(long_best[0].first.size() == 500);
  const auto drawn = train::sampled_pairs(c, long_text, long_best, 0.0, 1, 0);
  CHECK(drawn[0].first == long_best[0].first);
  Rng rng(1);
  CHECK(sv.encode_sample(long_text.src[0], 0.0, rng).size() > std::size_t(kMaxSourceLength));
}
