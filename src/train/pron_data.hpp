// Pronunciation dictionaries, `WORD<TAB>PH PH ...`: a word with several pronunciations on several lines
// (.train) or as several tab-separated references on one line (.ref). Two formats:
//   ARPAbet, CMUdict's G2P split (data/cmudict/README.md): words are A-Z and the apostrophe, phonemes
//   the 39 stressless ARPAbet ones;
//   IPA, the SIGMORPHON 2021 task's (data/sigmorphon2021-g2p/README.md): a word is any text without
//   control characters, taken as given (NFC, spaces allowed); a phone is any run of non-space
//   characters (one or more code points: `t͡ɕ͈`), and a language's phone set is what its training
//   file holds (pron_phones).
// Reading is all or nothing: malformed input throws naming the file, the line and what is wrong.
// Also the seeded development split of the training words (by word, independent of file order).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnseq::train {

// The 39 phonemes, sorted (AA AE AH ... ZH).
const std::vector<std::string>& arpabet_phonemes();
bool is_arpabet(std::string_view phoneme);

enum class PronFormat { Arpabet, Ipa };
const char* to_string(PronFormat);  // "arpabet", "ipa"
// "arpabet" or "ipa"; anything else throws std::invalid_argument naming `what`.
PronFormat pron_format(const std::string& name, const std::string& what);

struct PronEntry {
  std::string word;  // ARPAbet: upper-case A-Z and apostrophes; IPA: the word as given
  // Each accepted pronunciation, phonemes joined by single spaces ("AA B ER G"), in file order,
  // without repeats. Stored joined because a prediction is right when its text equals one of them.
  std::vector<std::string> refs;
};

struct PronData {
  std::vector<PronEntry> entries;  // one per distinct word, in order of first appearance
  std::size_t lines = 0;           // data lines read (a trailing newline ends the last line)
  std::size_t references() const;  // pronunciations over all words
};

// Parses the text of one file; `name` is what errors call the file. Throws std::invalid_argument
// "NAME:LINE: what is wrong" for: a line without a tab, an empty word, an empty pronunciation, an empty
// line; ARPAbet: a character outside A-Z and the apostrophe, a phoneme outside the 39; IPA: text that
// is not UTF-8, a control character in the word or a phone. A final "\r" on a line is tolerated (files
// saved with CRLF). Lines of the same word are merged into one entry.
PronData parse_pron(std::string_view text, const std::string& name, PronFormat format = PronFormat::Arpabet);
// Reads and parses a file (errors name `path`); a directory or an unreadable file throws
// std::invalid_argument naming it (tasks.hpp, read_text_file).
PronData read_pron_file(const std::string& path, PronFormat format = PronFormat::Arpabet);
// Every phone of the data's pronunciations, sorted by their bytes, each once: an IPA language's
// target vocabulary, read from its training file.
std::vector<std::string> pron_phones(const PronData& data);
// Every character (code point) of the data's words, sorted by their bytes, each once.
std::vector<std::string> pron_letters(const PronData& data);

// A pronunciation's phonemes ("AA B ER G" -> {"AA", "B", "ER", "G"}).
std::vector<std::string> split_phonemes(std::string_view ref);

struct PronSplit {
  std::vector<PronEntry> train, dev;  // each in the input's order
};
// Holds out round(fraction * words) words for development: the words whose seeded hash of their
// spelling is smallest. The choice depends only on the seed and the set of words (not on their order
// or on other data), so it is stable for a seed. fraction in [0, 1), else std::invalid_argument.
PronSplit split_dev(const PronData& data, double fraction, std::uint64_t seed);
// The hash split_dev ranks words by (FNV-1a of the spelling, mixed with the seed by splitmix64).
std::uint64_t word_hash(std::string_view word, std::uint64_t seed);

}  // namespace attnseq::train
