// libFuzzer target: arbitrary bytes as a checkpoint. load_checkpoint must either refuse them with
// std::invalid_argument or return a model that works: it then encodes a short source (ids 4, 5
// clamped to the vocabulary, and a short text through the model's own tokenizer if it has one),
// decodes (max_length 4) greedily, with a beam and a forced prefix, and by sampling, on both
// inference paths (per-token tables and plain products), and saves and reloads
// it (the reload must succeed and save the same bytes), then all of it again on its int8 copy
// (Model::quantize). Everything else is a finding: a crash, a
// sanitizer report, any other exception, or an invalid_argument from a model that had loaded.
// Seeds (tests/fuzz/corpus/checkpoint): four parity fixtures (one of them also as int8), tiny saved
// models of each style (char/word vocabularies, F16/BF16, weights of +-3e38), three malformed headers, and the inputs
// libFuzzer found (SHA-1 names, merged with -merge=1). tests/fuzz/run.sh builds and runs it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "model/vocab.hpp"

using namespace attnseq;

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_checkpoint: %s: %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

void decode_all(const Model& m, const std::vector<std::int32_t>& src) {
  Encoded enc;
  m.encode(src.data(), int(src.size()), enc);
  DecodeOptions o;
  o.max_length = 4;
  const DecodeResult g = decode(m, enc, o);
  if (g.hypotheses.size() != 1 || g.hypotheses[0].tokens.empty() || g.hypotheses[0].tokens.size() > 4 ||
      g.hypotheses[0].attention.size() != g.hypotheses[0].tokens.size() * src.size())
    finding("greedy result", "bad shape");
  for (auto t : g.hypotheses[0].tokens)
    if (t < 0 || t >= m.config().tgt_vocab) finding("greedy token out of range", std::to_string(t));
  o.beam = 3;
  o.prefix = {std::min<std::int32_t>(4, m.config().tgt_vocab - 1)};
  const DecodeResult b = decode(m, enc, o);
  if (b.hypotheses.empty() || b.hypotheses.size() > 3) finding("beam result", std::to_string(b.hypotheses.size()));
  for (const auto& h : b.hypotheses) {
    if (h.tokens.empty() || h.tokens[0] != o.prefix[0]) finding("beam prefix", "not kept");
    for (auto t : h.tokens)
      if (t < 0 || t >= m.config().tgt_vocab) finding("beam token out of range", std::to_string(t));
  }
  DecodeOptions s;  // temperature sampling
  s.max_length = 4;
  s.temperature = 0.7f;
  s.seed = 42;
  const DecodeResult r = decode(m, enc, s);
  for (auto t : r.hypotheses.at(0).tokens)
    if (t < 0 || t >= m.config().tgt_vocab) finding("sampled token out of range", std::to_string(t));
}

void exercise(Model& m) {
  const auto& c = m.config();
  const std::int32_t top = c.src_vocab - 1;
  const std::vector<std::int32_t> ids = {std::min<std::int32_t>(4, top), std::min<std::int32_t>(5, top)};
  decode_all(m, ids);

  if (c.has_text()) {
    // Duplicate tokens are legal in the file but refused by the Vocab: that is an expected refusal.
    Vocab src, tgt;
    try {
      src = Vocab::source(c);
      tgt = Vocab::target(c);
    } catch (const std::invalid_argument&) {
      return;
    }
    std::vector<std::int32_t> text_ids = src.encode("ab \xEC\xA0\x9C");  // "ab 제"
    for (auto t : text_ids)
      if (t < 0 || t >= c.src_vocab) finding("vocab id out of range", std::to_string(t));
    if (text_ids.empty()) text_ids = ids;
    Encoded enc;
    m.encode(text_ids.data(), int(text_ids.size()), enc);
    DecodeOptions o;
    o.max_length = 4;
    const DecodeResult r = decode(m, enc, o);
    (void)tgt.decode(r.hypotheses[0].tokens.data(), r.hypotheses[0].tokens.size());
  }

  // The plain matrix path (no per-token tables) must work as well.
  m.prepare(false);
  decode_all(m, ids);
  m.prepare(true);

  // What loaded must save, reload and save to the same bytes.
  const std::vector<std::uint8_t> a = save_checkpoint(m);
  Model again = load_checkpoint(a.data(), a.size());
  if (save_checkpoint(again) != a) finding("save/load/save", "bytes differ");

  // Held as int8 (its weights are finite, so quantize() cannot refuse), all of the above again.
  if (!m.quantized()) {
    m.quantize();
    exercise(m);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // libFuzzer passes a heap copy of exactly `size` bytes, so ASan sees any read past the end.
  try {
    Model m = load_checkpoint(data, size);
    try {
      exercise(m);
    } catch (const std::invalid_argument& e) {
      finding("a loaded model refused to run", e.what());
    }
  } catch (const std::invalid_argument&) {
    // A refused file: expected.
  }
  return 0;
}
