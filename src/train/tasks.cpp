// The task factory, shared helpers (vocab building, uniform index, sample_n) and the TSV task for
// user data. The built-in generators live in task_dates.cpp, task_enko.cpp and task_symbols.cpp.
#include "train/tasks.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "core/errors.hpp"
#include "core/lines.hpp"
#include "model/vocab.hpp"

namespace attnseq::train {

std::vector<std::string> task_names() { return {"dates", "en-ko", "reverse", "copy"}; }

namespace {
const std::vector<std::string>& reserved_tokens() {
  static const std::vector<std::string> r = {"<pad>", "<s>", "</s>", "<unk>"};  // ids 0..3
  return r;
}
}  // namespace

bool is_reserved_token(const std::string& token) {
  const auto& r = reserved_tokens();
  return std::find(r.begin(), r.end(), token) != r.end();
}

std::string read_text_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw std::invalid_argument("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot open '" + path + "'");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw std::invalid_argument("cannot read '" + path + "'");
  return buf.str();
}

std::vector<std::string> make_vocab(std::vector<std::string> tokens) {
  std::vector<std::string> out = reserved_tokens();
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  for (auto& t : tokens)
    if (std::find(out.begin(), out.begin() + 4, t) == out.begin() + 4) out.push_back(std::move(t));
  return out;
}

std::size_t uniform_index(Rng& rng, std::size_t n) {
  if (n == 0) throw std::invalid_argument("uniform_index: n must be > 0");
  return std::size_t(rng.next() % n);
}

void Task::set_vocabularies(ModelConfig& c) const {
  c.src_tokenizer = src_tokenizer();
  c.tgt_tokenizer = tgt_tokenizer();
  c.src_tokens = src_vocab();
  c.tgt_tokens = tgt_vocab();
  c.src_vocab = int(c.src_tokens.size());
  c.tgt_vocab = int(c.tgt_tokens.size());
}

std::unique_ptr<Task> make_task(const std::string& name, const TaskOptions& o) {
  if (name == "dates") return make_dates_task();
  if (name == "en-ko") return make_enko_task();
  if (name == "reverse") return make_reverse_task(o);
  if (name == "copy") return make_copy_task(o);
  std::string valid;
  for (const auto& n : task_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown task \"" + name + "\"; valid tasks: " + valid);
}

std::vector<Example> sample_n(const Task& t, std::uint64_t seed, std::size_t n) {
  Rng rng(seed);
  std::vector<Example> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(t.sample(rng));
  return out;
}

// ---- TSV -----------------------------------------------------------------------------------------
namespace {

class TsvTask final : public Task {
 public:
  TsvTask(const std::string& text, TokenizerKind src, TokenizerKind tgt) : src_kind_(src), tgt_kind_(tgt) {
    for (TokenizerKind kind : {src, tgt})
      if (kind != TokenizerKind::Char && kind != TokenizerKind::Word)
        throw std::invalid_argument(std::string("tsv task: tokenizer must be char or word, not ") + to_string(kind));
    const std::size_t lines =
        std::size_t(std::count(text.begin(), text.end(), '\n')) + (!text.empty() && text.back() != '\n');
    if (lines > std::size_t(kMaxTsvLines))
      throw TooLong("tsv task: " + std::to_string(lines) + " lines; the maximum is " + std::to_string(kMaxTsvLines));
    std::vector<std::string> src_tokens, tgt_tokens;
    for_each_line(text, [&](std::string_view line, std::size_t line_no) {
      if (!line.empty()) add_line(line, long(line_no));  // blank lines carry no example
    });
    if (examples_.empty()) throw std::invalid_argument("tsv task: no examples (the text has no non-blank line)");
    for (const auto& e : examples_) {
      src_tokens.insert(src_tokens.end(), e.src.begin(), e.src.end());
      tgt_tokens.insert(tgt_tokens.end(), e.tgt.begin(), e.tgt.end());
      // Keep the token lists from growing to the size of the whole corpus.
      if (src_tokens.size() > (1u << 16)) src_tokens = dedup(std::move(src_tokens));
      if (tgt_tokens.size() > (1u << 16)) tgt_tokens = dedup(std::move(tgt_tokens));
    }
    src_vocab_ = make_vocab(std::move(src_tokens));
    tgt_vocab_ = make_vocab(std::move(tgt_tokens));
  }

