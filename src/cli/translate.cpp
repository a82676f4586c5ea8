// `attnseq translate` and `attnseq info`: load a checkpoint, decode, print tokens and the alignment
// as a shaded text heatmap (rows: target tokens, columns: source tokens) or as JSON in the schema
// README.md's "Command line" section gives, the same as `npx attnseq translate --json` prints.
#include <unistd.h>
#include <algorithm>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/decode_flags.hpp"
#include "cli/lexicon.hpp"
#include "cli/models.hpp"
#include "cli/terminal.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "decode/decode.hpp"
#include "kernels/kernels.hpp"
#include "model/checkpoint.hpp"
#include "model/json.hpp"
#include "model/vocab.hpp"
#include "model/words.hpp"

namespace attnseq::cli {
namespace {

// "char", or "char -> word" when the sides differ, then the source's case fold if any.
std::string tokenizer_str(const ModelConfig& c) {
  std::string s = to_string(c.src_tokenizer);
  if (c.tgt_tokenizer != c.src_tokenizer) s += std::string(" -> ") + to_string(c.tgt_tokenizer);
  if (c.src_case != CaseFold::Keep) s += std::string(", src_case ") + to_string(c.src_case);
  if (c.src_jamo) s += ", Hangul read as jamo";
  return s;
}

struct Args {
  std::vector<std::string> models;  // --model, once or (an ensemble) more
  std::string text, ids, prefix, batch_file, lexicon;
  bool json = false, has_text = false, has_batch_file = false, has_threads = false, help = false;
  int threads = default_threads();
  DecodeOptions opt;
};

// translate's options: the decode options' table (decode/options.hpp) and translate's own.
const std::vector<Option>& translate_options() {
  static const std::vector<Option> t = [] {
    std::vector<Option> v = {
        {"--model", "FILE", "", ".safetensors checkpoint (required); again for an ensemble (decoding together)"}};
    for (const Option& o : decode_cli_options(kScopeOne)) v.push_back(o);
    const std::vector<Option> rest = {
        {"--prefix", "TEXT", "", "force the first target tokens (ids like 5,6 for an ids-only model)"},
        {"--ids", "5,17,42", "", "the source as token ids instead of TEXT"},
        {"--lexicon", "FILE", "",
         "WORD<TAB>PRONUNCIATION lines: a source that is one of its words is answered from it (no alignment)"},
        {"--batch-file", "FILE", "",
         "translate every non-blank line of FILE (- = standard input) in one batch, printing each as TEXT would"},
        threads_option("--batch-file: threads sharing the batch", "the output is the same for any N"),
        json_option("print one JSON object (README.md, \"Command line\") instead of text"),
        help_option(),
    };
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  }();
  return t;
}

const std::vector<Option>& info_options() {
  static const std::vector<Option> t = {
      {"--model", "FILE", "", ".safetensors checkpoint (required)"},
      help_option(),
  };
  return t;
}

// `info` takes only --model; `translate` the rest too. Unknown flags and stray arguments are errors.
Args parse(const std::vector<std::string>& a, const char* command) {
  const bool info = std::string(command) == "info";
  const auto& table = info ? info_options() : translate_options();
  Args r;
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto value = [&]() -> const std::string& {
      if (i + 1 >= a.size()) throw UsageError(a[i] + " needs a value");
      return a[++i];
    };
    const std::string& f = a[i];
    const bool flag = f.size() > 2 && f.compare(0, 2, "--") == 0;
    if (flag && !find_option(table, f)) throw UsageError("unknown option " + f + " for '" + command + "'");
    // A repeated option would silently lose one of its values.
    // (--model of translate is the exception: each is a member of an ensemble.)
    if (flag && !(f == "--model" && !info) && std::find(seen.begin(), seen.end(), f) != seen.end())
      throw UsageError(f + " is given twice");
    if (flag) seen.push_back(f);
    if (f == "--help") {
      r.help = true;
      return r;
    } else if (f == "--model")
      r.models.push_back(value());
    else if (info)
      throw UsageError("unexpected argument '" + f + "'");
    else if (const DecodeOptionSpec* d = decode_option_by_flag(f))
      set_from_flag(r.opt, *d, value());
    else if (f == "--prefix")
      r.prefix = value();
    else if (f == "--ids")
      r.ids = value();
    else if (f == "--lexicon")
      r.lexicon = value();
    else if (f == "--batch-file")
      r.batch_file = value(), r.has_batch_file = true;
    else if (f == "--threads")
      r.threads = int(parse_int_in(f, value(), 1, kMaxThreads)), r.has_threads = true;
    else if (f == "--json")
      r.json = true;
    else if (flag)
      throw std::logic_error("option " + f + " is in the table but not parsed");
    else if (!r.has_text)
      r.text = f, r.has_text = true;
    else
      throw UsageError("unexpected argument '" + f + "' (give the source text as one argument: quote it)");
  }
  if (r.models.empty()) throw UsageError("--model FILE is required");
  return r;
}

// Comma-separated ids for `flag` (--ids, or --prefix of an ids-only model); the vocabulary size is
// checked where they are used.
std::vector<std::int32_t> parse_ids(const char* flag, const std::string& s) {
  std::vector<std::int32_t> out;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = s.find(',', i);
    const std::string part = s.substr(i, j == std::string::npos ? std::string::npos : j - i);
    out.push_back(std::int32_t(parse_int_in(flag, part, 0, INT32_MAX)));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

// --prefix TEXT as target ids, refusing pieces the vocabulary lacks: the tokenizer would make them unk,
// and the decoder would be forced to write <unk> (the unk token's own spelling is accepted), as the
// npm package refuses them (wasm/attnseq.js, knownTargetIds).
std::vector<std::int32_t> known_target_ids(const Vocab& tv, const std::string& text) {
  std::vector<std::int32_t> ids;
  std::vector<std::string> missing;
  const std::string unk = tv.token(tv.unk());
  for (const auto& piece : tv.pieces(text)) {
    ids.push_back(tv.lookup(piece));
    if (ids.back() == tv.unk() && piece != unk && std::find(missing.begin(), missing.end(), piece) == missing.end())
      missing.push_back(piece);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + json::quote(m);
    throw std::invalid_argument("--prefix: " + list + (missing.size() == 1 ? " is" : " are") +
                                " not in the model's target vocabulary");
  }
  return ids;
}

// Terminal columns a UTF-8 string takes: East Asian wide code points (Hangul, CJK, fullwidth) take 2.
std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    unsigned cp = n == 1 ? c : c & (0x7F >> n);
    for (std::size_t k = 1; k < n && i + k < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0x1F300 && cp <= 0x1FAFF);
    w += wide ? 2 : 1;
    i += n;
  }
  return w;
}

