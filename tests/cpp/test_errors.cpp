// Error kinds (src/core/errors.hpp) are raised where the errors are detected and survive the places
// that add context to a message: length limits are TooLong, a malformed checkpoint is BadCheckpoint
// (whatever its message says), a bad argument is BadInput. The wasm bindings turn exactly these kinds
// into the codes JavaScript sees, so a wrong kind here is a wrong AttnseqError.code there.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/safetensors.hpp"
#include "model/vocab.hpp"
#include "test_util.hpp"
#include "train/backprop.hpp"
#include "train/tasks.hpp"

using namespace attnseq;

namespace {

struct Caught {
  bool thrown = false;
  ErrorKind kind = ErrorKind::BadInput;
  std::string what;
};

// Runs f and reports the std::invalid_argument it threw: its kind (as the bindings read it) and message.
template <class F>
Caught catch_of(F&& f) {
  Caught c;
  try {
    f();
  } catch (const std::invalid_argument& e) {
    c.thrown = true;
    c.kind = kind_of(e);
    c.what = e.what();
  }
  return c;
}

Model random_model() {
  Model m(test::small_config(Cell::GRU, Style::Luong, Score::Dot));
  test::randomize(m, 7);
  return m;
}

// The checkpoint of `m` with one metadata value replaced (or added).
std::vector<std::uint8_t> with_metadata(const Model& m, const std::string& key, const std::string& value) {
  const auto bytes = save_checkpoint(m);
  const auto f = safetensors::parse(bytes.data(), bytes.size());
  std::vector<std::vector<float>> data;
  data.reserve(f.tensors.size());
  std::vector<safetensors::TensorOut> out;
  for (const auto& t : f.tensors) {
    data.emplace_back(std::size_t(t.numel()));
    safetensors::read_f32(f, t, data.back().data());
    out.push_back({t.name, t.shape, data.back().data()});
  }
  auto meta = f.metadata;
  bool found = false;
  for (auto& kv : meta)
    if (kv.first == key) kv.second = value, found = true;
  if (!found) meta.push_back({key, value});
  return safetensors::write(out, meta);
}

}  // namespace

TEST_CASE("error kinds: every length limit raises TooLong, also behind a context prefix") {
  const Model m = random_model();
  Encoded enc;
  std::vector<std::int32_t> src(kMaxSourceLength + 1, 4);
  auto c = catch_of([&] { m.encode(src.data(), int(src.size()), enc); });
  CHECK(c.kind == ErrorKind::TooLong);
  CHECK(c.what == "encode: the source has 1025 tokens; the maximum is 1024");
  CHECK_THROWS_AS(m.encode(src.data(), int(src.size()), enc), TooLong);

  const std::string text(kMaxTextBytes + 1, 'a');
  CHECK_THROWS_AS(split_chars(text), TooLong);
  CHECK_THROWS_AS(split_words(text), TooLong);

  // The 1025th target token: a session forced past its max_length still stops at the limit.
  m.encode(src.data(), 5, enc);
  Session s(m, enc, DecodeOptions{});
  for (int k = 0; k < kMaxTargetLength; ++k) s.step(4);
  c = catch_of([&] { s.step(4); });
  CHECK(c.kind == ErrorKind::TooLong);
  CHECK(c.what == "the target already has 1024 tokens, the maximum");
  CHECK(s.length() == kMaxTargetLength);

  // A TSV side over the token limit, and one over the text limit: the second passes through the
  // "tsv line N: source: " prefix, which must keep its kind.
  std::string words;
  for (int i = 0; i <= kMaxSourceLength; ++i) words += "w ";
  c = catch_of([&] { train::make_tsv_task(words + "\tx\n", TokenizerKind::Word); });
  CHECK(c.kind == ErrorKind::TooLong);
  CHECK(c.what == "tsv line 1: source has 1025 tokens; the maximum is 1024");
  c = catch_of([&] { train::make_tsv_task("a b\tx\n" + text + "\tx\n", TokenizerKind::Word); });
  CHECK(c.kind == ErrorKind::TooLong);
  CHECK(c.what.rfind("tsv line 2: source: text is 1048577 bytes; the maximum is", 0) == 0);
  CHECK_THROWS_AS(train::make_tsv_task("a b\tx\n" + text + "\tx\n", TokenizerKind::Word), TooLong);

  const ModelConfig& mc = m.config();
  CHECK(catch_of([&] { train::make_batch({src}, {{4}}, mc); }).kind == ErrorKind::TooLong);
}

