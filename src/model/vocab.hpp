// Tokenizers: text <-> ids for one side of a model. `char` splits UTF-8 into code points (so Korean
// and emoji are one token each), `word` splits on ASCII whitespace, `spm` is a SentencePiece model's
// subword pieces (model/spm.hpp), decoded back to text as spm decodes. Unknown pieces map to unk.
// Invalid UTF-8 and over-long text are refused with the byte offset / the limit. Each side of a model
// has its own tokenizer (ModelConfig::src_tokenizer / tgt_tokenizer); the source may fold ASCII case
// before lookup (src_case), so "Knight" finds the ids of a model trained on "KNIGHT".
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "model/config.hpp"

namespace attnseq {

// Splits text into code points; throws std::invalid_argument("invalid UTF-8 at byte N") on bad input.
std::vector<std::string> split_chars(std::string_view text);
// Splits on runs of ASCII whitespace; validates UTF-8 the same way.
std::vector<std::string> split_words(std::string_view text);
// Byte offset of the first sequence split_chars would refuse as invalid UTF-8, or npos if there is
// none. No size limit: it checks whole files (the command line's --batch-file) before they are cut up.
std::size_t invalid_utf8_at(std::string_view text);

// text with every precomposed Hangul syllable (U+AC00-U+D7A3) replaced by its conjoining jamo, leading
// consonant, vowel and final consonant if any (Unicode's canonical decomposition of Hangul, NFD:
// 국 -> U+1100 U+116E U+11A8); everything else as it is. Valid UTF-8 in, valid UTF-8 out.
std::string hangul_jamo(std::string_view text);

class Vocab {
 public:
  Vocab() = default;
  // tokens[i] is the string of id i. Duplicates are refused (they would make text ambiguous).
  Vocab(TokenizerKind kind, std::vector<std::string> tokens, int pad, int bos, int eos, int unk,
        const char* side = "vocabulary", CaseFold fold = CaseFold::Keep,
        std::shared_ptr<const SpmTokenizer> spm = nullptr);
  static Vocab source(const ModelConfig& c) {
    Vocab v(c.src_tokenizer, c.src_tokens, c.pad, c.bos, c.eos, c.unk, "src_vocab", c.src_case, c.src_spm);
    v.jamo_ = c.src_jamo;
    return v;
  }
  static Vocab target(const ModelConfig& c) {
    return Vocab(c.tgt_tokenizer, c.tgt_tokens, c.pad, c.bos, c.eos, c.unk, "tgt_vocab", CaseFold::Keep, c.tgt_spm);
  }

  TokenizerKind kind() const { return kind_; }
  bool has_text() const { return kind_ != TokenizerKind::Ids; }
  CaseFold fold() const { return fold_; }
  bool jamo() const { return jamo_; }  // Hangul syllables read as their jamo (ModelConfig::src_jamo)
  // The pieces text splits into (as typed: case is folded by lookup, not here).
  std::vector<std::string> pieces(std::string_view text) const;
  // Ids of the text's pieces (unknown pieces become unk). Throws for ids-only vocabularies.
  std::vector<std::int32_t> encode(std::string_view text) const;
  // A SentencePiece side's ids of one sampled segmentation (SpmTokenizer::encode_sample: subword
  // regularisation); the checks encode() makes. Throws std::invalid_argument for other tokenizers.
  std::vector<std::int32_t> encode_sample(std::string_view text, double alpha, Rng& rng) const;
  // The string of one id ("#17" for ids-only vocabularies).
  std::string token(std::int32_t id) const;
  // Text of a target sequence: pad, bos and eos are dropped; char joins, word joins with spaces, spm
  // decodes as SentencePiece does (U+2581 becomes a space, byte pieces become their bytes).
  std::string decode(const std::int32_t* ids, std::size_t n) const;
  std::int32_t lookup(const std::string& piece) const;  // after the case fold; unk if absent
  const std::vector<std::string>& tokens() const { return tokens_; }
  std::int32_t unk() const { return unk_; }
  bool is_special(std::int32_t id) const { return id == pad_ || id == bos_ || id == eos_; }  // not text

 private:
  TokenizerKind kind_ = TokenizerKind::Ids;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, std::int32_t> index_;
  int pad_ = 0, bos_ = 1, eos_ = 2, unk_ = 3;
  CaseFold fold_ = CaseFold::Keep;
  bool jamo_ = false;
  std::shared_ptr<const SpmTokenizer> spm_;
  std::vector<std::int32_t> encode_spm(std::string_view text) const;
};

// Makes one side of `c` (source or target) read and write text with a SentencePiece model: its
// tokenizer, its tokens (the pieces), its vocabulary size. The model's special ids must then be the
// tokenizer's (ModelConfig::validate).
void use_spm(ModelConfig& c, bool source, std::shared_ptr<const SpmTokenizer> spm);

// ASCII letters folded to upper or lower case; every other byte (UTF-8 included) unchanged.
std::string fold_case(std::string_view text, CaseFold fold);

}  // namespace attnseq