// A JSON number: a float printed with the 9 significant digits that give it back exactly; values that
// are not finite are null, as JSON.stringify prints them.
std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

template <class T, class F>
std::string json_list(const std::vector<T>& v, F item) {
  std::string out = "[";
  for (std::size_t k = 0; k < v.size(); ++k) out += (k ? "," : "") + item(v[k]);
  return out + "]";
}

// The --json object (README.md, "Command line"): the best hypothesis at the top level, then every
// hypothesis. `tokens` are target ids, `tgtTokens` their strings, `srcIds`/`srcTokens` the source;
// `attention` is a list of rows (one per target token), or null for a style 'none' model.
std::string translation_json(const DecodeResult& r, bool has_attention, const Vocab& sv, const Vocab& tv,
                             const std::vector<std::int32_t>& src, const std::vector<std::string>& src_pieces) {
  const std::size_t T = src.size();
  auto id = [](std::int32_t x) { return std::to_string(x); };
  auto str = [](const std::string& x) { return json::quote(x); };
  auto strings = [&](const Hypothesis& h) {
    std::vector<std::string> out;
    for (auto t : h.tokens) out.push_back(tv.token(t));
    return json_list(out, str);
  };
  auto text = [&](const Hypothesis& h) { return json::quote(tv.decode(h.tokens.data(), h.tokens.size())); };
  auto matrix = [&](const Hypothesis& h, const std::vector<float>& a) -> std::string {
    if (!has_attention) return "null";
    std::string out = "[";
    for (std::size_t k = 0; k < h.tokens.size(); ++k) {
      out += k ? ",[" : "[";
      for (std::size_t t = 0; t < T; ++t) out += (t ? "," : "") + json_number(a[k * T + t]);
      out += "]";
    }
    return out + "]";
  };
  auto attention = [&](const Hypothesis& h) { return matrix(h, h.attention); };
  // An ensemble's: each member's own attention beside the mean (`attention`), for the best hypothesis.
  auto members = [&](const Hypothesis& h) -> std::string {
    if (h.member_attention.empty()) return "";
    return ",\"memberAttention\":" +
           json_list(h.member_attention, [&](const std::vector<float>& a) { return matrix(h, a); });
  };
  const Hypothesis& best = r.hypotheses[0];
  // The word-level view: spans of pieces per word on each side, and the alignment between words.
  auto words = [&]() -> std::string {
    if (sv.kind() != TokenizerKind::Spm && tv.kind() != TokenizerKind::Spm) return "null";  // tokens are words
    const auto sw = group_words(sv, src.data(), src.size());
    const auto tw = group_words(tv, best.tokens.data(), best.tokens.size());
    auto texts = [&](const std::vector<WordSpan>& ws) {
      return json_list(ws, [](const WordSpan& w) { return json::quote(w.text); });
    };
    auto spans = [&](const std::vector<WordSpan>& ws) {
      return json_list(
          ws, [](const WordSpan& w) { return "[" + std::to_string(w.first) + "," + std::to_string(w.count) + "]"; });
    };
    std::string att = "null";
    if (has_attention) {
      const auto a = word_attention(best.attention.data(), int(best.tokens.size()), int(T), tw, sw);
      att = "[";
      for (std::size_t k = 0; k < tw.size(); ++k) {
        att += k ? ",[" : "[";
        for (std::size_t t = 0; t < sw.size(); ++t) att += (t ? "," : "") + json_number(a[k * sw.size() + t]);
        att += "]";
      }
      att += "]";
    }
    return "{\"source\":" + texts(sw) + ",\"target\":" + texts(tw) + ",\"sourceSpans\":" + spans(sw) +
           ",\"targetSpans\":" + spans(tw) + ",\"attention\":" + att + "}";
  };
  std::string out = "{\"text\":" + text(best) + ",\"tokens\":" + json_list(best.tokens, id) +
                    ",\"srcIds\":" + json_list(src, id) + ",\"srcTokens\":" + json_list(src_pieces, str) +
                    ",\"tgtTokens\":" + strings(best) + ",\"attention\":" + attention(best) + members(best) +
                    ",\"rows\":" + std::to_string(best.tokens.size()) + ",\"cols\":" + std::to_string(T) +
                    ",\"words\":" + words() + ",\"score\":" + json_number(best.score) + ",\"hypotheses\":[";
  for (std::size_t h = 0; h < r.hypotheses.size(); ++h) {
    const Hypothesis& hy = r.hypotheses[h];
    out += std::string(h ? "," : "") + "{\"text\":" + text(hy) + ",\"tokens\":" + json_list(hy.tokens, id) +
           ",\"tgtTokens\":" + strings(hy) + ",\"score\":" + json_number(hy.score) +
           ",\"logProb\":" + json_number(hy.log_prob) + ",\"finished\":" + (hy.finished ? "true" : "false") +
           ",\"attention\":" + attention(hy) + "}";
  }
  return out + "]}\n";
}

