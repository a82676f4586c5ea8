// `attnseq average --in A --in B [--in C...] --out F`: the mean of checkpoints of one run's
// architecture, weight by weight (checkpoint averaging: the epochs a run keeps with --keep-epochs,
// docs/training.md, "Averaging checkpoints"). Every input must have the first's architecture (the
// same tensors, shapes and architecture flags) and vocabularies, and be f32, f16 or bf16: an int8
// checkpoint has lost what an average needs, and is refused. The mean is taken in double and stored
// as f32 through a temporary file, so a failed write leaves F as it was. F keeps the first input's
// metadata, less its epoch and dev figures (they were the first's alone), plus what was averaged.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/files.hpp"
#include "core/errors.hpp"
#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "train/run_state.hpp"

namespace attnseq::cli {

namespace {

// Throws std::invalid_argument naming `name` and what differs from the first checkpoint.
void check_same_architecture(const Model& first, const Model& m, const std::string& first_name,
                             const std::string& name) {
  const auto arch = train::architecture_difference(first, m);
  if (arch && arch->tensor.empty())
    throw std::invalid_argument(name + " has " + arch->flag + " " + arch->theirs + ", where " + first_name + " has " +
                                arch->flag + " " + arch->mine + ": only one architecture's weights average");
  const std::string d = vocabulary_difference(first.config(), m.config());
  if (!d.empty()) throw std::invalid_argument(name + " does not share " + first_name + "'s vocabularies: its " + d);
  if (arch)
    throw std::invalid_argument(name + "'s tensors differ from " + first_name + "'s from '" + arch->tensor + "' on");
}

}  // namespace

int average_cmd(const std::vector<std::string>& a) {
  static const std::vector<Option> table = {
      {"--in", "FILE", "", ".safetensors checkpoint (f32, f16 or bf16), given once per checkpoint: two or more"},
      {"--out", "FILE", "", "f32 .safetensors checkpoint to write: their mean (required)"},
      help_option(),
  };
  const auto parsed = parse_or_help("average", "--in FILE --in FILE [--in FILE...] --out FILE", a, table, {"in"});
  if (!parsed) return 0;
  const Flags& f = *parsed;
  const std::vector<std::string> ins = f.all("in");
  const std::string out = f.get("out") ? *f.get("out") : "";
  if (ins.size() < 2)
    throw UsageError("give two or more --in checkpoints to average (got " + std::to_string(ins.size()) + ")");
  if (out.empty()) throw UsageError("--out FILE is required");
  check_writable(out);  // before the work, and before anything is written

  auto load = [](const std::string& path) {
    Model m = load_checkpoint_file(path);
    if (m.quantized())
      throw std::invalid_argument(path + " is int8: average the f32 (or f16) checkpoints it was made from");
    return m;
  };
  Model first = load(ins[0]);
  const std::size_t n = first.params().data.size();
  std::vector<double> sum(first.params().data.begin(), first.params().data.end());
  std::string names = file_name(ins[0]);
  for (std::size_t k = 1; k < ins.size(); ++k) {
    const Model m = load(ins[k]);
    check_same_architecture(first, m, ins[0], ins[k]);
    const float* x = m.params().data.data();
    for (std::size_t i = 0; i < n; ++i) sum[i] += double(x[i]);
    names += ", " + file_name(ins[k]);
  }
  ModelConfig c = first.config();
  std::vector<std::pair<std::string, std::string>> extra;
  for (auto& kv : c.extra)
    if (kv.first != "epoch" && kv.first.rfind("dev", 0) != 0) extra.push_back(std::move(kv));
  extra.push_back({"averaged", std::to_string(ins.size()) + " checkpoints: " + names});
  c.extra = std::move(extra);
  Model mean(c);
  const double k = double(ins.size());
  for (std::size_t i = 0; i < n; ++i) mean.params().data[i] = float(sum[i] / k);
  const auto bytes = save_checkpoint(mean);
  OutputFile file(out, bytes);
  file.commit();
  std::printf("the mean of %zu checkpoints (%zu weights each): %s\n", ins.size(), n, out.c_str());
  return 0;
}

}  // namespace attnseq::cli
