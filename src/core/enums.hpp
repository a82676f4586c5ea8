// The named choices a model is made of (its cell, attention style and score, tokenizers, case
// folding), and their names: one table per enum (core/enums.cpp) that to_string, parse_name and
// choices read. Below every other rung: the layers (nn/) need the cell and the score.
#pragma once
#include <string>

namespace attnseq {

enum class Cell { GRU, LSTM };
enum class Style { Luong, Bahdanau, None };
enum class Score { Dot, General, Additive };
enum class TokenizerKind { Ids, Char, Word, Spm };  // Spm: SentencePiece subword pieces (model/spm.hpp)
enum class CaseFold { Keep, Upper, Lower };         // what the source tokenizer does to ASCII letters before lookup

const char* to_string(Cell);
const char* to_string(Style);
const char* to_string(Score);
const char* to_string(TokenizerKind);
const char* to_string(CaseFold);  // "keep", "upper", "lower"
// Each enum's names are one table (core/enums.cpp) that to_string above reads too: parse_name sets `out`
// and returns true when `name` is one of them; choices<E>() lists them for messages ("luong, bahdanau
// or none").
bool parse_name(const std::string& name, Cell& out);
bool parse_name(const std::string& name, Style& out);
bool parse_name(const std::string& name, Score& out);
bool parse_name(const std::string& name, TokenizerKind& out);
bool parse_name(const std::string& name, CaseFold& out);
template <class E>
std::string choices();

}  // namespace attnseq