// Shade characters from light to dark: a terminal-friendly heatmap.
const char* shade(float w) {
  static const char* levels[] = {" ", "\u2591", "\u2592", "\u2593", "\u2588"};
  int k = int(std::lround(w * 4.f));
  return levels[k < 0 ? 0 : k > 4 ? 4 : k];
}

// The text form of one translation: every hypothesis (numbered when there are several), then the best
// one's alignment as a heatmap with the most-attended source token of each row.
void print_text(const DecodeResult& r, bool has_attention, const Vocab& sv, const Vocab& tv,
                const std::vector<std::int32_t>& src_ids, const std::vector<std::string>& src_pieces) {
  const std::size_t T = src_pieces.size();
  for (std::size_t h = 0; h < r.hypotheses.size(); ++h) {
    const auto& hy = r.hypotheses[h];
    std::printf("%s%s\n", r.hypotheses.size() > 1 ? ("[" + std::to_string(h + 1) + "] ").c_str() : "",
                printable(tv.decode(hy.tokens.data(), hy.tokens.size())).c_str());
  }
  const auto& best = r.hypotheses[0];
  if (!has_attention) {
    std::printf("\n(style none: the decoder sees only the encoder's final state; there is no alignment)\n");
    return;
  }
  // Subword models show words (a word's pieces merged: model/words.hpp); others their tokens.
  std::vector<std::string> rows, cols = src_pieces;
  std::vector<float> att(best.attention.begin(), best.attention.end());
  const char* unit = "tokens";
  if (sv.kind() == TokenizerKind::Spm || tv.kind() == TokenizerKind::Spm) {
    const auto sw = group_words(sv, src_ids.data(), src_ids.size());
    const auto tw = group_words(tv, best.tokens.data(), best.tokens.size());
    att = word_attention(best.attention.data(), int(best.tokens.size()), int(T), tw, sw);
    cols.clear();
    for (const auto& w : sw) cols.push_back(w.text);
    for (const auto& w : tw) rows.push_back(printable(w.text, true));
    unit = "words";
  } else {
    for (auto id : best.tokens) rows.push_back(printable(tv.token(id), true));
  }
  const std::size_t C = cols.size();
  std::printf("\nalignment (rows: output %s, columns: source %s; darker = more weight)\n", unit, unit);
  std::size_t wrow = 0;
  for (const auto& row : rows) wrow = std::max(wrow, display_width(row));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::printf("%s%s |", rows[k].c_str(), std::string(wrow - display_width(rows[k]), ' ').c_str());
    std::size_t best_t = 0;
    for (std::size_t t = 0; t < C; ++t) {
      std::printf("%s%s", shade(att[k * C + t]), shade(att[k * C + t]));
      if (att[k * C + t] > att[k * C + best_t]) best_t = t;
    }
    std::printf("| %.2f on %s\n", C ? att[k * C + best_t] : 0.f, C ? printable(cols[best_t], true).c_str() : "");
  }
  std::printf("%-*s  ", int(wrow), "");
  for (std::size_t t = 0; t < C; ++t) std::printf("%-2zu", t % 100);
  std::printf("\nsource: ");
  for (std::size_t t = 0; t < C; ++t) std::printf("%zu=%s ", t, printable(cols[t], true).c_str());
  std::printf("\n");
}