TEST_CASE("error kinds: a malformed checkpoint is BadCheckpoint, whatever its message says") {
  const Model m = random_model();
  const auto good = save_checkpoint(m);
  // The container (safetensors), cut short.
  auto c = catch_of([&] { load_checkpoint(good.data(), good.size() / 2); });
  CHECK(c.thrown);
  CHECK(c.kind == ErrorKind::BadCheckpoint);
  CHECK_THROWS_AS(load_checkpoint(good.data(), 7), BadCheckpoint);
  // The metadata: a style named "maximum" is a bad file, not a length limit.
  auto bad = with_metadata(m, "style", "maximum");
  c = catch_of([&] { load_checkpoint(bad.data(), bad.size()); });
  CHECK(c.kind == ErrorKind::BadCheckpoint);
  CHECK(c.what == "checkpoint: metadata 'style' is \"maximum\"; expected luong, bahdanau or none");
  // The configuration the file implies: ModelConfig::validate raises BadInput, which a load reports
  // as BadCheckpoint with the same message.
  bad = with_metadata(m, "eos", "999");
  c = catch_of([&] { load_checkpoint(bad.data(), bad.size()); });
  CHECK(c.kind == ErrorKind::BadCheckpoint);
  ModelConfig cfg = m.config();
  cfg.eos = 999;
  const auto direct = catch_of([&] { cfg.validate(); });
  CHECK(direct.kind == ErrorKind::BadInput);
  CHECK(direct.what == c.what);
  // From a file: the path goes in front of the message and the kind stays.
  const std::string path = "test_errors_corrupt.safetensors";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(good.data()), std::streamsize(good.size() - 1));
  }
  c = catch_of([&] { load_checkpoint_file(path); });
  std::remove(path.c_str());
  CHECK(c.kind == ErrorKind::BadCheckpoint);
  CHECK(c.what.rfind(path + ": safetensors: ", 0) == 0);
  // A file that loads is still fine.
  CHECK(load_checkpoint(good.data(), good.size()).config().eos == m.config().eos);
}

TEST_CASE("error kinds: bad arguments are BadInput, and raise() keeps class and kind together") {
  const Model m = random_model();
  Encoded enc;
  const std::int32_t out_of_range[] = {4, 99};
  auto c = catch_of([&] { m.encode(out_of_range, 2, enc); });
  CHECK(c.thrown);
  CHECK(c.kind == ErrorKind::BadInput);
  const std::int32_t src[] = {4, 5, 6};
  m.encode(src, 3, enc);
  DecodeOptions o;
  o.beam = 0;
  CHECK(catch_of([&] { decode(m, enc, o); }).kind == ErrorKind::BadInput);
  o.beam = 1;
  o.max_length = 1;
  Session s(m, enc, o);
  s.step();
  c = catch_of([&] { s.step(); });  // finished, and no token forced
  CHECK(c.kind == ErrorKind::BadInput);
  CHECK(c.what.find("force a token") != std::string::npos);
  // A word in a message decides nothing: this one says "maximum" and is still bad input.
  c = catch_of([&] { train::make_task("maximum"); });
  CHECK(c.kind == ErrorKind::BadInput);
  CHECK(c.what.find("maximum") != std::string::npos);

  for (ErrorKind k : {ErrorKind::BadInput, ErrorKind::TooLong, ErrorKind::BadCheckpoint, ErrorKind::NotLoaded,
                      ErrorKind::NotEncoded}) {
    CAPTURE(int(k));
    c = catch_of([&] { raise(k, "m"); });
    CHECK(c.kind == k);
    CHECK(c.what == "m");
    c = catch_of([&] {
      try {
        raise(k, "inner");
      } catch (const std::invalid_argument& e) {
        raise_with_context("outer: ", e);
      }
    });
    CHECK(c.kind == k);
    CHECK(c.what == "outer: inner");
  }
  CHECK_THROWS_AS(raise(ErrorKind::TooLong, "x"), TooLong);
  CHECK_THROWS_AS(raise(ErrorKind::BadCheckpoint, "x"), BadCheckpoint);
  CHECK_THROWS_AS(raise(ErrorKind::BadInput, "x"), BadInput);
}
