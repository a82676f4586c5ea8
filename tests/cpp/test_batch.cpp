// Batch translation (translate_batch, decode_batch, encode_batch, the per-row step): many sources in
// one state give each source exactly what it gets alone, bit for bit, on every configuration and
// weight path, greedy, sampling and beam; a bad source is named by index and nothing is lost.
#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "decode/decode.hpp"
#include "test_util.hpp"

using namespace attnseq;

namespace {

std::vector<ModelConfig> configs() {
  std::vector<ModelConfig> v;
  for (Cell cell : {Cell::GRU, Cell::LSTM}) {
    v.push_back(test::small_config(cell, Style::Luong, Score::Dot));
    v.push_back(test::small_config(cell, Style::Luong, Score::General, true, true, 2, true));
    v.push_back(test::small_config(cell, Style::Luong, Score::Additive, true, false, 1, true));
    v.push_back(test::small_config(cell, Style::Bahdanau, Score::Additive, false, false, 2));
    v.push_back(test::small_config(cell, Style::Bahdanau, Score::Dot, true));
    v.push_back(test::small_config(cell, Style::None, Score::Dot, false, false, 2));
  }
  // Sizes no vector width divides (12 and 5): rows of a batch then start mid-vector in the products and
  // the elementwise kernels over several rows (tanh of h~ over B x Hd), which must not change a bit.
  auto odd = test::small_config(Cell::GRU, Style::Luong, Score::General, false, true);
  odd.dec_hidden = odd.enc_hidden = 12, odd.tgt_emb = 5;
  v.push_back(odd);
  return v;
}

using test::describe;

using decode_checks::check_same;
using decode_checks::sources;

DecodeResult alone(const Model& m, const std::vector<std::int32_t>& src, const DecodeOptions& o) {
  Encoded e;
  m.encode(src.data(), int(src.size()), e);
  return decode(m, e, o);
}

}  // namespace

TEST_CASE("encode_batch gives every source what encode gives it alone, bit for bit") {
  for (const auto& cfg : configs()) {
    CAPTURE(describe(cfg));
    for (int path : {0, 1, 2}) {  // packed f32, plain f32, int8
      CAPTURE(path);
      Model m(cfg);
      test::randomize(m, 5, 1.0f);
      m.prepare(path != 1, path != 1);
      if (path == 2) m.quantize();
      const auto src = sources(9, cfg.src_vocab);
      std::vector<const std::int32_t*> ids;
      std::vector<int> lens;
      for (const auto& s : src) ids.push_back(s.data()), lens.push_back(int(s.size()));
      std::vector<Encoded> batch;
      m.encode_batch(ids.data(), lens.data(), int(src.size()), batch);
      Encoded scratch;
      for (std::size_t i = 0; i < src.size(); ++i) {
        CAPTURE(i);
        Encoded e;
        m.encode(src[i].data(), int(src[i].size()), e);
        CHECK(batch[i].T == e.T);
        CHECK(batch[i].src == e.src);
        CHECK(batch[i].memory == e.memory);
        CHECK(batch[i].keys == e.keys);
        CHECK(batch[i].init_h == e.init_h);
        CHECK(batch[i].init_c == e.init_c);
        CHECK(batch[i].final_h == e.final_h);
        // The same with one scratch kept across encodes (as the npm package does): the same results,
        // and the encoded source holds no working buffers.
        Encoded with_scratch;
        m.encode(src[i].data(), int(src[i].size()), with_scratch, scratch);
        CHECK(with_scratch.memory == e.memory);
        CHECK(with_scratch.keys == e.keys);
        CHECK(with_scratch.init_h == e.init_h);
        CHECK(with_scratch.init_c == e.init_c);
        CHECK(with_scratch.final_h == e.final_h);
        CHECK(with_scratch.run.gi.empty());
        CHECK(with_scratch.run.memory.empty());
      }
    }
  }
}

TEST_CASE("translate_batch equals decoding each source alone: greedy, sampling, beam, prefix, any group size") {
  for (const auto& cfg : configs()) {
    CAPTURE(describe(cfg));
    for (int path : {0, 1, 2}) {
      CAPTURE(path);
      Model m(cfg);
      test::randomize(m, 7, 1.0f);
      m.prepare(path != 1, path != 1);
      if (path == 2) m.quantize();
      const auto src = sources(11, cfg.src_vocab);
      std::vector<DecodeOptions> opts(5);
      opts[0].max_length = 9;                        // greedy
      opts[1].temperature = 0.8f, opts[1].seed = 3;  // sampling: each source its own Rng(seed)
      opts[2].beam = 3, opts[2].max_length = 8;      // beam
      opts[3].beam = 4, opts[3].num_hypotheses = 2;  // beam, fewer hypotheses, automatic max_length
      opts[4].prefix = {5, 6}, opts[4].length_penalty = 0.f;
      for (std::size_t k = 0; k < opts.size(); ++k) {
        CAPTURE(k);
        // One group, several, one source at a time; the groups shared among 3 threads (natively;
        // the wasm module runs them on its one thread), which must change nothing.
        for (int max_rows : {256, 5, 1})
          for (int threads : {1, 3}) {
            CAPTURE(max_rows);
            CAPTURE(threads);
            const auto got = translate_batch(m, src, opts[k], max_rows, threads);
            REQUIRE(got.size() == src.size());
            for (std::size_t i = 0; i < src.size(); ++i) {
              CAPTURE(i);
              check_same(got[i], alone(m, src[i], opts[k]));
            }
          }
      }
    }
  }
}