// A source as the decoder takes it (ids) and as the output shows it (the pieces as typed).
struct Source {
  std::vector<std::int32_t> ids;
  std::vector<std::string> pieces;
  std::string text;  // as given (empty for ids)
};

// A source that is a word of the lexicon: its entry, printed in the place of the model's answer
// (README.md, "Command line": {"text", "source": "lexicon", "lexicon", "alternatives"} with --json).
// The model still decoded it; false when there is no lexicon or it lacks the word.
bool print_lexicon_entry(const Lexicon* lex, const std::string& text, bool json, bool blank_before) {
  const std::vector<std::string>* prons = lex ? lex->find(text) : nullptr;
  if (!prons) return false;
  if (json) {
    std::string alts;
    for (const auto& p : *prons) alts += (alts.empty() ? "" : ",") + json::quote(p);
    std::printf("{\"text\":%s,\"source\":\"lexicon\",\"lexicon\":%s,\"alternatives\":[%s]}\n",
                json::quote(prons->front()).c_str(), json::quote(lex->name()).c_str(), alts.c_str());
    return true;
  }
  if (blank_before) std::printf("\n");
  std::printf("%s\n\n(from the lexicon %s: an entry, with no alignment of its own", prons->front().c_str(),
              lex->name().c_str());
  for (std::size_t i = 1; i < prons->size(); ++i) std::printf("%s%s", i == 1 ? "; also " : ", ", (*prons)[i].c_str());
  std::printf(")\n");
  return true;
}

// TEXT through the source tokenizer.
Source source_of_text(const Vocab& sv, const std::string& text) {
  Source s;
  s.pieces = sv.pieces(text);
  for (const auto& p : s.pieces) s.ids.push_back(sv.lookup(p));
  s.text = text;
  return s;
}

Source source_of_ids(const Vocab& sv, std::vector<std::int32_t> ids) {
  Source s;
  s.ids = std::move(ids);
  for (auto id : s.ids) s.pieces.push_back(sv.token(id));
  return s;
}

// One non-blank line of a --batch-file and its number in the file (from 1, blank lines counted).
struct Line {
  std::string text;
  std::size_t number;
};

