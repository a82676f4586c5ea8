// `reverse` and `copy`: random symbol sequences over the 20 letters a..t, length uniform in
// [min_len, max_len]; the target is the source reversed / copied, and the gold alignment is the
// permutation itself (target j <-> source n-1-j, or source j). The simplest sanity checks for attention.
#include <stdexcept>

#include "train/tasks.hpp"

namespace attnseq::train {
namespace {

constexpr int kAlphabet = 20;  // 'a'..'t'

class SymbolTask final : public Task {
 public:
  SymbolTask(bool reverse, const TaskOptions& o) : reverse_(reverse), o_(o) {
    if (o.min_len < 1 || o.max_len < o.min_len || o.max_len > kMaxSourceLength)
      throw std::invalid_argument(std::string(reverse ? "reverse" : "copy") +
                                  " task: need 1 <= min_len <= max_len <= " + std::to_string(kMaxSourceLength) +
                                  ", got min_len " + std::to_string(o.min_len) + ", max_len " +
                                  std::to_string(o.max_len));
  }

  std::string name() const override { return reverse_ ? "reverse" : "copy"; }
  TokenizerKind tokenizer() const override { return TokenizerKind::Char; }

  Example sample(Rng& rng) const override {
    const int n = o_.min_len + int(uniform_index(rng, std::size_t(o_.max_len - o_.min_len + 1)));
    Example e;
    e.src.reserve(n);
    for (int i = 0; i < n; ++i) e.src.emplace_back(1, char('a' + uniform_index(rng, kAlphabet)));
    e.tgt.resize(n);
    e.align.reserve(n);
    for (int j = 0; j < n; ++j) {
      const int i = reverse_ ? n - 1 - j : j;
      e.tgt[j] = e.src[i];
      e.align.emplace_back(i, j);
    }
    return e;
  }

  std::vector<std::string> src_vocab() const override { return vocab(); }
  std::vector<std::string> tgt_vocab() const override { return vocab(); }

 private:
  static std::vector<std::string> vocab() {
    std::vector<std::string> t;
    for (int c = 0; c < kAlphabet; ++c) t.emplace_back(1, char('a' + c));
    return make_vocab(std::move(t));
  }

  bool reverse_;
  TaskOptions o_;
};

}  // namespace

std::unique_ptr<Task> make_reverse_task(const TaskOptions& o) { return std::make_unique<SymbolTask>(true, o); }
std::unique_ptr<Task> make_copy_task(const TaskOptions& o) { return std::make_unique<SymbolTask>(false, o); }

}  // namespace attnseq::train