  std::string name() const override { return "tsv"; }
  TokenizerKind tokenizer() const override { return src_kind_; }
  TokenizerKind src_tokenizer() const override { return src_kind_; }
  TokenizerKind tgt_tokenizer() const override { return tgt_kind_; }
  Example sample(Rng& rng) const override { return examples_[uniform_index(rng, examples_.size())]; }
  std::vector<std::string> src_vocab() const override { return src_vocab_; }
  std::vector<std::string> tgt_vocab() const override { return tgt_vocab_; }
  const std::vector<Example>& examples() const { return examples_; }

 private:
  static std::vector<std::string> dedup(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }

  static std::vector<std::string> split(TokenizerKind kind, std::string_view side, long line_no, const char* which,
                                        int max_len) {
    std::vector<std::string> t;
    try {
      t = kind == TokenizerKind::Char ? split_chars(side) : split_words(side);
    } catch (const std::invalid_argument& e) {
      raise_with_context("tsv line " + std::to_string(line_no) + ": " + which + ": ", e);  // too long stays TooLong
    }
    if (t.empty()) throw std::invalid_argument("tsv line " + std::to_string(line_no) + ": empty " + which);
    // A token spelled like a special would become its id (an end token in mid-target): refused.
    for (std::size_t i = 0; i < t.size(); ++i)
      if (is_reserved_token(t[i]))
        throw std::invalid_argument("tsv line " + std::to_string(line_no) + ": " + which + " token " +
                                    std::to_string(i + 1) + " is \"" + t[i] +
                                    "\", the spelling of a reserved token (<pad>, <s>, </s>, <unk>)");
    if (int(t.size()) > max_len)
      throw TooLong("tsv line " + std::to_string(line_no) + ": " + which + " has " + std::to_string(t.size()) +
                    " tokens; the maximum is " + std::to_string(max_len));
    return t;
  }

  void add_line(std::string_view line, long line_no) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      throw std::invalid_argument("tsv line " + std::to_string(line_no) + ": no tab (expected source<TAB>target)");
    // Columns after the second are ignored: manythings.org/Tatoeba files carry an attribution there.
    const std::size_t end = line.find('\t', tab + 1);
    const std::string_view target = line.substr(tab + 1, end == std::string_view::npos ? end : end - tab - 1);
    Example e;
    e.src = split(src_kind_, line.substr(0, tab), line_no, "source", kMaxSourceLength);
    e.tgt = split(tgt_kind_, target, line_no, "target", kMaxTargetLength - 1);  // room for EOS
    examples_.push_back(std::move(e));
  }

  TokenizerKind src_kind_, tgt_kind_;
  std::vector<Example> examples_;
  std::vector<std::string> src_vocab_, tgt_vocab_;
};

}  // namespace

const std::vector<Example>& tsv_examples(const Task& task) {
  const auto* t = dynamic_cast<const TsvTask*>(&task);
  if (!t) throw std::invalid_argument("tsv_examples: the task '" + task.name() + "' is not a TSV task");
  return t->examples();
}

std::unique_ptr<Task> make_tsv_task(const std::string& tsv_text, TokenizerKind kind) {
  return std::make_unique<TsvTask>(tsv_text, kind, kind);
}

std::unique_ptr<Task> make_tsv_task(const std::string& tsv_text, TokenizerKind src, TokenizerKind tgt) {
  return std::make_unique<TsvTask>(tsv_text, src, tgt);
}

}  // namespace attnseq::train