// Whitespace as JavaScript's String.prototype.trim sees it, in UTF-8: a line of nothing else is blank
// for both command lines alike (bin/attnseq.js skips such lines of standard input with trim()).
bool is_blank(std::string_view s) {
  static const std::string_view wide[] = {"\u00A0", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003", "\u2004",
                                          "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200A", "\u2028",
                                          "\u2029", "\u202F", "\u205F", "\u3000", "\uFEFF"};
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f') {
      ++i;
      continue;
    }
    std::size_t n = 0;
    for (const auto& w : wide)
      if (s.substr(i, w.size()) == w) n = w.size();
    if (!n) return false;
    i += n;
  }
  return true;
}

// The lines of a --batch-file, read as `npx attnseq translate` reads standard input, a buffer at a
// time (a million lines cost no more memory than a window of them): each line
// must be UTF-8 (else an error naming the first bad byte's offset in the input and its line), a
// leading BOM is dropped, LF, CRLF and a lone CR each end a line, blank lines are skipped, and a line
// longer than kMaxTextBytes is refused (counted to its end, but not held).
class LineReader {
 public:
  LineReader(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}

  // The next non-blank line; false at the end of the input.
  bool next(Line& out) {
    for (;;) {
      std::uint64_t line_start = offset_;
      int c = get();
      if (c == '\n' && after_cr_) line_start = offset_, c = get();  // the LF of a CRLF: no line of its own
      after_cr_ = false;
      if (c == EOF) return false;
      line_.clear();
      std::uint64_t bytes = 0;  // a line past the text limit is counted to its end, not kept
      while (c != EOF && c != '\n' && c != '\r') {
        if (++bytes <= kMaxTextBytes) line_.push_back(char(c));
        c = get();
      }
      if (bytes > kMaxTextBytes)
        throw TooLong(name_ + " line " + std::to_string(number_) + ": text is " + std::to_string(bytes) +
                      " bytes; the maximum is " + std::to_string(kMaxTextBytes));
      after_cr_ = c == '\r';
      std::string_view text = line_;
      if (line_start == 0 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3), line_start = 3;
      const std::size_t bad = invalid_utf8_at(text);
      if (bad != std::string_view::npos)
        throw std::invalid_argument(name_ + ": invalid UTF-8 at byte " + std::to_string(line_start + bad) + " (line " +
                                    std::to_string(number_) + ")");
      const std::size_t number = number_++;
      if (!is_blank(text)) {
        out = {std::string(text), number};
        return true;
      }
    }
  }

 private:
  int get() {
    if (pos_ == len_) {
      if (eof_) return EOF;
      // read(2), not fread: it returns what a pipe holds now instead of waiting for a full buffer,
      // so each window is translated as soon as its lines have arrived.
      ssize_t n;
      do n = ::read(fd_, buf_, sizeof buf_);
      while (n < 0 && errno == EINTR);
      if (n < 0) throw std::runtime_error("cannot read " + name_ + ": " + std::strerror(errno));
      pos_ = 0;
      len_ = std::size_t(n);
      if (len_ == 0) {
        eof_ = true;
        return EOF;
      }
    }
    ++offset_;
    return static_cast<unsigned char>(buf_[pos_++]);
  }

  int fd_;
  std::string name_;
  std::string line_;
  char buf_[1 << 16];
  std::size_t pos_ = 0, len_ = 0;
  bool eof_ = false, after_cr_ = false;
  std::uint64_t offset_ = 0;  // bytes read so far
  std::size_t number_ = 1;    // the number of the line being read (blank lines count)
};

// A line of ids for an ids-only model ("4 5 6", "4,5,6": one comma or whitespace between ids), as
// `npx attnseq translate` reads TEXT for such a model; false if the line is not one.
bool ids_line(const std::string& s, std::vector<std::int32_t>& out) {
  auto space = [&](std::size_t i) {
    return i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f');
  };
  auto digit = [&](std::size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
  std::vector<std::int32_t> ids;
  std::size_t i = 0;
  while (space(i)) ++i;
  for (;;) {
    const std::size_t from = i;
    while (digit(i)) ++i;
    if (i == from) return false;
    ids.push_back(std::int32_t(parse_int_in("source id", s.substr(from, i - from), 0, INT32_MAX)));
    bool separated = false, comma = false;
    while (space(i)) ++i, separated = true;
    if (i < s.size() && s[i] == ',') {
      ++i, separated = comma = true;
      while (space(i)) ++i;
    }
    if (i == s.size() && !comma) break;
    if (i == s.size() || !separated) return false;
  }
  out = std::move(ids);
  return true;
}

// Standard output, flushed: a write that failed (a full disk, a closed pipe's EPIPE) is an error, not
// a success with the output lost.
void flush_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw std::runtime_error(std::string("cannot write standard output: ") + std::strerror(errno));
}

