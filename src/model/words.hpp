// Words of a tokenized sequence, for the views that show words rather than subword pieces. With a
// SentencePiece side, a piece that starts with U+2581 (spm's mark for a preceding space) starts a word
// and the pieces after it continue it, except that a piece of punctuation only is a word of its own
// ("bike." is _bike + ".": two words); with char and word tokenizers each token is a word of its own.
// The word-level alignment sums a source word's columns (its pieces share the weight the decoder gave
// the word) and averages a target word's rows (each row sums to 1, so the word's row does too).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/vocab.hpp"

namespace attnseq {

struct WordSpan {
  int first = 0;     // index of its first token in the sequence
  int count = 0;     // tokens it spans
  std::string text;  // the tokens decoded together ("Fahrrad" for _Fahr rad)
};

// The words of ids[0..n): pad, bos and eos are not words (a span never covers one).
std::vector<WordSpan> group_words(const Vocab& v, const std::int32_t* ids, std::size_t n);

// Piece-level attention (rows x cols, row-major) to word level (tgt.size() x src.size()): each word's
// column is the sum of its pieces' columns, each word's row the mean of its pieces' rows. Rows of
// tokens outside every target span (eos) are left out. Spans must lie inside rows and cols
// (std::invalid_argument otherwise).
std::vector<float> word_attention(const float* attention, int rows, int cols, const std::vector<WordSpan>& tgt,
                                  const std::vector<WordSpan>& src);

}  // namespace attnseq
