// `attnseq translate` and `attnseq info`: load a checkpoint, decode, print tokens and the alignment
// as a shaded text heatmap (rows: target tokens, columns: source tokens) or as JSON in the schema
// README.md's "Command line" section gives, the same as `npx attnseq translate --json` prints.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "decode/decode.hpp"
#include "kernels/kernels.hpp"
#include "model/checkpoint.hpp"
#include "model/json.hpp"
#include "model/vocab.hpp"

namespace attnseq::cli {
namespace {

// "char", or "char -> word" when the sides differ, then the source's case fold if any.
std::string tokenizer_str(const ModelConfig& c) {
  std::string s = to_string(c.src_tokenizer);
  if (c.tgt_tokenizer != c.src_tokenizer) s += std::string(" -> ") + to_string(c.tgt_tokenizer);
  if (c.src_case != CaseFold::Keep) s += std::string(", src_case ") + to_string(c.src_case);
  return s;
}

struct Args {
  std::string model, text, ids, prefix;
  bool json = false, has_text = false, help = false;
  DecodeOptions opt;
};

// The JS API's largest seed (Number.MAX_SAFE_INTEGER): a seed gives the same output in both.
constexpr std::int64_t kMaxSeed = (std::int64_t(1) << 53) - 1;

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// translate's options; the defaults are read from DecodeOptions, which is what the parser starts from.
const std::vector<Option>& translate_options() {
  static const DecodeOptions d;
  static const std::vector<Option> t = {
      {"--model", "FILE", "", ".safetensors checkpoint (required)"},
      {"--beam", "K", num(d.beam), "beam width; 1 = greedy, K > 1 prints every hypothesis"},
      {"--max-length", "N", "", "most target tokens, EOS included (default: 2 * source length + 10)"},
      {"--length-penalty", "A", num(d.length_penalty), "beam ranking: log p / length^A"},
      {"--temperature", "T", num(d.temperature), "> 0: sample from softmax(logits / T) (beam 1 only); 0 = argmax"},
      {"--seed", "S", num(double(d.seed)), "sampling seed"},
      {"--prefix", "TEXT", "", "force the first target tokens (ids like 5,6 for an ids-only model)"},
      {"--ids", "5,17,42", "", "the source as token ids instead of TEXT"},
      {"--json", "", "", "print one JSON object (README.md, \"Command line\") instead of text"},
      {"--help", "", "", "print this help"},
  };
  return t;
}

const std::vector<Option>& info_options() {
  static const std::vector<Option> t = {
      {"--model", "FILE", "", ".safetensors checkpoint (required)"},
      {"--help", "", "", "print this help"},
  };
  return t;
}

// `info` takes only --model; `translate` the rest too. Unknown flags and stray arguments are errors.
Args parse(const std::vector<std::string>& a, const char* command) {
  const bool info = std::string(command) == "info";
  const auto& table = info ? info_options() : translate_options();
  Args r;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto value = [&]() -> const std::string& {
      if (i + 1 >= a.size()) throw std::invalid_argument(a[i] + " needs a value");
      return a[++i];
    };
    const std::string& f = a[i];
    const bool flag = f.size() > 2 && f.compare(0, 2, "--") == 0;
    if (flag && !find_option(table, f)) throw std::invalid_argument("unknown option " + f + " for '" + command + "'");
    if (f == "--help") {
      r.help = true;
      return r;
    } else if (f == "--model")
      r.model = value();
    else if (info)
      throw std::invalid_argument("unexpected argument '" + f + "'");
    else if (f == "--beam")
      r.opt.beam = int(parse_int_in(f, value(), 1, kMaxBeam));
    else if (f == "--max-length")
      r.opt.max_length = int(parse_int_in(f, value(), 1, kMaxTargetLength));
    else if (f == "--length-penalty")
      r.opt.length_penalty = float(parse_number(f, value()));
    else if (f == "--temperature")
      r.opt.temperature = float(parse_number(f, value()));
    else if (f == "--seed")
      r.opt.seed = std::uint64_t(parse_int_in(f, value(), 0, kMaxSeed));
    else if (f == "--prefix")
      r.prefix = value();
    else if (f == "--ids")
      r.ids = value();
    else if (f == "--json")
      r.json = true;
    else if (flag)
      throw std::logic_error("option " + f + " is in the table but not parsed");
    else if (!r.has_text)
      r.text = f, r.has_text = true;
    else
      throw std::invalid_argument("unexpected argument '" + f + "' (give the source text as one argument: quote it)");
  }
  if (r.model.empty()) throw std::invalid_argument("--model FILE is required");
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
std::string translation_json(const DecodeResult& r, bool has_attention, const Vocab& tv,
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
  auto attention = [&](const Hypothesis& h) -> std::string {
    if (!has_attention) return "null";
    std::string out = "[";
    for (std::size_t k = 0; k < h.tokens.size(); ++k) {
      out += k ? ",[" : "[";
      for (std::size_t t = 0; t < T; ++t) out += (t ? "," : "") + json_number(h.attention[k * T + t]);
      out += "]";
    }
    return out + "]";
  };
  const Hypothesis& best = r.hypotheses[0];
  std::string out = "{\"text\":" + text(best) + ",\"tokens\":" + json_list(best.tokens, id) +
                    ",\"srcIds\":" + json_list(src, id) + ",\"srcTokens\":" + json_list(src_pieces, str) +
                    ",\"tgtTokens\":" + strings(best) + ",\"attention\":" + attention(best) +
                    ",\"rows\":" + std::to_string(best.tokens.size()) + ",\"cols\":" + std::to_string(T) +
                    ",\"score\":" + json_number(best.score) + ",\"hypotheses\":[";
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

}  // namespace

int translate(const std::vector<std::string>& argv) {
  Args a = parse(argv, "translate");
  if (a.help) {
    std::fputs(
        help_text("attnseq translate --model FILE [options] (--ids 5,17,42 | TEXT)", translate_options()).c_str(),
        stdout);
    return 0;
  }
  Model model = load_checkpoint_file(a.model);
  const auto& c = model.config();
  const Vocab sv = Vocab::source(c), tv = Vocab::target(c);
  std::vector<std::int32_t> src;
  std::vector<std::string> src_pieces;
  if (!a.ids.empty()) {
    if (a.has_text) throw std::invalid_argument("give either --ids or TEXT, not both");
    src = parse_ids("--ids", a.ids);
    for (auto id : src) src_pieces.push_back(sv.token(id));
  } else {
    if (!a.has_text) throw std::invalid_argument("no source: give TEXT or --ids");
    src_pieces = sv.pieces(a.text);
    for (const auto& p : src_pieces) src.push_back(sv.lookup(p));
  }
  if (!a.prefix.empty()) a.opt.prefix = tv.has_text() ? tv.encode(a.prefix) : parse_ids("--prefix", a.prefix);
  Encoded enc;
  model.encode(src.data(), int(src.size()), enc);
  const DecodeResult r = decode(model, enc, a.opt);
  const std::size_t T = src.size();
  if (a.json) {
    std::fputs(translation_json(r, c.has_attention(), tv, src, src_pieces).c_str(), stdout);
    return 0;
  }
  for (std::size_t h = 0; h < r.hypotheses.size(); ++h) {
    const auto& hy = r.hypotheses[h];
    std::printf("%s%s\n", r.hypotheses.size() > 1 ? ("[" + std::to_string(h + 1) + "] ").c_str() : "",
                tv.decode(hy.tokens.data(), hy.tokens.size()).c_str());
  }
  const auto& best = r.hypotheses[0];
  if (!c.has_attention()) {
    std::printf("\n(style none: the decoder sees only the encoder's final state; there is no alignment)\n");
    return 0;
  }
  std::printf("\nalignment (rows: output tokens, columns: source tokens; darker = more weight)\n");
  std::size_t wrow = 0;
  std::vector<std::string> rows;
  for (auto id : best.tokens) rows.push_back(tv.token(id)), wrow = std::max(wrow, display_width(rows.back()));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::printf("%s%s |", rows[k].c_str(), std::string(wrow - display_width(rows[k]), ' ').c_str());
    std::size_t best_t = 0;
    for (std::size_t t = 0; t < T; ++t) {
      std::printf("%s%s", shade(best.attention[k * T + t]), shade(best.attention[k * T + t]));
      if (best.attention[k * T + t] > best.attention[k * T + best_t]) best_t = t;
    }
    std::printf("| %.2f on %s\n", best.attention[k * T + best_t], src_pieces[best_t].c_str());
  }
  std::printf("%-*s  ", int(wrow), "");
  for (std::size_t t = 0; t < T; ++t) std::printf("%-2zu", t % 100);
  std::printf("\nsource: ");
  for (std::size_t t = 0; t < T; ++t) std::printf("%zu=%s ", t, src_pieces[t].c_str());
  std::printf("\n");
  return 0;
}

int info(const std::vector<std::string>& argv) {
  Args a = parse(argv, "info");
  if (a.help) {
    std::fputs(help_text("attnseq info --model FILE", info_options()).c_str(), stdout);
    return 0;
  }
  Model model = load_checkpoint_file(a.model);
  const auto& c = model.config();
  std::printf("cell %s, style %s, score %s, input_feeding %s, bidirectional %s, bridge %s, layers %d\n",
              to_string(c.cell), to_string(c.style), to_string(c.score), c.input_feeding ? "yes" : "no",
              c.bidirectional ? "yes" : "no", c.bridge ? "yes" : "no", c.layers);
  std::printf("vocab %d -> %d, embedding %d/%d, hidden %d/%d, attn_dim %d, tokenizer %s\n", c.src_vocab, c.tgt_vocab,
              c.src_emb, c.tgt_emb, c.enc_hidden, c.dec_hidden, c.attn_dim, tokenizer_str(c).c_str());
  for (const auto& kv : c.extra) std::printf("%s: %s\n", kv.first.c_str(), kv.second.c_str());
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
