// `attnseq train` and `attnseq eval`: train a model on a built-in task or a TSV file with a
// progress line (step, loss, accuracy, tokens/s, ETA), save it as a checkpoint (+ optimiser state
// for --resume; both paths are checked before the first step and written through temporary files);
// evaluate exact match, token accuracy, AER (n/a without attention or gold links) and accuracy by
// source length. Unknown flags and stray arguments are errors that name them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/files.hpp"
#include "model/checkpoint.hpp"
#include "model/vocab.hpp"
#include "train/evaluate.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"

namespace attnseq::cli {
namespace {

struct Flags {
  std::vector<std::pair<std::string, std::string>> kv;
  std::vector<std::string> bools;
  const std::string* get(const std::string& k) const {
    for (const auto& p : kv)
      if (p.first == k) return &p.second;
    return nullptr;
  }
  bool has(const std::string& k) const {
    for (const auto& b : bools)
      if (b == k) return true;
    return false;
  }
};

// `table` lists the flags the command takes (a value name: the flag takes a value; none: a switch);
// anything else is refused. --help stops the parse: the command prints its help and nothing else.
Flags parse_flags(const char* command, const std::vector<std::string>& a, const std::vector<Option>& table) {
  Flags f;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument '" + a[i] + "'");
    const Option* o = find_option(table, a[i]);
    if (!o) throw std::invalid_argument("unknown option " + a[i] + " for '" + command + "'");
    const std::string k = a[i].substr(2);
    if (o->value.empty()) {
      f.bools.push_back(k);
      if (k == "help") return f;
      continue;
    }
    if (i + 1 >= a.size()) throw std::invalid_argument(a[i] + " needs a value");
    f.kv.push_back({k, a[++i]});
  }
  return f;
}

// The options that choose the examples, shared by train and eval; defaults from TaskOptions.
std::vector<Option> task_options() {
  const train::TaskOptions d;
  return {
      {"--task", "NAME", "", "built-in task: dates, en-ko, reverse or copy (or --data)"},
      {"--data", "FILE.tsv", "", "source<TAB>target lines (or --task)"},
      {"--tokenizer", "char|word", "word", "--data: both sides' tokenizer"},
      {"--src-tokenizer", "char|word", "", "--data: the source side's tokenizer (default: --tokenizer)"},
      {"--tgt-tokenizer", "char|word", "", "--data: the target side's tokenizer (default: --tokenizer)"},
      {"--min-len", "N", std::to_string(d.min_len), "reverse/copy: shortest sequence"},
      {"--max-len", "N", std::to_string(d.max_len), "reverse/copy: longest sequence"},
  };
}

const std::vector<Option>& train_options() {
  static const std::vector<Option> t = [] {
    std::vector<Option> v = task_options();
    const std::vector<Option> rest = {
        {"--style", "luong|bahdanau|none", "luong", "attention style (none: no attention)"},
        {"--score", "dot|general|additive", "dot", "attention score function"},
        {"--cell", "gru|lstm", "gru", "recurrent cell"},
        {"--hidden", "N", "64", "decoder hidden size (and encoder output size)"},
        {"--embedding", "N", "", "embedding size (default: --hidden)"},
        {"--layers", "N", "1", "stacked layers, at most 8"},
        {"--attn-dim", "N", "", "additive score's inner size (default: --hidden)"},
        {"--bidirectional", "", "", "bidirectional encoder"},
        {"--input-feeding", "", "", "Luong input feeding"},
        {"--bridge", "", "", "a learned map from the encoder's final state to the decoder's initial state"},
        {"--steps", "N", "3000", "total optimiser steps (counted from the start when resuming)"},
        {"--batch", "N", "32", "examples per step"},
        {"--lr", "X", "0.003", "peak learning rate"},
        {"--warmup", "N", "100", "learning-rate warm-up steps"},
        {"--clip", "X", "1", "gradient norm clip"},
        {"--seed", "S", "1", "initialisation and sampling seed"},
        {"--threads", "N", "", "training threads (default: every core, at most " + std::to_string(train::kMaxThreads) + ")"},
        {"--resume", "FILE", "", "continue the run saved in FILE (and FILE.trainer)"},
        {"--out", "FILE.safetensors", "", "where to save the model (required; + FILE.trainer)"},
        {"--name", "NAME", "", "model name (default: TASK-STYLE-SCORE)"},
        {"--description", "TEXT", "", "description stored in the checkpoint"},
        {"--quiet", "", "", "no progress line"},
        {"--help", "", "", "print this help"},
    };
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  }();
  return t;
}

const std::vector<Option>& eval_options() {
  static const std::vector<Option> t = [] {
    std::vector<Option> v = {{"--model", "FILE", "", ".safetensors checkpoint (required)"}};
    const std::vector<Option> task = task_options();
    v.insert(v.end(), task.begin(), task.end());
    const std::vector<Option> rest = {
        {"--n", "N", "2000", "held-out examples"},
        {"--seed", "S", "20261130", "seed of the held-out examples"},
        {"--beam", "K", "1", "beam width"},
        {"--threads", "N", "", "evaluation threads (default: every core, at most " + std::to_string(train::kMaxThreads) + "; the figures are the same for any count)"},
        {"--json", "", "", "print one JSON object"},
        {"--help", "", "", "print this help"},
    };
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  }();
  return t;
}

// The flag's value, or the table's default when absent.
std::string value_or_default(const Flags& f, const std::vector<Option>& table, const std::string& k) {
  const auto* v = f.get(k);
  return v ? *v : default_of(table, "--" + k);
}

std::unique_ptr<train::Task> task_from(const Flags& f, const std::vector<Option>& table) {
  const auto* t = f.get("task");
  const auto* d = f.get("data");
  if (!!t == !!d) throw std::invalid_argument("give exactly one of --task NAME or --data FILE.tsv");
  if (t) {
    train::TaskOptions o;
    o.min_len = int(parse_int_in("--min-len", value_or_default(f, table, "min-len"), 1, kMaxSourceLength));
    o.max_len = int(parse_int_in("--max-len", value_or_default(f, table, "max-len"), 1, kMaxSourceLength));
    return train::make_task(*t, o);
  }
  std::ifstream in(*d, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot open '" + *d + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  // --tokenizer sets both sides; --src-tokenizer / --tgt-tokenizer override one side.
  auto kind = [&](const char* flag, const std::string& v) {
    if (v == "word") return TokenizerKind::Word;
    if (v == "char") return TokenizerKind::Char;
    throw std::invalid_argument(std::string("--") + flag + " is char or word, not \"" + v + "\"");
  };
  const TokenizerKind both = kind("tokenizer", value_or_default(f, table, "tokenizer"));
  auto side = [&](const char* flag) { const auto* v = f.get(flag); return v ? kind(flag, *v) : both; };
  return train::make_tsv_task(ss.str(), side("src-tokenizer"), side("tgt-tokenizer"));
}

// Every core unless --threads says otherwise (train: the figures repeat for a given count; eval: its
// figures are the same for any count).
int default_threads() {
  return int(std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()), unsigned(train::kMaxThreads)));
}