// --batch-file: the lines in windows of at most kWindowLines lines and kWindowCells attention cells
// (source length x max_length x beam, summed), so that memory stays bounded however long the input
// is. Each window's lines are checked (UTF-8, tokenizer, length, options), naming the first bad one,
// then translated by one translate_batch and printed in order as TEXT would be (JSON: one object per
// line; text: the blocks one after the other, a blank line between two) before the next window is
// read. A bad line stops the run after the windows before it were printed. The output is the same
// for any window: each result is what translating its line alone gives.
constexpr std::size_t kWindowLines = 4096;
constexpr std::uint64_t kWindowCells = std::uint64_t(1) << 24;

int translate_batch_file(const Args& a, const Ensemble& models, const Vocab& sv, const Vocab& tv, const Lexicon* lex) {
  const auto& c = models.config();
  const Model& model = models.member(0);
  const bool stdin_input = a.batch_file == "-";
  const std::string name = stdin_input ? "standard input" : a.batch_file;
  std::unique_ptr<FILE, int (*)(FILE*)> file(nullptr, &std::fclose);
  if (!stdin_input) {
    file.reset(std::fopen(a.batch_file.c_str(), "rb"));
    if (!file) throw std::invalid_argument("cannot open '" + a.batch_file + "': " + std::strerror(errno));
  }
  // What no source could satisfy is the options' fault, not the first line's.
  validate(a.opt, c, kMaxSourceLength);
  LineReader lines(stdin_input ? STDIN_FILENO : ::fileno(file.get()), name);
  std::vector<Source> sources;
  std::vector<std::vector<std::int32_t>> ids;
  bool more = true, printed = false;
  while (more) {
    sources.clear();
    ids.clear();
    std::uint64_t cells = 0;
    Line l;
    while (sources.size() < kWindowLines && cells < kWindowCells && (more = lines.next(l))) {
      try {
        std::vector<std::int32_t> line_ids;
        sources.push_back(!sv.has_text() && ids_line(l.text, line_ids) ? source_of_ids(sv, std::move(line_ids))
                                                                       : source_of_text(sv, l.text));
        const int T = int(sources.back().ids.size());
        model.check_source(sources.back().ids.data(), T);
        validate(a.opt, c, T);
        cells += std::uint64_t(T) * std::uint64_t(effective_max_length(a.opt, T)) * std::uint64_t(a.opt.beam);
        ids.push_back(sources.back().ids);
      } catch (const std::invalid_argument& e) {
        raise_with_context(name + " line " + std::to_string(l.number) + ": ", e);
      }
    }
    if (ids.empty()) break;
    const std::vector<DecodeResult> res = translate_batch(models, ids, a.opt, kDefaultBatchRows, a.threads);
    for (std::size_t i = 0; i < res.size(); ++i) {
      if (print_lexicon_entry(lex, sources[i].text, a.json, printed)) {
        printed = true;
        continue;
      }
      if (a.json) {
        std::fputs(translation_json(res[i], models.has_attention(), sv, tv, sources[i].ids, sources[i].pieces).c_str(),
                   stdout);
      } else {
        if (printed) std::printf("\n");
        print_text(res[i], models.has_attention(), sv, tv, sources[i].ids, sources[i].pieces);
      }
      printed = true;
    }
    flush_stdout();
  }
  return 0;
}

}  // namespace