TEST_CASE("the per-row step: rows of different sources, each row's outputs as in its own state") {
  const auto cfg = test::small_config(Cell::GRU, Style::Luong, Score::General, true, true, 1, true);
  Model m(cfg);
  test::randomize(m, 3, 1.0f);
  const auto src = sources(3, cfg.src_vocab);  // lengths 1, 8, 2
  std::vector<Encoded> e(3);
  for (int i = 0; i < 3; ++i) m.encode(src[i].data(), int(src[i].size()), e[i]);
  const Encoded* rows[3] = {&e[0], &e[1], &e[2]};
  DecoderState st;
  m.start(rows, 3, st, 3);
  CHECK(st.T == 8);
  const std::int32_t prev[3] = {cfg.bos, cfg.bos, cfg.bos};
  m.step(rows, st, prev, 3);
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    DecoderState one;
    m.start(e[i], one, 1);
    m.step(e[i], one, prev, 1);
    const std::size_t T = e[i].T, V = cfg.tgt_vocab;
    CHECK(std::vector<float>(&st.attention[i * 8], &st.attention[i * 8] + T) ==
          std::vector<float>(one.attention.begin(), one.attention.begin() + T));
    for (std::size_t t = T; t < 8; ++t) CHECK(st.attention[i * 8 + t] == 0.f);
    CHECK(std::vector<float>(&st.logits[i * V], &st.logits[i * V] + V) ==
          std::vector<float>(one.logits.begin(), one.logits.begin() + V));
  }
  // A row whose source does not fit the state, or another model's source, is refused.
  Encoded longer;
  const auto lsrc = sources(2, cfg.src_vocab)[1];  // 8 tokens
  std::vector<std::int32_t> ten(10, 4);
  m.encode(ten.data(), 10, longer);
  const Encoded* bad[1] = {&longer};
  CHECK_THROWS_WITH_AS(m.step(bad, st, prev, 1), "step: row 0's source does not fit this decoder state",
                       std::invalid_argument);
  Model other(cfg);
  test::randomize(other, 4, 1.0f);
  Encoded foreign;
  other.encode(lsrc.data(), int(lsrc.size()), foreign);
  const Encoded* mixed[2] = {&e[1], &foreign};
  CHECK_THROWS_AS(m.step(mixed, st, prev, 2), std::invalid_argument);
}

TEST_CASE("translate_batch: a bad source is named by index, its kind kept, and the model stays usable") {
  const auto cfg = test::small_config(Cell::GRU, Style::Luong, Score::Dot);
  Model m(cfg);
  test::randomize(m, 2, 1.0f);
  auto src = sources(4, cfg.src_vocab);
  DecodeOptions o;
  auto empty = src;
  empty[2].clear();
  CHECK_THROWS_WITH_AS(translate_batch(m, empty, o), "source 2: encode: the source is empty (0 tokens)",
                       std::invalid_argument);
  auto out_of_vocab = src;
  out_of_vocab[3][0] = cfg.src_vocab;
  CHECK_THROWS_WITH_AS(translate_batch(m, out_of_vocab, o),
                       doctest::Contains("source 3: encode: source token 0 has id 23"), std::invalid_argument);
  auto long_one = src;
  long_one[1].assign(kMaxSourceLength + 1, 4);
  CHECK_THROWS_AS(translate_batch(m, long_one, o), TooLong);
  DecodeOptions bad_beam;
  bad_beam.beam = kMaxBeam + 1;
  CHECK_THROWS_WITH_AS(translate_batch(m, src, bad_beam), doctest::Contains("source 0: beam is 65"),
                       std::invalid_argument);
  CHECK_THROWS_AS(translate_batch(m, src, o, 0), std::invalid_argument);
  CHECK_THROWS_WITH_AS(translate_batch(m, src, o, kDefaultBatchRows, 0),
                       "translate_batch: threads is 0; it must be in [1, 256]", std::invalid_argument);
  CHECK_THROWS_AS(translate_batch(m, src, o, kDefaultBatchRows, kMaxThreads + 1), std::invalid_argument);
  CHECK(translate_batch(m, {}, o).empty());
  // After all of that, the same answers as before.
  const auto got = translate_batch(m, src, o);
  for (std::size_t i = 0; i < src.size(); ++i) check_same(got[i], alone(m, src[i], o));
  // decode_batch holds at most kMaxRows rows.
  std::vector<Encoded> e(1);
  m.encode(src[0].data(), int(src[0].size()), e[0]);
  std::vector<const Encoded*> many(kMaxRows / 4 + 1, &e[0]);
  DecodeOptions b4;
  b4.beam = 4;
  CHECK_THROWS_WITH_AS(decode_batch(m, many.data(), int(many.size()), b4),
                       doctest::Contains("at most 1024 decoder rows"), std::invalid_argument);
}
