// `attnseq train` and `attnseq eval`: train a model on a built-in task or a TSV file with a
// progress line (step, loss, accuracy, tokens/s, ETA), save it as a checkpoint (+ optimiser state
// for --resume; both paths are checked before the first step and written through temporary files);
// evaluate exact match, token accuracy, AER (n/a without attention or gold links) and accuracy by
// source length. With --pron (a pronunciation dictionary, data/cmudict/README.md) train in epochs
// with a development split, keeping the best checkpoint (train/epochs.hpp, docs/training.md), and
// evaluate WER and PER by word length. Unknown flags and stray arguments are errors that name them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/decode_flags.hpp"
#include "cli/files.hpp"
#include "cli/models.hpp"
#include "core/errors.hpp"
#include "model/checkpoint.hpp"
#include "model/spm.hpp"
#include "model/vocab.hpp"
#include "train/bleu.hpp"
#include "train/dev_eval.hpp"
#include "train/epochs.hpp"
#include "train/evaluate.hpp"
#include "train/mt_scores.hpp"
#include "train/parallel_data.hpp"
#include "train/pron_data.hpp"
#include "train/run_state.hpp"
#include "train/settings.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"
#include "train/wer.hpp"

namespace attnseq::cli {
namespace {

// The options that choose the examples, shared by train and eval; defaults from TaskOptions.
std::vector<Option> task_options() {
  const train::TaskOptions d;
  return {
      {"--task", "NAME", "", "built-in task: dates, en-ko, reverse or copy (or --data, --pron)"},
      {"--data", "FILE.tsv", "", "source<TAB>target lines (or --task)"},
      {"--pron", "FILE", "", "a pronunciation dictionary, WORD<TAB>PHONEMES lines (data/cmudict/README.md)"},
      {"--src", "FILE", "", "parallel text: source sentences, one a line (with --tgt; docs/training.md)"},
      {"--tgt", "FILE", "", "parallel text: the target sentences, line i translating --src's line i"},
      {"--tokenizer", "char|word", "word", "--data: both sides' tokenizer (eval: the model's)"},
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
        {"--phones", "arpabet|ipa", "arpabet",
         "--pron: the dictionary's format: CMUdict's ARPAbet, or IPA phones (data/sigmorphon2021-g2p/README.md)"},
        {"--pron-dev", "FILE", "", "--pron: the development words, a file as --pron's (instead of --dev-fraction)"},
        {"--hangul", "syllables|jamo", "syllables",
         "--pron --phones ipa: read each Hangul syllable as itself, or as its jamo (NFD, as the task's baseline)"},
        {"--dev-fraction", "X", "0.03", "--pron: share of the words held out for development (by word, seeded)"},
        {"--dev-seed", "S", "1", "--pron: seed of the development split"},
        {"--dev-src", "FILE", "", "--src: the development set's source lines (its BLEU picks the best epoch)"},
        {"--dev-tgt", "FILE", "", "--src: the development set's reference translations"},
        {"--src-spm", "FILE.model", "", "--src: the source side's SentencePiece model (spm_train)"},
        {"--tgt-spm", "FILE.model", "", "--src: the target side's SentencePiece model (spm_train)"},
        {"--style", "luong|bahdanau|none", "luong", "attention style (none: no attention)"},
        {"--score", "dot|general|additive", "dot", "attention score function"},
        {"--cell", "gru|lstm", "gru", "recurrent cell"},
        {"--hidden", "N", train::default_text(train::setting("--hidden")),
         "decoder hidden size (and encoder output size)"},
        {"--embedding", "N", "", "embedding size (default: --hidden)"},
        {"--layers", "N", train::default_text(train::setting("--layers")),
         "stacked layers, at most " + train::number_text(train::setting("--layers").hi)},
        {"--attn-dim", "N", "", "additive score's inner size (default: --hidden)"},
        {"--bidirectional", "", "", "bidirectional encoder"},
        {"--input-feeding", "", "", "Luong input feeding"},
        {"--bridge", "", "", "a learned map from the encoder's final state to the decoder's initial state"},
        {"--tie-embeddings", "", "",
         "the output layer shares the target embedding matrix (--embedding must equal --hidden)"},
        {"--attn-query-bias", "", "", "a bias on the additive score's query projection (--score additive)"},
        {"--steps", "N", train::default_text(train::setting("--steps")),
         "total optimiser steps (counted from the start when resuming; not in epoch runs)"},
        {"--epochs", "N", "40", "epoch runs (--pron, --src): at most this many passes over the data"},
        {"--patience", "N", "5", "epoch runs: stop after N epochs in a row without a better dev figure (0: never)"},
        {"--lr-decay", "X", "0.5", "epoch runs: multiply the rate by X after each epoch without a better dev figure"},
        {"--bucket", "N", "50", "epoch runs: batches per chunk sorted by length (1: no bucketing)"},
        {"--eval-beam", "K", "1", "epoch runs: beam of the dev evaluation at each epoch's end"},
        {"--save-every", "N", "0", "epoch runs: also save OUT.last every N steps (0: at epoch ends only)"},
        {"--stop-after", "N", "", "epoch runs: leave after N steps of this invocation, saved for --resume"},
        {"--keep-epochs", "", "",
         "epoch runs: also keep each epoch's final weights, OUT.epochN.safetensors (for attnseq average)"},
        {"--batch", "N", train::default_text(train::setting("--batch")), "examples per step"},
        {"--lr", "X", train::default_text(train::setting("--lr")), "peak learning rate"},
        {"--warmup", "N", train::default_text(train::setting("--warmup")), "learning-rate warm-up steps"},
        {"--clip", "X", train::default_text(train::setting("--clip")), "gradient norm clip"},
        {"--dropout", "X", "0", "dropout on embeddings, between layers and before the output (train/backprop.hpp)"},
        {"--label-smoothing", "X", "0", "label smoothing of the training objective"},
        {"--teacher", "FILE", "",
         "epoch runs: a teacher for token-level distillation, its f32 checkpoint with the student's vocabularies "
         "(again for more: their mean distribution is the soft target)"},
        {"--distill-weight", "X", "0.5",
         "--teacher: the soft target's share of the objective, in (0, 1] (the reference keeps the rest)"},
        {"--init", "FILE", "",
         "epoch runs: start from FILE's weights instead of random ones (fine-tuning: the same architecture and "
         "vocabularies, f32 or f16; the optimiser and the learning-rate schedule start afresh)"},
        {"--sample-alpha", "A", "",
         "--src/--tgt: subword regularisation, each epoch on segmentations drawn with probability ~ exp(A * score) "
         "from both sides' unigram SentencePiece models (dev and evaluation keep the best one)"},
        {"--seed", "S", train::default_text(train::setting("--seed")), "initialisation and sampling seed"},
        threads_option("training threads"),
        {"--resume", "FILE", "", "continue the run saved in FILE and FILE.trainer (epoch runs: OUT.last)"},
        {"--out", "FILE.safetensors", "",
         "where to save the model (required; + FILE.trainer, or in epoch runs the best epoch's model, + FILE.last and "
         "FILE.last.trainer)"},
        {"--name", "NAME", "", "model name (default: TASK-STYLE-SCORE)"},
        {"--description", "TEXT", "", "description stored in the checkpoint"},
        {"--quiet", "", "", "no progress line"},
        help_option(),
    };
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  }();
  return t;
}

// eval's decode options: the table's rows of scope kScopeEval, those that shape the one answer scored.
DecodeOptions eval_decode_options(const Flags& f) {
  DecodeOptions o;
  for (const DecodeOptionSpec& s : decode_option_table())
    if ((s.scope & kScopeEval) && *s.flag)
      if (const auto* v = f.get(s.flag + 2)) set_from_flag(o, s, *v);
  return o;
}

// The options as JSON members, every one of eval's ("beam":5,"length_penalty":1,...), and as text
// (those that differ from their default, after the beam: "beam 5, no_repeat_ngram 4"; `always` names one
// shown at its default too).
std::string decode_options_json(const DecodeOptions& o) {
  std::string out;
  for (const DecodeOptionSpec& s : decode_option_table())
    if (s.scope & kScopeEval) out += std::string(out.empty() ? "" : ",") + "\"" + s.key + "\":" + value_text(s, o);
  return out;
}
std::string decode_options_text(const DecodeOptions& o, const std::string& always = "") {
  std::string out = "beam " + std::to_string(o.beam);
  const DecodeOptions d;
  for (const DecodeOptionSpec& s : decode_option_table())
    if ((s.scope & kScopeEval) && std::string(s.key) != "beam" && (s.get(o) != s.get(d) || s.key == always))
      out += ", " + std::string(s.key) + " " + value_text(s, o);
  return out;
}

const std::vector<Option>& eval_options() {
  static const std::vector<Option> t = [] {
    std::vector<Option> v = {
        {"--model", "FILE", "", ".safetensors checkpoint (required); again for an ensemble (--src/--tgt, --pron)"}};
    const std::vector<Option> task = task_options();
    v.insert(v.end(), task.begin(), task.end());
    const std::vector<Option> rest = {
        {"--dev-fraction", "X", "", "--pron: score only the words `train --pron FILE --dev-fraction X` held out"},
        {"--dev-seed", "S", "1", "--pron with --dev-fraction: seed of that split"},
        {"--n", "N", "2000",
         "held-out examples of a built-in task (not with --data or --pron: every line is scored once)"},
        {"--seed", "S", std::to_string(train::kHeldOutSeed),
         "seed of a built-in task's held-out examples (not with --data or --pron)"},
        {"--hyp", "FILE", "",
         "also write the outputs there: --src/--tgt the translations, one a line; --pron each scored word and its "
         "output, WORD<TAB>PHONEMES lines in the file's order"},
        {"--lang", "en|de|fr", "", "--src/--tgt: the target language of the Moses tokens (default: --tgt's extension)"},
        threads_option("evaluation threads", "the figures are the same for any count"),
        json_option(),
        help_option(),
    };
    v.insert(v.end(), rest.begin(), rest.end());
    // The decode options that shape a search (decode/options.hpp), before --hyp.
    const std::vector<Option> decode = decode_cli_options(kScopeEval);
    const auto hyp = std::find_if(v.begin(), v.end(), [](const Option& o) { return o.flag == "--hyp"; });
    v.insert(hyp, decode.begin(), decode.end());
    return v;
  }();
  return t;
}

// The flag's value, or the table's default when absent.
std::string value_or_default(const Flags& f, const std::vector<Option>& table, const std::string& k) {
  const auto* v = f.get(k);
  return v ? *v : default_of(table, "--" + k);
}

// The examples and what identifies them in a run record (the task and its options, or the file's
// hash and the tokenizers).
struct TaskChoice {
  std::unique_ptr<train::Task> task;
  train::RunRecord identity;
};

// `model`: eval's checkpoint, whose tokenizers read a --data file unless a flag names the same ones
// (a flag that names another is refused: the model would read tokens it never learnt).
TaskChoice task_from(const Flags& f, const std::vector<Option>& table, const ModelConfig* model = nullptr) {
  const auto* t = f.get("task");
  const auto* d = f.get("data");
  if (!!t == !!d || f.get("pron")) throw UsageError("give exactly one of --task NAME, --data FILE.tsv or --pron FILE");
  if (t) {
    train::TaskOptions o;
    const std::string lo = value_or_default(f, table, "min-len"), hi = value_or_default(f, table, "max-len");
    o.min_len = int(parse_int_in("--min-len", lo, 1, kMaxSourceLength));
    o.max_len = int(parse_int_in("--max-len", hi, 1, kMaxSourceLength));
    auto task = train::make_task(*t, o);
    train::RunRecord id = {{"--task", *t}};
    if (*t == "reverse" || *t == "copy") id.insert(id.end(), {{"--min-len", lo}, {"--max-len", hi}});
    return {std::move(task), id};
  }
  const std::string text = train::read_text_file(*d);
  // --tokenizer sets both sides; --src-tokenizer / --tgt-tokenizer override one side.
  auto kind = [&](const char* flag, const std::string& v) {
    return train::parse_text_tokenizer(v, std::string("--") + flag);
  };
  const auto* both_flag = f.get("tokenizer");
  auto side = [&](const char* flag, TokenizerKind model_kind, const char* key) {
    const auto* v = f.get(flag);
    const std::string* given = v ? v : both_flag;
    const char* named = v ? flag : "tokenizer";
    if (!model) return kind(named, given ? *given : value_or_default(f, table, "tokenizer"));
    if (given && kind(named, *given) != model_kind)
      throw std::invalid_argument(std::string("--") + named + " " + *given + ": the model reads " +
                                  to_string(model_kind) + " (its checkpoint's " + key +
                                  "); leave the flag out to use it");
    return model_kind;
  };
  const TokenizerKind src = side("src-tokenizer", model ? model->src_tokenizer : TokenizerKind::Word, "src_tokenizer");
  const TokenizerKind tgt = side("tgt-tokenizer", model ? model->tgt_tokenizer : TokenizerKind::Word, "tgt_tokenizer");
  try {
    auto task = train::make_tsv_task(text, src, tgt);
    return {std::move(task),
            {{"--data", train::content_hash(text)},
             {"--src-tokenizer", to_string(src)},
             {"--tgt-tokenizer", to_string(tgt)}}};
  } catch (const std::invalid_argument& e) {
    raise_with_context("'" + *d + "': ", e);
  }
}

std::string fmt_time(double s) {
  char b[32];
  if (s >= 3600)
    std::snprintf(b, sizeof b, "%dh%02dm", int(s / 3600), int(s / 60) % 60);
  else
    std::snprintf(b, sizeof b, "%dm%02ds", int(s / 60), int(s) % 60);
  return b;
}

// The architecture flags, shared by both ways of training; vocabularies and tokenizers are the caller's.
ModelConfig architecture(const Flags& f, const std::vector<Option>& table) {
  auto str = [&](const char* k) { return value_or_default(f, table, k); };
  auto str_or = [&](const char* k, const std::string& def) {
    const auto* v = f.get(k);
    return v ? *v : def;
  };
  train::ModelChoice m;
  m.style = train::parse_style(str("style"), "--style");
  m.score = train::parse_score(str("score"), "--score");
  m.cell = train::parse_cell(str("cell"), "--cell");
  m.bidirectional = f.has("bidirectional");
  m.input_feeding = f.has("input-feeding");
  m.bridge = f.has("bridge");
  m.tie_embeddings = f.has("tie-embeddings");
  m.attn_query_bias = f.has("attn-query-bias");
  // Ranges and defaults from the one settings table (train/settings.hpp), shared with createTrainer.
  auto integer = [&](const char* flag, const std::string& v) {
    const auto& s = train::setting(flag);
    return int(parse_int_in(flag, v, std::int64_t(s.lo), std::int64_t(s.hi)));
  };
  m.hidden = integer("--hidden", str("hidden"));
  m.embedding = integer("--embedding", str_or("embedding", std::to_string(m.hidden)));
  m.layers = integer("--layers", str("layers"));
  m.attn_dim = integer("--attn-dim", str_or("attn-dim", std::to_string(m.hidden)));
  return train::architecture(m, "--hidden");
}

// The optimiser flags shared by both ways of training (--steps is the sampling trainer's alone).
train::TrainOptions optimiser(const Flags& f, const std::vector<Option>& table) {
  auto str = [&](const char* k) { return value_or_default(f, table, k); };
  train::TrainOptions o;
  auto integer = [&](const char* flag) {
    const auto& s = train::setting(flag);
    return parse_int_in(flag, str(flag + 2), std::int64_t(s.lo), std::int64_t(s.hi));
  };
  auto real = [&](const char* flag) {
    const auto& s = train::setting(flag);
    const double x = parse_number(flag, str(flag + 2));
    if (!(x >= s.lo && x <= s.hi))
      throw UsageError(std::string(flag) + " expects a number in [" + train::number_text(s.lo) + ", " +
                       train::number_text(s.hi) + "], got '" + str(flag + 2) + "'");
    return x;
  };
  o.batch_size = int(integer("--batch"));
  o.lr = float(real("--lr"));
  o.warmup = int(integer("--warmup"));
  o.clip = float(real("--clip"));
  o.dropout = float(parse_number("--dropout", str("dropout")));
  if (!(o.dropout >= 0.f && o.dropout < 1.f))
    throw UsageError("--dropout expects a number in [0, 1), got '" + str("dropout") + "'");
  o.label_smoothing = float(parse_number("--label-smoothing", str("label-smoothing")));
  if (!(o.label_smoothing >= 0.f && o.label_smoothing < 1.f))
    throw UsageError("--label-smoothing expects a number in [0, 1), got '" + str("label-smoothing") + "'");
  o.seed = std::uint64_t(integer("--seed"));
  // Every core by default; the figures depend on the thread count but repeat for a given one.
  const auto* t = f.get("threads");
  o.threads = int(parse_int_in("--threads", t ? *t : std::to_string(default_threads()), 1, kMaxThreads));
  return o;
}

// Flags that belong to one way of training only: naming them with the other is refused, not ignored.
// Options that do not go together: a usage error (exit 2).
void refuse_flags(const Flags& f, const std::vector<const char*>& flags, const std::string& why) {
  for (const char* k : flags)
    if (f.get(k) || f.has(k)) throw UsageError(std::string("--") + k + " " + why);
}

// Removes what killed runs left next to this run's outputs, and checks each can be written, before any
// training time is spent.
void prepare_outputs(const std::vector<std::string>& paths, bool quiet) {
  int stale = 0;
  for (const auto& p : paths) stale += remove_stale_temps(p);
  if (stale && !quiet) std::fprintf(stderr, "removed %d temporary file(s) left by an interrupted save\n", stale);
  for (const auto& p : paths) check_writable(p);
}

double parse_fraction(const char* flag, const std::string& v) {
  const double x = parse_number(flag, v);
  if (!(x > 0.0 && x <= 0.5)) throw UsageError(std::string(flag) + " expects a number in (0, 0.5], got '" + v + "'");
  return x;
}

// What every epoch run reads from the command line: the outputs, the architecture, the optimiser and
// the epoch options (train --pron and train --src/--tgt).
struct EpochSetup {
  std::string out, last, state_path;
  ModelConfig c;
  train::TrainOptions o;
  train::EpochOptions e;
  int save_every = 0, stop_after = 0;
  bool keep_epochs = false;           // --keep-epochs: OUT.epochN.safetensors at each epoch's end
  std::vector<std::string> teachers;  // --teacher paths, in order
  train::RunRecord teacher_record;    // each teacher's content hash and the weight
  std::string init_path;              // --init: the model whose weights the run starts from
  std::shared_ptr<const Model> init;
  train::RunRecord init_record;  // its content hash
  // --sample-alpha: each epoch's pairs (EpochTrainer::set_resampler), and the run record's entry.
  std::function<std::vector<train::Pair>(int)> resample;
  train::RunRecord resample_record;
};

// A checkpoint named by a flag (--teacher, --init), loaded; its failure names the flag and the file.
std::shared_ptr<const Model> load_flag_model(const char* flag, const std::string& path, std::string& hash) {
  const std::string bytes = train::read_text_file(path);
  hash = train::content_hash(bytes);
  try {
    return std::make_shared<const Model>(
        load_checkpoint(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  } catch (const std::exception& ex) {
    throw std::invalid_argument(std::string(flag) + " '" + path + "': " + ex.what());
  }
}

EpochSetup epoch_setup(const Flags& f, const std::vector<Option>& table) {
  auto str = [&](const char* k) { return value_or_default(f, table, k); };
  const auto* out = f.get("out");
  if (!out) throw UsageError("--out FILE.safetensors is required");
  EpochSetup s;
  s.out = *out;
  s.last = s.out + ".last";
  s.state_path = s.last + ".trainer";
  s.c = architecture(f, table);
  s.o = optimiser(f, table);
  auto& e = s.e;
  e.epochs = int(parse_int_in("--epochs", str("epochs"), 1, 100000));
  e.patience = int(parse_int_in("--patience", str("patience"), 0, 100000));
  e.lr_decay = parse_number("--lr-decay", str("lr-decay"));
  if (!(e.lr_decay > 0.0 && e.lr_decay <= 1.0))
    throw UsageError("--lr-decay expects a number in (0, 1], got '" + str("lr-decay") + "'");
  e.bucket = int(parse_int_in("--bucket", str("bucket"), 1, 100000));
  e.eval_beam = int(parse_int_in("--eval-beam", str("eval-beam"), 1, kMaxBeam));
  e.eval_threads = s.o.threads;
  s.save_every = int(parse_int_in("--save-every", str("save-every"), 0, 100000000));
  const auto* sa = f.get("stop-after");
  s.stop_after = sa ? int(parse_int_in("--stop-after", *sa, 1, 100000000)) : 0;
  s.keep_epochs = f.has("keep-epochs");
  // Token-level distillation: the teachers, loaded now (a file that does not load fails before any
  // training), checked against the student's vocabularies in run_epochs.
  s.teachers = f.all("teacher");
  if (s.teachers.empty() && f.get("distill-weight"))
    throw UsageError("--distill-weight applies to distillation only: give the teachers with --teacher FILE");
  if (!s.teachers.empty()) {
    s.o.distill_weight = float(parse_number("--distill-weight", str("distill-weight")));
    if (!(s.o.distill_weight > 0.f && s.o.distill_weight <= 1.f))
      throw UsageError("--distill-weight expects a number in (0, 1], got '" + str("distill-weight") + "'");
    std::string hashes;  // each teacher's content hash, in order
    for (const auto& p : s.teachers) {
      std::string hash;
      s.o.teachers.push_back(load_flag_model("--teacher", p, hash));
      hashes += (hashes.empty() ? "" : ",") + hash;
    }
    s.teacher_record = {{"--teacher", hashes}, {"--distill-weight", str("distill-weight")}};
  }
  // Fine-tuning: loaded now, checked against the student's architecture in run_epochs.
  if (const auto* p = f.get("init")) {
    std::string hash;
    s.init_path = *p;
    s.init = load_flag_model("--init", *p, hash);
    s.init_record = {{"--init", hash}};
  }
  return s;
}

int run_epochs(const Flags& f, EpochSetup& s, std::vector<train::Pair> pairs,
               std::shared_ptr<const train::DevEvaluator> dev, const train::RunRecord& data_record,
               const std::string& intro, const char* dev_unit);

// `attnseq train --pron`: epochs over the training words, the dev split scored at each epoch's end.
int train_pron(const Flags& f, const std::vector<Option>& table) {
  refuse_flags(f, {"steps"}, "does not apply to --pron, which trains in epochs (--epochs, --patience)");
  refuse_flags(f, {"tokenizer", "src-tokenizer", "tgt-tokenizer"},
               "does not apply to --pron: letters in (char, folded to upper case), phonemes out (word)");
  refuse_flags(f, {"min-len", "max-len"}, "applies to the reverse and copy tasks only");
  refuse_flags(f, {"sample-alpha"}, "applies to --src/--tgt, whose sides are SentencePiece models, only");
  auto str = [&](const char* k) { return value_or_default(f, table, k); };
  const std::string path = *f.get("pron");
  EpochSetup setup = epoch_setup(f, table);
  ModelConfig& c = setup.c;
  const train::PronFormat format = train::pron_format(str("phones"), "--phones");
  const std::string hangul = str("hangul");
  if (hangul != "syllables" && hangul != "jamo")
    throw UsageError("--hangul is syllables or jamo, not '" + hangul + "'");
  if (hangul == "jamo" && format != train::PronFormat::Ipa)
    throw UsageError("--hangul jamo goes with --phones ipa (ARPAbet words are A-Z)");
  const auto* dev_path = f.get("pron-dev");
  if (dev_path && (f.get("dev-fraction") || f.get("dev-seed")))
    throw UsageError(
        "--pron-dev FILE gives the development words; --dev-fraction and --dev-seed split them off --pron");
  const double fraction = parse_fraction("--dev-fraction", str("dev-fraction"));
  const auto dev_seed = std::uint64_t(parse_int_in("--dev-seed", str("dev-seed"), 0, 1L << 62));
  const std::string text = train::read_text_file(path);
  const train::PronData data = train::parse_pron(text, path, format);
  const std::string dev_text = dev_path ? train::read_text_file(*dev_path) : std::string();
  const train::PronSplit sp =
      dev_path ? train::PronSplit{data.entries, train::parse_pron(dev_text, *dev_path, format).entries}
               : train::split_dev(data, fraction, dev_seed);
  if (sp.dev.empty())
    throw std::invalid_argument(dev_path ? "'" + *dev_path + "' holds no word; the dev set chooses the best epoch"
                                         : "--dev-fraction " + str("dev-fraction") + " of the " +
                                               std::to_string(data.entries.size()) + " words of '" + path +
                                               "' holds out no word; the dev set chooses the best epoch");
  if (sp.train.empty()) throw std::invalid_argument("'" + path + "' leaves no training word after the dev split");

  c.src_tokenizer = TokenizerKind::Char;
  c.tgt_tokenizer = TokenizerKind::Word;
  if (format == train::PronFormat::Arpabet) {
    // Letters in, phonemes out; both vocabularies are the complete sets, so they do not depend on the data.
    c.src_case = CaseFold::Upper;
    std::vector<std::string> letters = {"'"};
    for (char ch = 'A'; ch <= 'Z'; ++ch) letters.push_back(std::string(1, ch));
    c.src_tokens = train::make_vocab(letters);
    c.tgt_tokens = train::make_vocab(train::arpabet_phonemes());
  } else {
    // IPA: the characters of the training words (as given: no folding) and their phones. A character
    // of another word reads as <unk>; a phone only dev or test words have is an error there.
    c.src_case = CaseFold::Keep;
    c.src_jamo = hangul == "jamo";
    train::PronData training{sp.train, 0};
    if (c.src_jamo)  // the characters the model reads: each syllable's jamo
      for (auto& e : training.entries) e.word = hangul_jamo(e.word);
    c.src_tokens = train::make_vocab(train::pron_letters(training));
    c.tgt_tokens = train::make_vocab(train::pron_phones(training));
  }
  c.src_vocab = int(c.src_tokens.size());
  c.tgt_vocab = int(c.tgt_tokens.size());
  const std::string style = str("style"), score = str("score");
  const auto* nm = f.get("name");
  const std::string base = file_name(path);
  char split[96];
  std::snprintf(split, sizeof split, "%g", fraction);
  c.extra = {{"name", nm ? *nm : "pron-" + style + (c.style == Style::None ? "" : "-" + score)},
             {"task", "pron"},
             {"description", str("description")},
             {"data", base}};
  if (format == train::PronFormat::Ipa) c.extra.push_back({"phones", "ipa"});
  if (dev_path) {
    c.extra.push_back({"dev", file_name(*dev_path)});
  } else {
    c.extra.push_back({"dev_fraction", split});
    c.extra.push_back({"dev_seed", std::to_string(dev_seed)});
  }

  std::vector<train::Pair> pairs;
  for (auto& it : train::pron_items(c, sp.train, path))
    for (auto& r : it.refs) pairs.push_back({it.src, std::move(r)});  // one pair per pronunciation
  auto dev = train::pron_items(c, sp.dev, dev_path ? *dev_path : path + " (dev split)");
  const std::size_t n_pairs = pairs.size();
  char intro[512];
  if (dev_path)
    std::snprintf(intro, sizeof intro, "%zu training pairs (%zu words), %zu dev words (%s)", n_pairs, sp.train.size(),
                  sp.dev.size(), dev_path->c_str());
  else
    std::snprintf(intro, sizeof intro,
                  "%zu training pairs (%zu words), %zu dev words (--dev-fraction %s, --dev-seed %llu)", n_pairs,
                  sp.train.size(), sp.dev.size(), split, static_cast<unsigned long long>(dev_seed));
  // A state continues only this run: the same model, data, split, seed, batch size and bucketing.
  train::RunRecord data_record = {{"--pron", train::content_hash(text)}};
  if (dev_path)
    data_record.push_back({"--pron-dev", train::content_hash(dev_text)});
  else
    data_record.insert(data_record.end(), {{"--dev-fraction", split}, {"--dev-seed", std::to_string(dev_seed)}});
  if (format == train::PronFormat::Ipa) data_record.push_back({"--phones", "ipa"});
  if (c.src_jamo) data_record.push_back({"--hangul", "jamo"});
  return run_epochs(f, setup, std::move(pairs), train::wer_dev(std::move(dev)), data_record, intro, "words");
}

// `attnseq train --src --tgt`: epochs over parallel text read through SentencePiece models, the dev
// pair's BLEU (13a, cased, at --eval-beam) scored at each epoch's end.
int train_parallel(const Flags& f, const std::vector<Option>& table) {
  refuse_flags(f, {"steps"}, "does not apply to --src/--tgt, which trains in epochs (--epochs, --patience)");
  refuse_flags(f, {"tokenizer", "src-tokenizer", "tgt-tokenizer"},
               "does not apply to --src/--tgt: each side reads its SentencePiece model (--src-spm, --tgt-spm)");
  refuse_flags(f, {"min-len", "max-len"}, "applies to the reverse and copy tasks only");
  refuse_flags(f, {"dev-fraction", "dev-seed", "phones", "pron-dev", "hangul"},
               "applies to --pron only; --src/--tgt take a dev pair (--dev-src, --dev-tgt)");
  for (const char* k : {"src", "tgt", "dev-src", "dev-tgt", "src-spm", "tgt-spm"})
    if (!f.get(k)) throw UsageError(std::string("--src/--tgt training needs --") + k);
  auto str = [&](const char* k) { return value_or_default(f, table, k); };
  EpochSetup setup = epoch_setup(f, table);
  ModelConfig& c = setup.c;
  // The tokenizers first: the model's vocabularies are their pieces.
  const auto spm = [&](const char* flag) {
    const std::string path = *f.get(flag);
    const std::string bytes = train::read_text_file(path);
    return std::pair{std::make_shared<const SpmTokenizer>(parse_spm_model(bytes, path), path, bytes),
                     train::content_hash(bytes)};
  };
  const auto [src_spm, src_spm_hash] = spm("src-spm");
  const auto [tgt_spm, tgt_spm_hash] = spm("tgt-spm");
  use_spm(c, true, src_spm);
  use_spm(c, false, tgt_spm);
  // The special ids are the tokenizers' (spm_train --pad_id --bos_id --eos_id --unk_id); both must agree.
  const auto& ts = src_spm->model().trainer;
  const auto& tt = tgt_spm->model().trainer;
  if (ts.pad_id != tt.pad_id || ts.bos_id != tt.bos_id || ts.eos_id != tt.eos_id || ts.unk_id != tt.unk_id)
    throw std::invalid_argument(
        "--src-spm and --tgt-spm give different special ids (pad, bos, eos, unk): " + std::to_string(ts.pad_id) + " " +
        std::to_string(ts.bos_id) + " " + std::to_string(ts.eos_id) + " " + std::to_string(ts.unk_id) + " and " +
        std::to_string(tt.pad_id) + " " + std::to_string(tt.bos_id) + " " + std::to_string(tt.eos_id) + " " +
        std::to_string(tt.unk_id) + "; train both with the same --pad_id, --bos_id, --eos_id and --unk_id");
  if (ts.pad_id < 0 || ts.bos_id < 0 || ts.eos_id < 0)
    throw std::invalid_argument("--src-spm has no " +
                                std::string(ts.pad_id < 0   ? "pad"
                                            : ts.bos_id < 0 ? "bos"
                                                            : "eos") +
                                " piece; train the tokenizers with --pad_id, --bos_id and --eos_id set (0 to 3 with "
                                "--unk_id: docs/training.md)");
  c.pad = ts.pad_id, c.bos = ts.bos_id, c.eos = ts.eos_id, c.unk = ts.unk_id;
  c.validate();
  const std::string style = str("style"), score = str("score");
  const auto* nm = f.get("name");
  c.extra = {{"name", nm ? *nm : "translate-" + style + (c.style == Style::None ? "" : "-" + score)},
             {"task", "translate"},
             {"description", str("description")},
             {"data", file_name(*f.get("src")) + " -> " + file_name(*f.get("tgt"))},
             {"dev", file_name(*f.get("dev-src")) + " -> " + file_name(*f.get("dev-tgt"))}};

  const train::ParallelText data = train::read_parallel(*f.get("src"), *f.get("tgt"));
  const train::ParallelText dev = train::read_parallel(*f.get("dev-src"), *f.get("dev-tgt"));
  auto pairs = train::parallel_pairs(c, data, *f.get("src"), *f.get("tgt"));
  auto refs = train::parallel_refs(c, dev, *f.get("dev-src"));
  long src_tokens = 0, tgt_tokens = 0;
  for (const auto& p : pairs) src_tokens += long(p.first.size()), tgt_tokens += long(p.second.size());
  char intro[256];
  std::snprintf(intro, sizeof intro, "%zu training pairs (%ld source and %ld target pieces), %zu dev pairs",
                pairs.size(), src_tokens, tgt_tokens, refs.size());
  // A state continues only this run: the same model, tokenizers, data, seed, batch size and bucketing.
  const train::RunRecord data_record = {{"--src", data.src_hash},    {"--tgt", data.tgt_hash},
                                        {"--dev-src", dev.src_hash}, {"--dev-tgt", dev.tgt_hash},
                                        {"--src-spm", src_spm_hash}, {"--tgt-spm", tgt_spm_hash}};
  if (const auto* a = f.get("sample-alpha")) {
    const double alpha = parse_number("--sample-alpha", *a);
    if (!(alpha >= 0 && alpha <= 1e6))
      throw UsageError("--sample-alpha expects a number in [0, 1e6], got '" + *a + "'");
    for (const auto& [flag, t] : {std::pair{"src-spm", src_spm.get()}, std::pair{"tgt-spm", tgt_spm.get()}})
      if (t->model().trainer.model_type != SpmModelType::Unigram)
        throw std::invalid_argument("--sample-alpha: --" + std::string(flag) + " '" + *f.get(flag) +
                                    "' is not a unigram model (sampling draws from a unigram lattice)");
    setup.resample = [&c, data, best = pairs, alpha, seed = setup.o.seed](int epoch) {
      return train::sampled_pairs(c, data, best, alpha, seed, epoch);
    };
    setup.resample_record = {{"--sample-alpha", *a}};
  }
  return run_epochs(f, setup, std::move(pairs), train::bleu_dev(std::move(refs)), data_record, intro, "pairs");
}

// --init: the student takes `from`'s weights, which must be f32 (or f16, widened on load), with the
// same vocabularies and tensors. A difference is named by the first architecture flag that differs
// (the additive score's inner size only counts for that score), else by the first tensor.
void start_from(Model& model, const Model& from, const std::string& path) {
  const std::string name = "--init '" + path + "'";
  train::check_teachers(model.config(), {std::shared_ptr<const Model>(&from, [](const Model*) {})},
                        [&](std::size_t) { return name; });
  if (const auto d = train::architecture_difference(model, from))
    throw std::invalid_argument(d->tensor.empty() ? name + " has " + d->flag + " " + d->theirs + "; this run's is " +
                                                        d->mine + " (fine-tuning keeps the architecture)"
                                                  : name + "'s tensors differ from this run's from '" + d->tensor +
                                                        "' on (fine-tuning keeps the architecture)");
  model.params().data = from.params().data;
  model.prepare();
}

// The epoch loop shared by every epoch run: trains, scores the dev set at each epoch's end, saves the
// best model, the last one and the state (all or none), resumes, and reports progress.
int run_epochs(const Flags& f, EpochSetup& s, std::vector<train::Pair> pairs,
               std::shared_ptr<const train::DevEvaluator> dev, const train::RunRecord& data_record,
               const std::string& intro, const char* dev_unit) {
  const ModelConfig& c = s.c;
  const train::TrainOptions& o = s.o;
  const train::EpochOptions& e = s.e;
  const std::string* out = &s.out;
  const std::string &last = s.last, &state_path = s.state_path;
  const int save_every = s.save_every, stop_after = s.stop_after;
  prepare_outputs({*out, last, state_path}, f.has("quiet"));
  train::check_teachers(c, o.teachers, [&](std::size_t i) { return "--teacher '" + s.teachers[i] + "'"; });
  Model model(c);
  train::initialize(model, o.seed);
  if (s.init) start_from(model, *s.init, s.init_path);
  train::EpochTrainer et(model, std::move(pairs), std::move(dev), o, e);
  train::RunRecord record = train::architecture_record(c);
  record.insert(record.end(), data_record.begin(), data_record.end());
  record.insert(record.end(), s.teacher_record.begin(), s.teacher_record.end());
  record.insert(record.end(), s.init_record.begin(), s.init_record.end());
  record.insert(record.end(), s.resample_record.begin(), s.resample_record.end());
  if (s.resample) et.set_resampler(s.resample);
  record.insert(record.end(), {{"--seed", std::to_string(o.seed)},
                               {"--batch", std::to_string(o.batch_size)},
                               {"--bucket", std::to_string(e.bucket)}});
  et.set_record(record);

  // The best epoch's model, with its dev figures; rebuilt from the state on --resume, so it always
  // belongs to the state that was last saved.
  auto best_bytes = [&]() {
    ModelConfig bc = c;
    bc.extra.push_back({"epoch", std::to_string(et.best_epoch())});
    for (auto& kv : et.dev().metadata(et.best_dev())) bc.extra.push_back(std::move(kv));
    bc.extra.push_back({"dev_beam", std::to_string(e.eval_beam)});
    Model best(bc);
    best.params().data = et.best_params();
    return save_checkpoint(best);
  };
  auto save_best = [&]() { write_files({{*out, best_bytes()}}); };
  // The latest weights and the state (with the best model when `best`), all or none. The state file,
  // renamed last, is self-contained (it holds the weights too): a process killed between two renames
  // resumes from the older state.
  // OUT.epochN.safetensors: epoch N's final weights (--keep-epochs), written with that epoch's state.
  auto epoch_path = [&](int epoch) {
    const std::string ext = ".safetensors";
    const bool has_ext = out->size() > ext.size() && out->compare(out->size() - ext.size(), ext.size(), ext) == 0;
    return (has_ext ? out->substr(0, out->size() - ext.size()) : *out) + ".epoch" + std::to_string(epoch) + ext;
  };
  auto save_last = [&](bool best, int ended_epoch = 0) {
    std::vector<FileBytes> files;
    if (best) files.push_back({*out, best_bytes()});
    if (ended_epoch > 0) {
      ModelConfig ec = c;
      ec.extra.push_back({"epoch", std::to_string(ended_epoch)});
      Model snapshot(ec);
      snapshot.params().data = model.params().data;
      files.push_back({epoch_path(ended_epoch), save_checkpoint(snapshot)});
    }
    files.push_back({last, save_checkpoint(model)});
    files.push_back({state_path, et.save_state()});
    write_files(files);
  };

  if (const auto* r = f.get("resume")) {
    const std::string from = *r + ".trainer";
    std::vector<std::uint8_t> bytes;
    try {
      bytes = read_file_bytes(from);
    } catch (const std::exception& ex) {
      throw std::invalid_argument("--resume " + *r + ": cannot read '" + from + "' (" + ex.what() +
                                  "); an epoch run saves its state as OUT.last.trainer: --resume OUT.last");
    }
    try {
      et.load_state(bytes.data(), bytes.size());
    } catch (const std::invalid_argument& ex) {
      throw std::invalid_argument("--resume: '" + from + "': " + ex.what());
    }
    if (et.stopped_early())
      throw std::invalid_argument("--resume: the run in '" + from + "' stopped at epoch " + std::to_string(et.epoch()) +
                                  ", " + std::to_string(et.bad_epochs()) +
                                  " epochs without a better dev figure: nothing left to do");
    if (et.finished())
      throw std::invalid_argument("--epochs " + std::to_string(e.epochs) + " must exceed the " +
                                  std::to_string(et.epoch()) + " epochs already done in '" + from +
                                  "' (--epochs is the total)");
    if (et.best_epoch() > 0) save_best();
  }

  const bool quiet = f.has("quiet");
  if (!quiet)
    std::fprintf(stderr, "%s; %d batches of %d per epoch\n", intro.c_str(), et.batches_per_epoch(), o.batch_size);
  if (!quiet && f.get("resume")) {
    std::fprintf(stderr, "resuming %s.trainer at epoch %d, batch %d/%d (step %d)", f.get("resume")->c_str(),
                 et.epoch() + 1, et.batch(), et.batches_per_epoch(), et.steps_done());
    if (et.best_epoch())
      std::fprintf(stderr, "; best dev %s so far (epoch %d), rewritten to %s",
                   et.dev().short_summary(et.best_dev()).c_str(), et.best_epoch(), out->c_str());
    std::fprintf(stderr, "\n");
  }
  const auto t0 = std::chrono::steady_clock::now();
  const int start = et.steps_done();
  long tokens = 0;
  double loss_avg = 0;
  std::string dev_text = "-";
  bool saved = true;                              // nothing done since the last save
  int saved_step = f.get("resume") ? start : -1;  // the step of the files on disk (-1: none yet)
  while (!et.finished() && !(stop_after && et.steps_done() - start >= stop_after)) {
    train::EpochTrainer::Outcome oc;
    try {
      oc = et.advance();
    } catch (const train::NonFiniteStep& ex) {
      throw std::runtime_error(std::string(ex.what()) + "; stopped: " +
                               (saved_step < 0
                                    ? std::string("nothing was saved")
                                    : "the files saved last (step " + std::to_string(saved_step) + ") are kept"));
    }
    tokens += oc.step.tokens;
    loss_avg = et.steps_done() - 1 == start ? oc.step.loss : 0.98 * loss_avg + 0.02 * oc.step.loss;
    saved = false;
    if (oc.ended) {
      const auto& r = oc.epoch;
      dev_text = et.dev().short_summary(r.dev);
      save_last(r.improved, s.keep_epochs ? r.epoch : 0);
      saved = true;
      saved_step = et.steps_done();
      if (!quiet) {
        std::fprintf(stderr, "\repoch %d/%d: train loss %.4f, dev %s (%zu %s, beam %d): ", r.epoch, e.epochs,
                     r.train_loss, et.dev().summary(r.dev).c_str(), et.dev_words(), dev_unit, e.eval_beam);
        if (r.improved)
          std::fprintf(stderr, "best so far, saved %s", out->c_str());
        else
          std::fprintf(stderr, "not better than epoch %d (%d in a row), rate x%g", et.best_epoch(), et.bad_epochs(),
                       r.lr_scale);
        std::fprintf(stderr, "%s\n", r.stop && et.stopped_early() ? "; stopping (--patience)" : "          ");
      }
    } else if (save_every && et.steps_done() % save_every == 0) {
      save_last(false);
      saved = true;
      saved_step = et.steps_done();
    }
    if (!quiet && !et.finished() && (et.steps_done() % 25 == 0 || oc.ended)) {
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double per_step = el / double(et.steps_done() - start);
      const long left_epoch = et.finished() ? 0 : long(et.batches_per_epoch() - et.batch());
      const long left_run = et.finished() ? 0 : left_epoch + long(e.epochs - et.epoch() - 1) * et.batches_per_epoch();
      char best[48] = "";
      if (et.best_epoch())
        std::snprintf(best, sizeof best, " (best %s, epoch %d)", et.dev().short_summary(et.best_dev()).c_str(),
                      et.best_epoch());
      std::fprintf(
          stderr,
          "\repoch %d/%d  batch %d/%d  step %d  loss %.4f  dev %s%s  %.0f tok/s  left %s (epoch), <= %s (run)   ",
          std::min(et.epoch() + 1, e.epochs), e.epochs, et.batch(), et.batches_per_epoch(), et.steps_done(), loss_avg,
          dev_text.c_str(), best, tokens / el, fmt_time(left_epoch * per_step).c_str(),
          fmt_time(left_run * per_step).c_str());
    }
  }
  if (!saved) save_last(false);
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!quiet) std::fprintf(stderr, "\n");
  std::printf("trained %d steps in %.1f s (%.0f target tokens/s); ", et.steps_done() - start, el, tokens / el);
  if (et.finished())
    std::printf("best dev %s at epoch %d of %d, saved %s (+ %s, %s)\n", et.dev().short_summary(et.best_dev()).c_str(),
                et.best_epoch(), et.epoch(), out->c_str(), last.c_str(), state_path.c_str());
  else
    std::printf(
        "stopped at epoch %d, batch %d/%d (--stop-after %d); saved %s (+ .trainer): continue with --resume %s\n",
        et.epoch() + 1, et.batch(), et.batches_per_epoch(), stop_after, last.c_str(), last.c_str());
  return 0;
}

// `attnseq eval --src --tgt`: the model's translations of every source line, scored against the
// reference lines (docs/training.md, "Scoring translations").
int eval_parallel(const Flags& f, const std::vector<Option>& table, const std::vector<std::string>& model_paths) {
  refuse_flags(f, {"n", "seed"}, "does not apply to --src/--tgt, which scores every line of the pair once");
  refuse_flags(f, {"tokenizer", "src-tokenizer", "tgt-tokenizer"},
               "does not apply to --src/--tgt: the model's own tokenizers read it");
  refuse_flags(f, {"min-len", "max-len"}, "applies to the reverse and copy tasks only");
  refuse_flags(f, {"dev-fraction", "dev-seed", "phones", "pron-dev", "hangul"}, "applies to --pron only");
  if (!f.get("src") || !f.get("tgt")) throw UsageError("--src and --tgt go together (source lines, references)");
  const DecodeOptions opt = eval_decode_options(f);
  const auto* t = f.get("threads");
  const int threads = int(parse_int_in("--threads", t ? *t : std::to_string(default_threads()), 1, kMaxThreads));
  // The Multi30K convention tokenises both sides as the references were (Moses, per language).
  std::string lang;
  if (const auto* l = f.get("lang")) {
    lang = *l;
  } else {
    const std::string& t = *f.get("tgt");
    const auto dot = t.find_last_of('.');
    lang = dot == std::string::npos ? "" : t.substr(dot + 1);
    if (lang != "en" && lang != "de" && lang != "fr")
      throw UsageError("--tgt '" + t + "' does not end in .en, .de or .fr: give --lang en|de|fr");
  }
  if (lang != "en" && lang != "de" && lang != "fr") throw UsageError("--lang is en, de or fr, not '" + lang + "'");
  const LoadedModels loaded = load_models(model_paths);
  const Model& model = loaded.first();
  if (!model.config().has_text())
    throw std::invalid_argument("'" + model_paths[0] + "' takes and writes ids; --src/--tgt scores text");
  const train::ParallelText data = train::read_parallel(*f.get("src"), *f.get("tgt"));
  const auto refs = train::parallel_refs(model.config(), data, *f.get("src"));
  std::vector<train::Ids> sources;
  for (const auto& r : refs) sources.push_back(r.src);
  const auto outputs = train::decode_all(*loaded.ensemble, sources, opt, threads);
  const Vocab tv = Vocab::target(model.config());
  std::vector<std::string> hyps;
  for (const auto& o : outputs) hyps.push_back(tv.decode(o.data(), o.size()));
  const train::MtScores scores = train::score_translations(hyps, data.tgt, lang);
  const train::BleuStats &bleu = scores.bleu_13a, &conv = scores.convention;
  const train::ChrfStats& chrf = scores.chrf;
  if (const auto* h = f.get("hyp")) {
    std::string text;
    for (const auto& s : hyps) text += s + "\n";
    write_files({{*h, std::vector<std::uint8_t>(text.begin(), text.end())}});
  }
  if (f.has("json")) {
    std::printf(
        "{\"lines\":%zu,\"models\":%zu,%s,\"lang\":\"%s\",\"bleu\":%.4f,"
        "\"bleu_bp\":%.4f,\"bleu_13a\":%.4f,\"bleu_13a_bp\":%.4f,\"chrf\":%.4f}\n",
        hyps.size(), model_paths.size(), decode_options_json(opt).c_str(), lang.c_str(), conv.score(),
        conv.brevity_penalty(), bleu.score(), bleu.brevity_penalty(), chrf.score());
    return 0;
  }
  std::printf(
      "%s -> %s: %zu lines, %s%s\n", f.get("src")->c_str(), f.get("tgt")->c_str(), hyps.size(),
      decode_options_text(opt, "length_penalty").c_str(),
      model_paths.size() > 1 ? (", an ensemble of " + std::to_string(model_paths.size()) + " models").c_str() : "");
  const auto line = [](const char* what, const train::BleuStats& b) {
    std::printf("%-52s %6.2f  (%.1f/%.1f/%.1f/%.1f, BP %.3f, %lld/%lld tokens)\n", what, b.score(),
                100 * b.precision(1), 100 * b.precision(2), 100 * b.precision(3), 100 * b.precision(4),
                b.brevity_penalty(), b.hyp_len, b.ref_len);
  };
  line("BLEU (Multi30K convention: lowercased, Moses tokens)", conv);
  line("BLEU (sacreBLEU 13a: cased, detokenised)", bleu);
  std::printf("%-52s %6.2f\n", "chrF2 (sacreBLEU: character 6-grams, beta 2)", chrf.score());
  return 0;
}

// `attnseq eval --pron`: WER and PER of every word of the file (or of its dev split), by word length.
int eval_pron(const Flags& f, const std::vector<Option>& table, const std::vector<std::string>& model_paths) {
  refuse_flags(f, {"n", "seed"},
               "does not apply to --pron, which scores every word of the file (or its --dev-fraction split)");
  refuse_flags(f, {"tokenizer", "src-tokenizer", "tgt-tokenizer"},
               "does not apply to --pron: the model's own tokenizers read it");
  refuse_flags(f, {"min-len", "max-len"}, "applies to the reverse and copy tasks only");
  refuse_flags(f, {"lang"}, "applies to --src/--tgt only (the Moses tokens of a translation's references)");
  const std::string path = *f.get("pron");
  const DecodeOptions opt = eval_decode_options(f);
  const auto* t = f.get("threads");
  const int threads = int(parse_int_in("--threads", t ? *t : std::to_string(default_threads()), 1, kMaxThreads));
  const auto* df = f.get("dev-fraction");
  if (!df && f.get("dev-seed")) throw UsageError("--dev-seed needs --dev-fraction");
  const double fraction = df ? parse_fraction("--dev-fraction", *df) : 0.0;
  const auto dev_seed = std::uint64_t(parse_int_in("--dev-seed", value_or_default(f, table, "dev-seed"), 0, 1L << 62));
  const LoadedModels loaded = load_models(model_paths);
  const Model& model = loaded.first();
  const train::PronData data = train::read_pron_file(path, train::pron_format_of(model.config()));
  std::vector<train::PronEntry> entries = df ? train::split_dev(data, fraction, dev_seed).dev : data.entries;
  if (entries.empty())
    throw std::invalid_argument("'" + path + "'" + (df ? ": the dev split holds no word" : ": no word"));
  const auto items = train::pron_items(model.config(), entries, path);
  std::vector<train::Ids> outputs;
  const auto r = train::evaluate_refs(*loaded.ensemble, items, opt, threads, &outputs);
  if (const auto* h = f.get("hyp")) {
    // The word as the file gives it and what the model said, as a dictionary line (an output may be
    // empty: a line with nothing after the tab, which no dictionary reader accepts as a reference).
    const Vocab tv = Vocab::target(model.config());
    std::string text;
    for (std::size_t i = 0; i < entries.size(); ++i)
      text += entries[i].word + "\t" + tv.decode(outputs[i].data(), outputs[i].size()) + "\n";
    write_files({{*h, std::vector<std::uint8_t>(text.begin(), text.end())}});
  }
  const std::string scope =
      df ? " of its dev split (--dev-fraction " + *df + ", --dev-seed " + std::to_string(dev_seed) + ")" : "";
  if (f.has("json")) {
    std::printf(
        "{\"words\":%ld,\"wer\":%.6f,\"per\":%.6f,\"word_errors\":%ld,\"phoneme_edits\":%ld,\"ref_phonemes\":%ld,"
        "%s,\"lexicon\":null,"
        "\"by_length\":[",
        r.words, r.wer(), r.per(), r.errors, r.edits, r.ref_tokens, decode_options_json(opt).c_str());
    for (std::size_t i = 0; i < r.by_length.size(); ++i) {
      const auto& b = r.by_length[i];
      std::printf(
          "%s{\"letters\":%d,\"words\":%ld,\"wer\":%.6f,\"per\":%.6f,\"word_errors\":%ld,\"phoneme_edits\":%ld,\"ref_"
          "phonemes\":%ld}",
          i ? "," : "", b.length, b.words, double(b.errors) / double(b.words),
          b.ref_tokens ? double(b.edits) / double(b.ref_tokens) : 0.0, b.errors, b.edits, b.ref_tokens);
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("pron %s: %ld words%s, %s, no lexicon (every word is the model's)\n", path.c_str(), r.words,
              scope.c_str(), decode_options_text(opt).c_str());
  std::printf("WER  %.4f (%ld/%ld words wrong: the output equals none of the word's pronunciations)\n", r.wer(),
              r.errors, r.words);
  std::printf("PER  %.4f (%ld phoneme edits / %ld phonemes of the closest pronunciations)\n", r.per(), r.edits,
              r.ref_tokens);
  std::printf("by word length (letters):\n");
  for (const auto& b : r.by_length)
    std::printf("  %4d  n=%-6ld WER %.4f  PER %.4f\n", b.length, b.words, double(b.errors) / double(b.words),
                b.ref_tokens ? double(b.edits) / double(b.ref_tokens) : 0.0);
  return 0;
}

}  // namespace

int train_cmd(const std::vector<std::string>& args) {
  const auto& table = train_options();
  const auto parsed = parse_or_help(
      "train", "(--task NAME | --data FILE.tsv | --pron FILE | --src FILE --tgt FILE) [options] --out FILE.safetensors",
      args, table, {"teacher"});
  if (!parsed) return 0;
  const Flags& f = *parsed;
  const int sources = int(bool(f.get("task"))) + int(bool(f.get("data"))) + int(bool(f.get("pron"))) +
                      int(bool(f.get("src") || f.get("tgt")));
  if (sources > 1) throw UsageError("give exactly one of --task NAME, --data FILE.tsv, --pron FILE or --src/--tgt");
  if (f.get("pron")) return train_pron(f, table);
  if (f.get("src") || f.get("tgt")) return train_parallel(f, table);
  refuse_flags(f, {"sample-alpha"}, "applies to --src/--tgt, whose sides are SentencePiece models, only");
  refuse_flags(f, {"epochs",       "patience", "lr-decay", "bucket",         "eval-beam", "save-every", "stop-after",
                   "dev-fraction", "dev-seed", "dev-src",  "dev-tgt",        "src-spm",   "tgt-spm",    "phones",
                   "pron-dev",     "hangul",   "teacher",  "distill-weight", "init",      "keep-epochs"},
               "applies to training in epochs (--pron, --src/--tgt) only");
  const TaskChoice choice = task_from(f, table);
  const auto& task = choice.task;
  const auto* out = f.get("out");
  if (!out) throw UsageError("--out FILE.safetensors is required");
  const std::string state_path = *out + ".trainer";
  auto str = [&](const char* k) { return value_or_default(f, table, k); };
  auto str_or = [&](const char* k, const std::string& def) {
    const auto* v = f.get(k);
    return v ? *v : def;
  };
  ModelConfig c = architecture(f, table);
  const std::string style = str("style"), score = str("score");
  task->set_vocabularies(c);
  c.extra = {{"name", str_or("name", task->name() + "-" + style + (c.style == Style::None ? "" : "-" + score))},
             {"task", task->name()},
             {"description", str("description")}};
  train::TrainOptions o = optimiser(f, table);
  o.steps = int(parse_int_in("--steps", str("steps"), std::int64_t(train::setting("--steps").lo),
                             std::int64_t(train::setting("--steps").hi)));

  prepare_outputs({*out, state_path}, f.has("quiet"));
  // A state continues only this run: the same model, data, seed and batch size.
  train::RunRecord record = train::architecture_record(c);
  record.insert(record.end(), choice.identity.begin(), choice.identity.end());
  record.insert(record.end(), {{"--seed", std::to_string(o.seed)}, {"--batch", std::to_string(o.batch_size)}});
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
    // The weights come from the state, the commit point of a save: never a checkpoint of another save.
    const std::string from = *r + ".trainer";
    const auto state = read_file_bytes(from);
    try {
      train::load_run_state(tr, model, record, state.data(), state.size());
    } catch (const std::invalid_argument& ex) {
      raise_with_context("--resume: '" + from + "': ", ex);
    }
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
    train::StepReport rep;
    try {
      rep = tr.step();
    } catch (const train::NonFiniteStep& ex) {
      throw std::runtime_error(std::string(ex.what()) + "; stopped without saving: the previous files are kept");
    }
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
  // Both or neither; the state, renamed last, holds its own weights (a kill between the renames
  // resumes from the older state).
  write_files({{*out, save_checkpoint(model)}, {state_path, train::save_run_state(tr, model, record)}});
  std::printf("trained %d steps in %.1f s (%.0f target tokens/s); saved %s (+ %s.trainer for --resume)\n",
              o.steps - start, el, tokens / el, out->c_str(), out->c_str());
  return 0;
}

int eval_cmd(const std::vector<std::string>& args) {
  const auto& table = eval_options();
  const auto parsed = parse_or_help("eval", "--model FILE (--task NAME | --data FILE.tsv | --pron FILE) [options]",
                                    args, table, {"model"});
  if (!parsed) return 0;
  const Flags& f = *parsed;
  const auto* mp = f.get("model");
  if (!mp) throw UsageError("--model FILE is required");
  const std::vector<std::string> models = f.all("model");
  const int sources = int(bool(f.get("task"))) + int(bool(f.get("data"))) + int(bool(f.get("pron"))) +
                      int(bool(f.get("src") || f.get("tgt")));
  if (sources > 1) throw UsageError("give exactly one of --task NAME, --data FILE.tsv, --pron FILE or --src/--tgt");
  if (f.get("pron")) return eval_pron(f, table, models);
  if (f.get("src") || f.get("tgt")) return eval_parallel(f, table, models);
  if (models.size() > 1)
    throw UsageError("an ensemble (--model given " + std::to_string(models.size()) +
                     " times) is scored with --src/--tgt or --pron, not a task or a TSV file");
  refuse_flags(f, {"length-penalty", "hyp"}, "applies to --src/--tgt and --pron");
  refuse_flags(f, {"lang"}, "applies to --src/--tgt only");
  refuse_flags(f, {"dev-fraction", "dev-seed", "phones", "pron-dev", "hangul"}, "applies to --pron only");
  // A data file is scored line by line, once each: --n and --seed draw a built-in task's examples.
  const bool data = f.get("data") != nullptr;
  if (data) refuse_flags(f, {"n", "seed"}, "does not apply to --data, which scores every line of the file once");
  Model model = load_checkpoint_file(*mp);
  const TaskChoice choice = task_from(f, table, &model.config());
  const auto& task = choice.task;
  const int n = int(parse_int_in("--n", value_or_default(f, table, "n"), 1, 1000000));
  const auto seed = std::uint64_t(parse_int_in("--seed", value_or_default(f, table, "seed"), 0, 1L << 62));
  refuse_flags(f, {"max-length", "max-length-ratio", "length-penalty", "coverage-penalty", "no-repeat-ngram"},
               "applies to --src/--tgt and --pron (a task is scored at --beam alone)");
  const int beam = eval_decode_options(f).beam;
  const int threads = int(parse_int_in(
      "--threads", f.get("threads") ? *f.get("threads") : std::to_string(default_threads()), 1, kMaxThreads));
  // The dates task also reports exact match per form (format and letter case) of the same examples.
  const bool dates = f.get("task") && task->name() == "dates";
  train::DateEvalSet ds;
  if (dates) ds = train::date_eval_set(seed, std::size_t(n));
  const auto examples = dates ? ds.examples : data ? train::tsv_examples(*task) : train::sample_n(*task, seed, n);
  const auto r = train::evaluate(model, examples, beam, 10, ds.form_of, ds.form_names, threads);
  // AER needs attention to score and gold links to score it against (a TSV has none).
  const bool has_aer = model.config().has_attention() && r.align_gold > 0;
  if (f.has("json")) {
    char aer[32] = "null";
    if (has_aer) std::snprintf(aer, sizeof aer, "%.6f", r.aer());
    std::printf("{\"n\":%d,\"exact_match\":%.6f,\"token_accuracy\":%.6f,\"aer\":%s,\"buckets\":[", r.n, r.exact_rate(),
                r.token_accuracy(), aer);
    for (std::size_t i = 0; i < r.buckets.size(); ++i)
      std::printf("%s{\"lo\":%d,\"hi\":%d,\"n\":%d,\"exact_match\":%.6f}", i ? "," : "", r.buckets[i].lo,
                  r.buckets[i].hi, r.buckets[i].n, double(r.buckets[i].exact) / r.buckets[i].n);
    std::printf("]");
    // Outputs that are not calendar dates, when every reference is one (null otherwise).
    if (r.date_refs == r.n)
      std::printf(",\"not_calendar_dates\":%d", r.not_calendar_dates);
    else
      std::printf(",\"not_calendar_dates\":null");
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
  if (data)
    std::printf("data %s: %d examples (every line once), beam %d\n", f.get("data")->c_str(), r.n, beam);
  else
    std::printf("task %s, %d held-out examples (seed %llu), beam %d\n", task->name().c_str(), r.n,
                static_cast<unsigned long long>(seed), beam);
  std::printf("exact match     %.4f (%d/%d)\n", r.exact_rate(), r.exact, r.n);
  std::printf("token accuracy  %.4f (teacher-forced, EOS included)\n", r.token_accuracy());
  if (has_aer)
    std::printf("AER             %.4f (%ld gold links)\n", r.aer(), r.align_gold);
  else if (!model.config().has_attention())
    std::printf("AER             n/a (style none has no attention)\n");
  else
    std::printf("AER             n/a (no gold alignments in the data)\n");
  if (r.date_refs == r.n)
    std::printf("not a calendar date  %d/%d outputs (e.g. 2013-02-30: certainly wrong)\n", r.not_calendar_dates, r.n);
  std::printf("by source length:\n");
  for (const auto& b : r.buckets)
    std::printf("  %4d-%-4d  n=%-5d exact %.4f\n", b.lo, b.hi, b.n, double(b.exact) / b.n);
  if (!r.forms.empty()) {
    std::printf("by form:\n");
    for (const auto& fs : r.forms)
      if (fs.n)
        std::printf("  %-38s n=%-5d exact %.4f (%d/%d)\n", fs.name.c_str(), fs.n, double(fs.exact) / fs.n, fs.exact,
                    fs.n);
  }
  return 0;
}

}  // namespace attnseq::cli