std::string fmt_time(double s) {
  char b[32];
  if (s >= 3600) std::snprintf(b, sizeof b, "%dh%02dm", int(s / 3600), int(s / 60) % 60);
  else std::snprintf(b, sizeof b, "%dm%02ds", int(s / 60), int(s) % 60);
  return b;
}

}  // namespace

int train_cmd(const std::vector<std::string>& args) {
  const auto& table = train_options();
  const Flags f = parse_flags("train", args, table);
  if (f.has("help")) {
    std::fputs(help_text("attnseq train (--task NAME | --data FILE.tsv) [options] --out FILE.safetensors", table).c_str(), stdout);
    return 0;
  }
  const auto task = task_from(f, table);
  const auto* out = f.get("out");
  if (!out) throw std::invalid_argument("--out FILE.safetensors is required");
  const std::string state_path = *out + ".trainer";
  ModelConfig c;
  auto str = [&](const char* k) { return value_or_default(f, table, k); };
  // For the options whose default is computed, not in the table.
  auto str_or = [&](const char* k, const std::string& def) { const auto* v = f.get(k); return v ? *v : def; };
  const std::string style = str("style"), score = str("score"), cell = str("cell");
  c.style = style == "luong" ? Style::Luong : style == "bahdanau" ? Style::Bahdanau : style == "none" ? Style::None
            : throw std::invalid_argument("--style is luong, bahdanau or none");
  c.score = score == "dot" ? Score::Dot : score == "general" ? Score::General : score == "additive" ? Score::Additive
            : throw std::invalid_argument("--score is dot, general or additive");
  c.cell = cell == "gru" ? Cell::GRU : cell == "lstm" ? Cell::LSTM : throw std::invalid_argument("--cell is gru or lstm");
  c.bidirectional = f.has("bidirectional");
  c.input_feeding = f.has("input-feeding");
  c.bridge = f.has("bridge");
  const int hidden = int(parse_int_in("--hidden", str("hidden"), 1, 4096));
  c.enc_hidden = c.bidirectional ? (c.bridge ? hidden : hidden / 2) : hidden;
  if (c.bidirectional && !c.bridge && hidden % 2) throw std::invalid_argument("--hidden must be even for a bidirectional encoder without --bridge");
  c.dec_hidden = hidden;
  c.src_emb = c.tgt_emb = int(parse_int_in("--embedding", str_or("embedding", std::to_string(hidden)), 1, 4096));
  c.layers = int(parse_int_in("--layers", str("layers"), 1, 8));
  c.attn_dim = int(parse_int_in("--attn-dim", str_or("attn-dim", std::to_string(hidden)), 1, 4096));
  c.src_tokenizer = task->src_tokenizer();
  c.tgt_tokenizer = task->tgt_tokenizer();
  c.src_tokens = task->src_vocab();
  c.tgt_tokens = task->tgt_vocab();
  c.src_vocab = int(c.src_tokens.size());
  c.tgt_vocab = int(c.tgt_tokens.size());
  c.extra = {{"name", str_or("name", task->name() + "-" + style + (c.style == Style::None ? "" : "-" + score))},
             {"task", task->name()},
             {"description", str("description")}};
  train::TrainOptions o;
  o.steps = int(parse_int_in("--steps", str("steps"), 1, 10000000));
  o.batch_size = int(parse_int_in("--batch", str("batch"), 1, 4096));
  o.lr = float(parse_number("--lr", str("lr")));
  o.warmup = int(parse_int_in("--warmup", str("warmup"), 0, 10000000));
  o.clip = float(parse_number("--clip", str("clip")));
  o.seed = std::uint64_t(parse_int_in("--seed", str("seed"), 0, 1L << 62));
  // Every core by default; the figures depend on the thread count but repeat for a given one.
  o.threads = int(parse_int_in("--threads", str_or("threads", std::to_string(default_threads())), 1, train::kMaxThreads));

  // Both outputs are known to be writable before any training time is spent.
  check_writable(*out);
  check_writable(state_path);

  Model model(c);
  train::initialize(model, o.seed);
  const auto& sv = c.src_tokens;
  const auto& tv = c.tgt_tokens;
  const train::Task* tp = task.get();
  train::Sampler sampler = [tp, &sv, &tv, &c](Rng& rng) {
    const auto ex = tp->sample(rng);
    return train::Pair{train::to_ids(ex.src, sv, c.unk), train::to_ids(ex.tgt, tv, c.unk)};
  };
  train::Trainer tr(model, sampler, o);
  if (const auto* r = f.get("resume")) {
    Model loaded = load_checkpoint_file(*r);
    if (loaded.params().data.size() != model.params().data.size())
      throw std::invalid_argument("--resume: '" + *r + "' has a different configuration");
    model.params().data = loaded.params().data;
    const auto state = read_file_bytes(*r + ".trainer");
    tr.load_state(state.data(), state.size());
    // --steps is the total, counted from the start of the run being resumed.
    if (tr.steps_done() >= o.steps)
      throw std::invalid_argument("--steps " + std::to_string(o.steps) + " must exceed the " +
                                  std::to_string(tr.steps_done()) + " steps already done in '" + *r +
                                  ".trainer' (--steps is the total, not the steps to add)");
  }
  const bool quiet = f.has("quiet");
  const auto t0 = std::chrono::steady_clock::now();
  long tokens = 0;
  double loss_avg = 0, acc_avg = 0;
  const int start = tr.steps_done();
  for (int s = start; s < o.steps; ++s) {
    const auto rep = tr.step();
    tokens += rep.tokens;
    loss_avg = s == start ? rep.loss : 0.98 * loss_avg + 0.02 * rep.loss;
    acc_avg = s == start ? rep.token_accuracy : 0.98 * acc_avg + 0.02 * rep.token_accuracy;
    if (!quiet && (rep.step % 25 == 0 || rep.step == o.steps)) {
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double rate = (rep.step - start) / el;
      const int width = 24, fill = int(width * double(rep.step) / o.steps);
      std::fprintf(stderr, "\r[%s%s] step %d/%d  loss %.4f  acc %.3f  %.0f tok/s  elapsed %s  ETA %s   ",
                   std::string(fill, '#').c_str(), std::string(width - fill, '.').c_str(), rep.step, o.steps, loss_avg,
                   acc_avg, tokens / el, fmt_time(el).c_str(), fmt_time((o.steps - rep.step) / rate).c_str());
    }
  }
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!quiet) std::fprintf(stderr, "\n");
  model.prepare();
  // Both files are written in full before either replaces what was there.
  OutputFile checkpoint(*out, save_checkpoint(model));
  OutputFile state(state_path, tr.save_state());
  checkpoint.commit();
  state.commit();
  std::printf("trained %d steps in %.1f s (%.0f target tokens/s); saved %s (+ %s.trainer for --resume)\n",
              o.steps - start, el, tokens / el, out->c_str(), out->c_str());
  return 0;
}

