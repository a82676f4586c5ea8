// A pronunciation lexicon for `attnseq translate --lexicon FILE`: WORD<TAB>PRONUNCIATION lines (as
// data/cmudict's files; a word on several lines has several pronunciations, the first its main one;
// blank lines are skipped), the same format and rules as the npm package's parseLexicon()
// (wasm/pronounce.js). A source that is a lexicon word is answered from it.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace attnseq::cli {

class Lexicon {
 public:
  // Reads and checks `path`; throws std::invalid_argument naming the file and line of a malformed line.
  static Lexicon read(const std::string& path);
  // Parses `text`, naming `name` in errors.
  static Lexicon parse(const std::string& text, const std::string& name);
  // The pronunciations of `word` (trimmed of spaces), looked up as written, with its ASCII letters
  // lower-cased, then upper-cased; nullptr when the lexicon lacks it.
  const std::vector<std::string>* find(const std::string& word) const;
  std::size_t size() const { return map_.size(); }
  const std::string& name() const { return name_; }

 private:
  std::map<std::string, std::vector<std::string>> map_;
  std::string name_;
};

}  // namespace attnseq::cli
