// `attnseq tokenize (--model FILE [--side source|target] | --spm FILE.model) [--pieces] [TEXT]`: each
// line of TEXT (or of standard input) as the ids of a model's tokenizer, space-separated, one line out
// per line in (--pieces: the pieces' strings instead; --sample-alpha: a sampled segmentation). With --spm, a
// SentencePiece .model file read by the engine's own reader: what tests/js/spm-library.test.mjs holds against the
// library's encoder.
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/terminal.hpp"
#include "core/errors.hpp"
#include "model/checkpoint.hpp"
#include "model/spm.hpp"
#include "model/vocab.hpp"
#include "train/tasks.hpp"

namespace attnseq::cli {

int tokenize_cmd(const std::vector<std::string>& a) {
  static const std::vector<Option> table = {
      {"--model", "FILE", "", "a checkpoint: tokenize with one of its sides (or --spm)"},
      {"--side", "source|target", "source", "--model: which side's tokenizer"},
      {"--spm", "FILE.model", "", "a SentencePiece model file (spm_train's output; or --model)"},
      {"--pieces", "", "", "print the pieces' strings (escaped) instead of their ids"},
      {"--sample-alpha", "A", "",
       "a SentencePiece unigram side: one segmentation per line drawn with probability ~ exp(A * score) "
       "(subword regularisation) instead of the best one"},
      {"--seed", "S", "1", "--sample-alpha: the draws' seed (one stream over every line, in order)"},
      help_option(),
  };
  std::vector<std::string> words;  // TEXT, as one or more arguments
  const auto parsed = parse_or_help(
      "tokenize",
      "(--model FILE [--side source|target] | --spm FILE.model) [--pieces] [--sample-alpha A [--seed S]] [TEXT]", a,
      table, {}, &words);
  if (!parsed) return 0;
  const Flags& f = *parsed;
  const bool given_model = f.get("model"), given_spm = f.get("spm"), given_side = f.get("side"),
             pieces = f.has("pieces"), has_text = !words.empty();
  const std::string model = given_model ? *f.get("model") : "", spm = given_spm ? *f.get("spm") : "",
                    side = given_side ? *f.get("side") : default_of(table, "--side");
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) text += (i ? " " : "") + words[i];
  if (given_model == given_spm) throw UsageError("give one of --model FILE or --spm FILE.model");
  if (given_side && !given_model) throw UsageError("--side goes with --model");
  if (side != "source" && side != "target") throw UsageError("--side is source or target, not '" + side + "'");
  const bool sample = f.get("sample-alpha");
  if (f.get("seed") && !sample) throw UsageError("--seed goes with --sample-alpha");
  const double alpha = sample ? parse_number("--sample-alpha", *f.get("sample-alpha")) : 0;
  if (sample && !(alpha >= 0 && alpha <= 1e6))
    throw UsageError("--sample-alpha expects a number in [0, 1e6], got '" + *f.get("sample-alpha") + "'");
  Rng rng(std::uint64_t(
      parse_int_in("--seed", f.get("seed") ? *f.get("seed") : default_of(table, "--seed"), 0, INT64_MAX)));
  std::unique_ptr<Vocab> v;
  if (given_spm) {
    const std::string bytes = train::read_text_file(spm);
    auto t = std::make_shared<const SpmTokenizer>(parse_spm_model(bytes, spm), spm, bytes);
    const auto tokens = t->piece_texts();
    const auto& ts = t->model().trainer;
    v = std::make_unique<Vocab>(TokenizerKind::Spm, tokens, ts.pad_id, ts.bos_id, ts.eos_id, ts.unk_id, "--spm",
                                CaseFold::Keep, t);
  } else {
    const Model m = load_checkpoint_file(model);
    if (!m.config().has_text()) throw std::invalid_argument("'" + model + "' takes ids: it has no tokenizer");
    v = std::make_unique<Vocab>(side == "source" ? Vocab::source(m.config()) : Vocab::target(m.config()));
  }
  const auto line_out = [&](const std::string& line) {
    std::string out;
    if (sample) {
      for (auto id : v->encode_sample(line, alpha, rng))
        out += (out.empty() ? "" : " ") + (pieces ? printable(v->token(id), true) : std::to_string(id));
    } else if (pieces) {
      for (const auto& p : v->pieces(line)) out += (out.empty() ? "" : " ") + printable(p, true);
    } else {
      for (auto id : v->encode(line)) out += (out.empty() ? "" : " ") + std::to_string(id);
    }
    std::fputs((out + "\n").c_str(), stdout);
  };
  if (has_text) {
    line_out(text);
  } else {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      line_out(line);
    }
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw std::runtime_error("cannot write standard output");
  return 0;
}

}  // namespace attnseq::cli
