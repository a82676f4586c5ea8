// Each enum's names, in one table (core/enums.hpp).
#include "core/enums.hpp"

#include <utility>
#include <vector>

namespace attnseq {

namespace {
template <class E>
using Names = std::vector<std::pair<E, const char*>>;
// The one table of each enum's names, in the order messages list them.
template <class E>
const Names<E>& names();
template <>
const Names<Cell>& names() {
  static const Names<Cell> t = {{Cell::GRU, "gru"}, {Cell::LSTM, "lstm"}};
  return t;
}
template <>
const Names<Style>& names() {
  static const Names<Style> t = {{Style::Luong, "luong"}, {Style::Bahdanau, "bahdanau"}, {Style::None, "none"}};
  return t;
}
template <>
const Names<Score>& names() {
  static const Names<Score> t = {{Score::Dot, "dot"}, {Score::General, "general"}, {Score::Additive, "additive"}};
  return t;
}
template <>
const Names<TokenizerKind>& names() {
  static const Names<TokenizerKind> t = {{TokenizerKind::Char, "char"},
                                         {TokenizerKind::Word, "word"},
                                         {TokenizerKind::Spm, "spm"},
                                         {TokenizerKind::Ids, "ids"}};
  return t;
}
template <>
const Names<CaseFold>& names() {
  static const Names<CaseFold> t = {{CaseFold::Upper, "upper"}, {CaseFold::Lower, "lower"}, {CaseFold::Keep, "keep"}};
  return t;
}

template <class E>
const char* name_of(E e) {
  for (const auto& [v, n] : names<E>())
    if (v == e) return n;
  return "?";
}
template <class E>
bool parse(const std::string& name, E& out) {
  for (const auto& [v, n] : names<E>())
    if (name == n) return out = v, true;
  return false;
}
}  // namespace

const char* to_string(Cell c) { return name_of(c); }
const char* to_string(Style s) { return name_of(s); }
const char* to_string(Score s) { return name_of(s); }
const char* to_string(TokenizerKind t) { return name_of(t); }
const char* to_string(CaseFold c) { return name_of(c); }
bool parse_name(const std::string& name, Cell& out) { return parse(name, out); }
bool parse_name(const std::string& name, Style& out) { return parse(name, out); }
bool parse_name(const std::string& name, Score& out) { return parse(name, out); }
bool parse_name(const std::string& name, TokenizerKind& out) { return parse(name, out); }
bool parse_name(const std::string& name, CaseFold& out) { return parse(name, out); }

template <class E>
std::string choices() {
  std::string out;
  const auto& all = names<E>();
  std::size_t i = 0;
  for (const auto& [v, n] : all) {
    (void)v;
    out += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + std::string(n);
    ++i;
  }
  return out;
}
template std::string choices<Cell>();
template std::string choices<Style>();
template std::string choices<Score>();
template std::string choices<TokenizerKind>();
template std::string choices<CaseFold>();

}  // namespace attnseq
