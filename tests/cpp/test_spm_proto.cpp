// The SentencePiece `.model` reader (src/model/spm_proto.hpp) and the checks SpmTokenizer makes when
// it loads one: the fields of real models made by spm_train, one hand-built file per malformation
// (the message must name what is wrong and where), refusals of what is not implemented, and sweeps
// over truncated and byte-flipped files that must raise BadCheckpoint and never crash.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "core/errors.hpp"
#include "model/spm.hpp"
#include "test_util.hpp"

using namespace attnseq;

namespace {

std::string model_bytes(const std::string& name) {
  const std::string path = test::data_path("spm/" + name + ".model");
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The message of the BadCheckpoint that loading `bytes` raises, or "<ok>"; another kind fails.
std::string load_error(const std::string& bytes) {
  try {
    SpmTokenizer t = SpmTokenizer::from_bytes(bytes, "m.model");
    t.decode(t.encode(" A dog 🐕 runs\xFF."));  // a model that loads must also encode without a crash
  } catch (const std::invalid_argument& e) {
    CHECK(kind_of(e) == ErrorKind::BadCheckpoint);
    return e.what();
  }
  return "<ok>";
}

std::string model_error(SpmModel m) {
  try {
    SpmTokenizer t(std::move(m), "m.model");
  } catch (const std::invalid_argument& e) {
    CHECK(kind_of(e) == ErrorKind::BadCheckpoint);
    return e.what();
  }
  return "<ok>";
}

}  // namespace

TEST_CASE("spm model: the fields spm_train wrote are read") {
  const SpmModel u = parse_spm_model(model_bytes("unigram_en"), "unigram_en.model");
  CHECK(u.pieces.size() == 300);
  CHECK(u.trainer.model_type == SpmModelType::Unigram);
  CHECK_FALSE(u.trainer.byte_fallback);
  CHECK(u.trainer.unk_id == 0);
  CHECK(u.trainer.bos_id == 1);
  CHECK(u.trainer.eos_id == 2);
  CHECK(u.trainer.pad_id == -1);
  CHECK(u.trainer.unk_surface == " \xE2\x81\x87 ");
  CHECK(u.normalizer.name == "identity");
  CHECK(u.normalizer.precompiled_charsmap.empty());
  CHECK(u.normalizer.add_dummy_prefix);
  CHECK(u.normalizer.remove_extra_whitespaces);
  CHECK(u.normalizer.escape_whitespaces);
  CHECK(u.pieces[0].piece == "<unk>");
  CHECK(u.pieces[0].type == SpmPieceType::Unknown);
  CHECK(u.pieces[1].type == SpmPieceType::Control);
  CHECK(u.pieces[3].piece == "<sep>");
  CHECK(u.pieces[3].type == SpmPieceType::UserDefined);
  CHECK(u.pieces[5].type == SpmPieceType::Normal);
  CHECK(u.pieces[5].score < 0);

  const SpmModel b = parse_spm_model(model_bytes("bpe_en_bf"), "bpe_en_bf.model");
  CHECK(b.trainer.model_type == SpmModelType::Bpe);
  CHECK(b.trainer.byte_fallback);
  CHECK_FALSE(b.normalizer.remove_extra_whitespaces);
  CHECK(b.pieces[3].piece == "<0x00>");
  CHECK(b.pieces[3].type == SpmPieceType::Byte);
  CHECK(b.pieces[258].piece == "<0xFF>");
  CHECK_FALSE(parse_spm_model(model_bytes("bpe_de"), "bpe_de.model").normalizer.add_dummy_prefix);

  const SpmModel n = parse_spm_model(model_bytes("nfkc_en"), "nfkc_en.model");
  CHECK(n.normalizer.name == "nmt_nfkc");
  // NFKC folds fullwidth letters; identity keeps them.
  CHECK(SpmTokenizer(n, "nfkc_en.model").normalize("\xEF\xBC\xA1") ==
        "\xE2\x96\x81"
        "A");
  CHECK(SpmTokenizer(u, "unigram_en.model").normalize("\xEF\xBC\xA1") == "\xE2\x96\x81\xEF\xBC\xA1");
  CHECK(n.normalizer.precompiled_charsmap.size() > 1000);
}

TEST_CASE("spm model: a malformed precompiled_charsmap is refused, at load or at its first use") {
  SpmModel m = parse_spm_model(model_bytes("nfkc_en"), "nfkc_en.model");
  const std::string good = m.normalizer.precompiled_charsmap;
  CHECK(model_error(m) == "<ok>");
  m.normalizer.precompiled_charsmap = "abc";
  CHECK(model_error(m) == "m.model: precompiled_charsmap: only 3 bytes");
  m.normalizer.precompiled_charsmap = std::string("\xff\xff\x00\x00", 4) + "12345678";
  CHECK(model_error(m) == "m.model: precompiled_charsmap: trie size 65535 does not fit its 12 bytes");
  // A trie cut short: lookups that would read past it raise instead.
  m.normalizer.precompiled_charsmap = std::string("\x08\x00\x00\x00", 4) + good.substr(4, 8) + "x";
  const SpmTokenizer t(m, "m.model");
  const std::string e = test::error_of([&] { t.encode("A dog"); });
  CHECK(e.find("m.model: precompiled_charsmap: trie unit ") == 0);
  CHECK(e.find(" past its 2 units") != std::string::npos);
}

TEST_CASE("spm model: each malformed file is refused with what is wrong and where") {
  const std::string ff9(9, '\xFF');
  CHECK(load_error("") == "m.model: empty file, not a SentencePiece model at byte 0");
  CHECK(load_error("\x0a") == "m.model: truncated varint (pieces) at byte 1");
  CHECK(load_error("\x0a\x05"
                   "ab") == "m.model: length 5 of pieces past the end (2 bytes left) at byte 2");
  CHECK(load_error("\x48" + ff9 + "\x02") == "m.model: varint over 64 bits (field 9) at byte 11");
  CHECK(load_error("\x4b") == "m.model: unsupported wire type 3 (field 9) at byte 1");
  CHECK(load_error(std::string("\x00", 1)) == "m.model: bad field number 0 at byte 1");
  CHECK(load_error("\x08\x01") == "m.model: pieces has wire type 0, not 2 at byte 1");
  CHECK(load_error("\x49"
                   "1234567") == "m.model: truncated fixed64 (field 9) at byte 1");
  CHECK(load_error(std::string("\x0a\x04\x15\x00\x00\x00", 6)) ==
        "m.model: piece 0: truncated fixed32 (score) at byte 3");
  CHECK(load_error("\x0a\x05\x0a\x01"
                   "a"
                   "\x18\x09") == "m.model: piece 0: piece type 9 is not one of 1-6 at byte 7");
  CHECK(load_error("\x12\x02\x18\x07") == "m.model: trainer_spec: model_type 7 is not one of 1-4 at byte 4");
  CHECK(load_error(std::string("\x12\x00", 2)) == "m.model: no pieces (not a SentencePiece model) at byte 2");
  // Unknown fields of every wire type are skipped: a valid model with them appended still loads.
  CHECK(load_error(model_bytes("bpe_de") + "\xf8\x07\x05"
                                           "\x79"
                                           "12345678"
                                           "\x7a\x01x"
                                           "\x7d"
                                           "1234") == "<ok>");
}

TEST_CASE("spm model: a model SentencePiece would refuse is refused") {
  const SpmModel base = parse_spm_model(model_bytes("unigram_en"), "unigram_en.model");
  CHECK(model_error(base) == "<ok>");
  SpmModel m = base;
  m.pieces[7].piece = m.pieces[6].piece;
  CHECK(model_error(m) == "m.model: piece 7 '" + m.pieces[6].piece + "' is already defined");
  m = base;
  m.pieces[0].type = SpmPieceType::Control;
  CHECK(model_error(m) == "m.model: no unknown piece (type UNKNOWN)");
  m = base;
  m.pieces[9].type = SpmPieceType::Unknown;
  CHECK(model_error(m) == "m.model: piece 9 is a second unknown piece (the first is 0)");
  m = base;
  m.pieces[4].piece.clear();
  CHECK(model_error(m) == "m.model: piece 4 is empty");
  m = base;
  m.pieces[8].type = SpmPieceType::Byte;
  CHECK(model_error(m).find("m.model: piece 8 '") == 0);
  m.trainer.byte_fallback = true;
  m.pieces[8].piece = "<0xZZ>";
  CHECK(model_error(m) == "m.model: piece 8 '<0xZZ>' is not a byte piece <0xNN>");
  m.pieces[8].piece = "<0x41>";
  CHECK(model_error(m) == "m.model: byte_fallback is true but byte piece <0x00> is missing");
  m = base;
  m.trainer.model_type = SpmModelType::Word;
  CHECK(model_error(m) == "m.model: model_type WORD is not supported (only UNIGRAM and BPE)");
  m = base;
  m.trainer.treat_whitespace_as_suffix = true;
  CHECK(model_error(m) == "m.model: treat_whitespace_as_suffix is not implemented yet");
}

TEST_CASE("spm model: every truncation and every flipped byte is refused or loads, never crashes") {
  const std::string good = model_bytes("unigram_de_bf");
  int refused = 0;
  for (std::size_t n = 0; n < good.size(); ++n)
    if (load_error(good.substr(0, n)) != "<ok>") ++refused;
  CHECK(refused > int(good.size()) / 2);  // most cuts fall inside a field
  CHECK(load_error(good.substr(0, 3)) != "<ok>");
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0x80);
    load_error(bad);
  }
  CHECK(load_error(good) == "<ok>");
}
