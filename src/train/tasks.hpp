// Built-in training tasks: seeded generators of (source, target, gold alignment) triples, so the
// attention a model learns can be scored against the truth (alignment error rate). Tasks: `dates`
// (human-written dates -> ISO), `en-ko` (a toy English -> Korean grammar), `reverse`, `copy`, plus
// user data from TSV (no gold alignments). Formats and alignment conventions: docs/tasks.md.
// Training loops, batching and id conversion are left to the trainer (they use the vocab lists here).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.hpp"
#include "model/config.hpp"  // TokenizerKind

namespace attnseq::train {

struct Example {
  std::vector<std::string> src;            // source tokens (char tasks: one UTF-8 code point each; word tasks: words)
  std::vector<std::string> tgt;            // target tokens (no BOS/EOS)
  std::vector<std::pair<int, int>> align;  // gold links (source position, target position); "sure" links
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  virtual TokenizerKind tokenizer() const = 0;  // Char or Word (config.hpp); the source's if the sides differ
  // Each side's tokenizer (a model's src_tokenizer / tgt_tokenizer); both are tokenizer() unless a task says otherwise.
  virtual TokenizerKind src_tokenizer() const { return tokenizer(); }
  virtual TokenizerKind tgt_tokenizer() const { return tokenizer(); }
  virtual Example sample(Rng& rng) const = 0;  // one example; deterministic given the rng state
  // Complete vocabularies, specials first: "<pad>", "<s>", "</s>", "<unk>" (ids 0..3), then every token the task can
  // produce, sorted.
  virtual std::vector<std::string> src_vocab() const = 0;
  virtual std::vector<std::string> tgt_vocab() const = 0;
  // Sets c's tokenizers, vocabularies and their sizes to this task's (both trainers' model setup).
  void set_vocabularies(ModelConfig& c) const;
};

struct TaskOptions {
  int min_len = 1;   // reverse/copy: shortest sequence (>= 1)
  int max_len = 60;  // reverse/copy: longest sequence (min_len..kMaxSourceLength)
};

// "dates", "en-ko", "reverse", "copy"; unknown name -> std::invalid_argument listing the valid ones.
std::unique_ptr<Task> make_task(const std::string& name, const TaskOptions& o = {});
// User data: TSV of source<TAB>target per line (tokenized with `kind`); no gold alignments (align empty).
// Vocab built from the data (tokens seen), specials first. Bad lines (no tab, empty side, invalid UTF-8)
// -> std::invalid_argument naming the line number. Max 1,000,000 lines. Samples uniformly from the lines.
// Blank lines are skipped; columns after the second are ignored.
std::unique_ptr<Task> make_tsv_task(const std::string& tsv_text, TokenizerKind kind);
// The same with a tokenizer per side, e.g. Char source and Word target for spelling -> phonemes. A
// leading BOM is dropped; a token spelled like a reserved one (<pad>, <s>, </s>, <unk>) is refused
// naming the line.
std::unique_ptr<Task> make_tsv_task(const std::string& tsv_text, TokenizerKind src, TokenizerKind tgt);
// Every example of a TSV task, one per non-blank line in file order (to score each line once); throws
// std::invalid_argument for another task.
const std::vector<Example>& tsv_examples(const Task& task);
// A whole file as bytes; std::invalid_argument naming it when it is a directory or cannot be read.
std::string read_text_file(const std::string& path);
// n examples from Rng(seed).
std::vector<Example> sample_n(const Task& t, std::uint64_t seed, std::size_t n);
// The seed of the held-out examples: `attnseq eval`'s and Trainer.evaluate()'s default, and the seed of
// every held-out table in models/README.md and of the tests that hold the shipped models to them. No
// training run draws from it (models/train.sh uses seeds 1-21).
constexpr std::uint64_t kHeldOutSeed = 20261130;

// ---- shared helpers (used by the task files; handy for tools and tests) ----------------------------
constexpr int kMaxTsvLines = 1000000;   // lines a TSV task accepts
std::vector<std::string> task_names();  // the names make_task accepts, in documentation order
// "<pad>", "<s>", "</s>", "<unk>" then the distinct tokens sorted bytewise (= code point order); tokens
// equal to a special are not repeated.
std::vector<std::string> make_vocab(std::vector<std::string> tokens);
bool is_reserved_token(const std::string& token);  // one of the four specials' spellings
// Uniform index in [0, n) from one rng draw (modulo; the bias, n / 2^64, is negligible). n > 0.
std::size_t uniform_index(Rng& rng, std::size_t n);

std::unique_ptr<Task> make_dates_task();
std::unique_ptr<Task> make_enko_task();
std::unique_ptr<Task> make_reverse_task(const TaskOptions& o);
std::unique_ptr<Task> make_copy_task(const TaskOptions& o);

// ---- dates ---------------------------------------------------------------------------------------
constexpr int kDateFormats = 93;
constexpr int kDateCases = 3;  // letter case of the whole source: 0 as the format writes it, 1 lower, 2 upper
const char* date_format_name(int format);  // e.g. "Weekday, Month D, YYYY"; throws outside 0..kDateFormats-1
bool date_format_has_letters(int format);  // whether the format writes a month name (so letter case matters)
// One form = a format in a letter case, e.g. "Mon D, YYYY, upper case"; a format without letters, or
// case 0, is named by the format alone. Throws outside the ranges.
std::string date_form_name(int format, int letter_case);
// Day of week of a proleptic Gregorian date: 0 = Monday ... 6 = Sunday.
int weekday(int year, int month, int day);
// Whether `iso` is exactly "YYYY-MM-DD" (ASCII digits) naming a day of the proleptic Gregorian
// calendar (month 01..12, day within the month, 29 February in leap years only).
bool is_calendar_date(const std::string& iso);
// The example for one date (1950-01-01..2049-12-31) written in one format and letter case; throws
// std::invalid_argument for an invalid date, format or case.
Example render_date(int year, int month, int day, int format, int letter_case = 0);
struct DateSample {
  int year = 0, month = 0, day = 0;  // the date drawn
  int format = 0;                    // the format drawn (0..kDateFormats-1)
  int letter_case = 0;               // the letter case drawn (0..kDateCases-1), drawn for every format
  Example example;                   // what the dates task's sample() returns for the same rng state
};
DateSample sample_date(Rng& rng);

// ---- en-ko ---------------------------------------------------------------------------------------
// Parses one English sentence of the toy grammar (words, no punctuation) and returns it with its Korean
// translation and alignment, e.g. {"Jane","went","to","the","store"} -> {"제인이","가게에","갔다"}.
// Sentences outside the grammar (unknown words, wrong article, wrong object for the verb, ...) ->
// std::invalid_argument naming the word position.
Example translate_enko(const std::vector<std::string>& english);
// Whether a Hangul syllable word ends in a final consonant (batchim): (code - 0xAC00) % 28 != 0.
// Throws std::invalid_argument if the word's last code point is not a Hangul syllable.
bool has_batchim(const std::string& word);

}  // namespace attnseq::train