int eval_cmd(const std::vector<std::string>& args) {
  const auto& table = eval_options();
  const Flags f = parse_flags("eval", args, table);
  if (f.has("help")) {
    std::fputs(help_text("attnseq eval --model FILE (--task NAME | --data FILE.tsv) [options]", table).c_str(), stdout);
    return 0;
  }
  const auto* mp = f.get("model");
  if (!mp) throw std::invalid_argument("--model FILE is required");
  const auto task = task_from(f, table);
  Model model = load_checkpoint_file(*mp);
  const int n = int(parse_int_in("--n", value_or_default(f, table, "n"), 1, 1000000));
  const auto seed = std::uint64_t(parse_int_in("--seed", value_or_default(f, table, "seed"), 0, 1L << 62));
  const int beam = int(parse_int_in("--beam", value_or_default(f, table, "beam"), 1, kMaxBeam));
  const int threads = int(parse_int_in("--threads", f.get("threads") ? *f.get("threads") : std::to_string(default_threads()),
                                       1, train::kMaxThreads));
  // The dates task also reports exact match per form (format and letter case) of the same examples.
  const bool dates = f.get("task") && task->name() == "dates";
  train::DateEvalSet ds;
  if (dates) ds = train::date_eval_set(seed, std::size_t(n));
  const auto examples = dates ? ds.examples : train::sample_n(*task, seed, n);
  const auto r = train::evaluate(model, examples, beam, 10, ds.form_of, ds.form_names, threads);
  // AER needs attention to score and gold links to score it against (a TSV has none).
  const bool has_aer = model.config().has_attention() && r.align_gold > 0;
  if (f.has("json")) {
    char aer[32] = "null";
    if (has_aer) std::snprintf(aer, sizeof aer, "%.6f", r.aer());
    std::printf("{\"n\":%d,\"exact_match\":%.6f,\"token_accuracy\":%.6f,\"aer\":%s,\"buckets\":[", r.n, r.exact_rate(),
                r.token_accuracy(), aer);
    for (std::size_t i = 0; i < r.buckets.size(); ++i)
      std::printf("%s{\"lo\":%d,\"hi\":%d,\"n\":%d,\"exact_match\":%.6f}", i ? "," : "", r.buckets[i].lo, r.buckets[i].hi,
                  r.buckets[i].n, double(r.buckets[i].exact) / r.buckets[i].n);
    std::printf("]");
    // Outputs that are not calendar dates, when every reference is one (null otherwise).
    if (r.date_refs == r.n) std::printf(",\"not_calendar_dates\":%d", r.not_calendar_dates);
    else std::printf(",\"not_calendar_dates\":null");
    std::printf(",\"forms\":[");
    bool first = true;
    for (const auto& fs : r.forms) {
      if (!fs.n) continue;
      std::printf("%s{\"form\":\"%s\",\"n\":%d,\"exact_match\":%.6f}", first ? "" : ",", fs.name.c_str(), fs.n,
                  double(fs.exact) / fs.n);
      first = false;
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("task %s, %d held-out examples (seed %llu), beam %d\n", task->name().c_str(), r.n,
              static_cast<unsigned long long>(seed), beam);
  std::printf("exact match     %.4f (%d/%d)\n", r.exact_rate(), r.exact, r.n);
  std::printf("token accuracy  %.4f (teacher-forced, EOS included)\n", r.token_accuracy());
  if (has_aer) std::printf("AER             %.4f (%ld gold links)\n", r.aer(), r.align_gold);
  else if (!model.config().has_attention()) std::printf("AER             n/a (style none has no attention)\n");
  else std::printf("AER             n/a (no gold alignments in the data)\n");
  if (r.date_refs == r.n)
    std::printf("not a calendar date  %d/%d outputs (e.g. 2013-02-30: certainly wrong)\n", r.not_calendar_dates, r.n);
  std::printf("by source length:\n");
  for (const auto& b : r.buckets)
    std::printf("  %4d-%-4d  n=%-5d exact %.4f\n", b.lo, b.hi, b.n, double(b.exact) / b.n);
  if (!r.forms.empty()) {
    std::printf("by form:\n");
    for (const auto& fs : r.forms)
      if (fs.n) std::printf("  %-38s n=%-5d exact %.4f (%d/%d)\n", fs.name.c_str(), fs.n, double(fs.exact) / fs.n, fs.exact, fs.n);
  }
  return 0;
}

}  // namespace attnseq::cli