int translate(const std::vector<std::string>& argv) {
  Args a = parse(argv, "translate");
  if (a.help) {
    print_help("translate", "--model FILE [options] (--ids 5,17,42 | --batch-file FILE | TEXT)", translate_options());
    return 0;
  }
  if (int(a.has_batch_file) + int(!a.ids.empty()) + int(a.has_text) > 1)
    throw UsageError("give one of --batch-file, --ids or TEXT");
  if (a.has_threads && !a.has_batch_file)
    throw UsageError("--threads shares a --batch-file's lines among threads; give it with --batch-file");
  const LoadedModels loaded = load_models(a.models);
  const Model& model = loaded.first();
  const Ensemble& models = *loaded.ensemble;
  const auto& c = model.config();
  const Vocab sv = Vocab::source(c), tv = Vocab::target(c);
  if (!a.prefix.empty())
    a.opt.prefix = tv.has_text() ? known_target_ids(tv, a.prefix) : parse_ids("--prefix", a.prefix);
  if (!a.lexicon.empty() && !a.ids.empty()) throw UsageError("--lexicon looks words up: give TEXT, not --ids");
  std::unique_ptr<Lexicon> lex;
  if (!a.lexicon.empty()) lex = std::make_unique<Lexicon>(Lexicon::read(a.lexicon));
  if (a.has_batch_file) return translate_batch_file(a, models, sv, tv, lex.get());
  if (a.ids.empty() && !a.has_text) throw UsageError("no source: give TEXT or --ids (or --batch-file FILE)");
  const Source src = a.ids.empty() ? source_of_text(sv, a.text) : source_of_ids(sv, parse_ids("--ids", a.ids));
  DecodeResult r;
  if (models.size() == 1) {
    Encoded enc;
    model.encode(src.ids.data(), int(src.ids.size()), enc);
    r = decode(model, enc, a.opt);
  } else {
    // Each member encodes the source itself; a batch of one is the ensemble's decode of it alone.
    std::vector<Encoded> enc(std::size_t(models.size()));
    std::vector<const Encoded*> ptrs;
    for (int m = 0; m < models.size(); ++m) {
      models.member(m).encode(src.ids.data(), int(src.ids.size()), enc[std::size_t(m)]);
      ptrs.push_back(&enc[std::size_t(m)]);
    }
    validate(a.opt, c, int(src.ids.size()));
    r = std::move(decode_batch(models, ptrs.data(), 1, a.opt)[0]);
  }
  if (print_lexicon_entry(lex.get(), src.text, a.json, false))
    ;
  else if (a.json)
    std::fputs(translation_json(r, models.has_attention(), sv, tv, src.ids, src.pieces).c_str(), stdout);
  else
    print_text(r, models.has_attention(), sv, tv, src.ids, src.pieces);
  flush_stdout();
  return 0;
}

int info(const std::vector<std::string>& argv) {
  Args a = parse(argv, "info");
  if (a.help) {
    print_help("info", "--model FILE", info_options());
    return 0;
  }
  const Model model = load_checkpoint_file(a.models[0]);
  const auto& c = model.config();
  std::printf("cell %s, style %s, score %s, input_feeding %s, bidirectional %s, bridge %s, layers %d\n",
              to_string(c.cell), to_string(c.style), to_string(c.score), c.input_feeding ? "yes" : "no",
              c.bidirectional ? "yes" : "no", c.bridge ? "yes" : "no", c.layers);
  std::printf("vocab %d -> %d, embedding %d/%d, hidden %d/%d, attn_dim %d, tokenizer %s\n", c.src_vocab, c.tgt_vocab,
              c.src_emb, c.tgt_emb, c.enc_hidden, c.dec_hidden, c.attn_dim, tokenizer_str(c).c_str());
  if (c.tie_embeddings) std::printf("tied embeddings: the output layer's weight is decoder.embedding.weight\n");
  if (c.attn_query_bias) std::printf("additive score with a query bias: v^T tanh(W_q s + b_q + W_k h_i)\n");
  for (const auto& kv : c.extra)
    std::printf("%s: %s\n", printable(kv.first, true).c_str(), printable(kv.second).c_str());
  std::size_t n = model.params().data.size();
  if (model.quantized()) {  // an int8 checkpoint (attnseq quantize): how many of its matrices are int8
    int q = 0, total = 0;
    for (std::size_t i = 0; i < model.params().specs.size(); ++i) {
      total += model.params().specs[i].int8;
      q += i < model.params().q8.size() && !model.params().q8[i].q.empty();
    }
    std::printf("parameters: %zu (int8: %d of %d matrices, a scale per row)\n", n, q, total);
  } else {
    std::printf("parameters: %zu\n", n);
  }
  // The instruction set in use (chosen at start-up, ATTNSEQ_ARCH lowers it): what a speed report needs.
  std::printf("kernels: xsimd %s%s\n", simd::arch_name(), kernels::uses_reference ? " (reference kernels)" : "");
  return 0;
}

}  // namespace attnseq::cli
