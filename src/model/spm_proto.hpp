// A SentencePiece `.model` file (a serialised ModelProto) read into plain structs: the pieces, and of
// the trainer and normaliser specs only what encoding and decoding need. Read with a minimal,
// bounds-checked protobuf wire-format reader, so the engine needs no protobuf library.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnseq {

// The values of ModelProto.SentencePiece.Type.
enum class SpmPieceType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

struct SpmPiece {
  std::string piece;
  float score = 0;
  SpmPieceType type = SpmPieceType::Normal;
};

// TrainerSpec.ModelType; only Unigram and Bpe are encoded (spm_tokenizer refuses the others).
enum class SpmModelType { Unigram = 1, Bpe = 2, Word = 3, Char = 4 };

struct SpmTrainerSpec {  // defaults are the proto's own
  SpmModelType model_type = SpmModelType::Unigram;
  bool byte_fallback = false;
  bool treat_whitespace_as_suffix = false;
  int unk_id = 0, bos_id = 1, eos_id = 2, pad_id = -1;
  std::string unk_piece = "<unk>", bos_piece = "<s>", eos_piece = "</s>", pad_piece = "<pad>";
  std::string unk_surface = " \xE2\x81\x87 ";  // what decoding writes for <unk>
};

struct SpmNormalizerSpec {
  std::string name;
  std::string precompiled_charsmap;  // bytes: the double-array trie and its strings (nmt_nfkc and others)
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
};

struct SpmModel {
  std::vector<SpmPiece> pieces;
  SpmTrainerSpec trainer;
  SpmNormalizerSpec normalizer;
  bool has_denormalizer = false;  // a denormalizer_spec with rules (not applied yet; refused)
};

// Parses a `.model` file's bytes; `name` (a file name) starts every error message. A malformed file
// (a truncated field, a bad varint, a length past the end, a bad wire type or enum value) raises
// BadCheckpoint naming the field and its byte offset.
SpmModel parse_spm_model(std::string_view bytes, const std::string& name);

}  // namespace attnseq
