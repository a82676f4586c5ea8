// Lexicon files (lexicon.hpp).
#include "cli/lexicon.hpp"

#include "core/lines.hpp"

#include <algorithm>
#include <stdexcept>

#include "train/tasks.hpp"

namespace attnseq::cli {

namespace {
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// The pronunciation's phonemes joined by single spaces.
std::string normalised(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && space(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !space(s[j])) ++j;
    if (j > i) out += (out.empty() ? "" : " ") + s.substr(i, j - i);
    i = j;
  }
  return out;
}

std::string ascii_case(std::string s, bool upper) {
  for (char& c : s) {
    if (upper && c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  }
  return s;
}
}  // namespace

Lexicon Lexicon::read(const std::string& path) { return parse(train::read_text_file(path), path); }

Lexicon Lexicon::parse(const std::string& text, const std::string& name) {
  Lexicon lex;
  lex.name_ = name;
  for_each_line(text, [&](std::string_view view, std::size_t line_no) {
    const std::string line(view);
    if (normalised(line).empty()) return;
    auto bad = [&](const std::string& why) {
      return std::invalid_argument(name + ":" + std::to_string(line_no) + ": " + why +
                                   " (a lexicon line is WORD<TAB>PRONUNCIATION)");
    };
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) throw bad("no tab");
    const std::string word = line.substr(0, tab), rest = line.substr(tab + 1);
    if (word.empty()) throw bad("no word before the tab");
    if (std::any_of(word.begin(), word.end(), space)) throw bad("the word '" + word + "' holds a space");
    if (rest.find('\t') != std::string::npos) throw bad("more than one tab");
    const std::string pron = normalised(rest);
    if (pron.empty()) throw bad("no pronunciation for '" + word + "'");
    auto& prons = lex.map_[word];
    if (std::find(prons.begin(), prons.end(), pron) == prons.end()) prons.push_back(pron);
  });
  return lex;
}

const std::vector<std::string>* Lexicon::find(const std::string& text) const {
  const std::string word = normalised(text);
  if (word.empty() || word.find(' ') != std::string::npos) return nullptr;
  for (const std::string& key : {word, ascii_case(word, false), ascii_case(word, true)}) {
    const auto it = map_.find(key);
    if (it != map_.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace attnseq::cli
