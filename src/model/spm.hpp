// SentencePiece-compatible subword tokenizer: the ids `spm_encode` gives for a `.model` file, and the
// text its decoder gives back. Unigram (Viterbi over piece scores) and BPE (merges by score), user-
// defined pieces matched whole, unknown characters as <unk> (a run of them one <unk>) or, with
// byte_fallback, as <0xNN> byte pieces. Normalisers: the model's precompiled_charsmap (nmt_nfkc and
// the other built-in rules; none for identity), then the spec's add_dummy_prefix,
// remove_extra_whitespaces and escape_whitespaces (U+2581 for spaces) as spm does.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "model/spm_charsmap.hpp"
#include "model/spm_proto.hpp"

namespace attnseq {

class SpmTokenizer {
 public:
  // Checks what SentencePiece checks when it loads a model (no empty or repeated piece, one <unk>,
  // all 256 byte pieces with byte_fallback, a well-formed charsmap) and refuses what this reader does
  // not implement (WORD and CHAR models, a denormaliser, whitespace as suffix); both raise
  // BadCheckpoint starting with `name`. A charsmap whose trie points outside itself raises
  // BadCheckpoint from encode().
  SpmTokenizer(SpmModel model, const std::string& name, std::string bytes = {});
  static SpmTokenizer from_bytes(std::string_view bytes, const std::string& name);
  // The lookup tables point into the pieces it holds: it stays where it was made.
  SpmTokenizer(const SpmTokenizer&) = delete;
  SpmTokenizer& operator=(const SpmTokenizer&) = delete;

  // The .model bytes it was read from (empty when made from an SpmModel): what a checkpoint stores.
  const std::string& bytes() const { return bytes_; }

  std::vector<int> encode(std::string_view text) const;
  // Subword regularisation (Kudo 2018; spm's SampleEncode with nbest_size -1): one segmentation of a
  // unigram model's lattice drawn with probability proportional to exp(alpha * the sum of its pieces'
  // scores), by forward filtering and backward sampling, then the ids as encode() makes them from a
  // segmentation (byte fallback, runs of <unk>). A large alpha tends to encode()'s; 0 draws every
  // segmentation alike. Every segmentation decodes to the same text. Throws std::invalid_argument for
  // a BPE model or an alpha that is not a finite number >= 0.
  std::vector<int> encode_sample(std::string_view text, double alpha, Rng& rng) const;
  // Ids outside [0, size()) raise BadInput naming the id and its position.
  std::string decode(const std::vector<int>& ids) const;

  int size() const { return static_cast<int>(m_.pieces.size()); }
  const SpmModel& model() const { return m_; }
  // Every piece's text, by id: a model's token list for a side that reads this tokenizer.
  std::vector<std::string> piece_texts() const;
  // The id of a piece's text (control and byte pieces too), or the unk id as spm's PieceToId.
  int piece_to_id(std::string_view piece) const;

  // The normalised text the models segment (public for tests).
  std::string normalize(std::string_view text) const;

 private:
  using Segment = std::pair<std::string_view, int>;  // a piece of the normalised text and its id
  std::vector<Segment> encode_unigram(std::string_view s) const;
  std::vector<Segment> encode_bpe(std::string_view s) const;
  std::vector<Segment> sample_unigram(std::string_view s, double alpha, Rng& rng) const;
  template <class F>
  std::size_t for_each_edge(std::string_view s, std::size_t start, F&& f) const;  // spm_segment.cpp
  std::vector<int> ids_of(const std::vector<Segment>& segs) const;                // encode()'s ids of a segmentation
  // Length of the longest user-defined piece at the start of s, or 0.
  std::size_t user_defined_at(std::string_view s) const;
  SpmPieceType type(int id) const { return m_.pieces[std::size_t(id)].type; }

  SpmModel m_;
  std::string bytes_;
  std::optional<SpmCharsmap> charsmap_;  // none when the normaliser is identity
  // NORMAL, USER_DEFINED and UNUSED pieces (what spm's trie and BPE merges look up), and the others.
  std::unordered_map<std::string_view, int> pieces_, reserved_;
  std::vector<int> byte_id_;  // byte value -> id of its <0xNN> piece (byte_fallback only)
  std::vector<int> id_byte_;  // id -> its byte value, or -1 if it is not a byte piece
  // A byte trie over pieces_ (what spm's double array holds), so that finding every piece at a
  // position costs its depth, whatever the length of the longest piece: node * 256 + byte -> child,
  // and each node's piece id or -1.
  std::unordered_map<std::uint64_t, int> trie_next_;
  std::vector<int> trie_id_{-1};
  void trie_add(std::string_view piece, int id);
  // Calls f(length, id) for each piece that is a prefix of s, shortest first.
  template <class F>
  void for_each_prefix(std::string_view s, F&& f) const {
    std::uint64_t node = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto it = trie_next_.find(node * 256 + static_cast<unsigned char>(s[i]));
      if (it == trie_next_.end()) return;
      node = std::uint64_t(it->second);
      if (trie_id_[node] >= 0) f(i + 1, trie_id_[node]);
    }
  }
  int unk_ = -1;
  float min_score_ = 0, max_score_ = 0;  // over NORMAL pieces, as spm computes them
};

}  // namespace attnseq
