// `attnseq quantize --in F --out G`: reads a checkpoint, holds its weight matrices as int8 with a
// scale per row (Model::quantize) and writes the int8 checkpoint (docs/checkpoint-format.md) through
// a temporary file, so a failed write leaves G as it was. An int8 input is written out unchanged.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/files.hpp"
#include "core/errors.hpp"
#include "model/checkpoint.hpp"

namespace attnseq::cli {

int quantize_cmd(const std::vector<std::string>& a) {
  static const std::vector<Option> table = {
      {"--in", "FILE", "", ".safetensors checkpoint to read (f32, f16, bf16 or already int8; required)"},
      {"--out", "FILE", "", "int8 .safetensors checkpoint to write (required; may be --in itself)"},
      help_option(),
  };
  const auto parsed = parse_or_help("quantize", "--in FILE --out FILE", a, table);
  if (!parsed) return 0;
  const Flags& f = *parsed;
  const std::string in = f.get("in") ? *f.get("in") : "", out = f.get("out") ? *f.get("out") : "";
  if (in.empty()) throw UsageError("--in FILE is required");
  if (out.empty()) throw UsageError("--out FILE is required");
  check_writable(out);  // before the work, and before anything is written
  const auto in_bytes = read_checkpoint_bytes(in);
  Model model = [&] {
    try {
      return load_checkpoint(in_bytes.data(), in_bytes.size());
    } catch (const std::invalid_argument& e) {
      raise_with_context(in + ": ", e);
    }
  }();
  const int matrices = model.quantize();
  const auto bytes = save_checkpoint(model);
  OutputFile file(out, bytes);
  file.commit();
  int total = 0;
  for (const auto& s : model.params().specs) total += s.int8;
  std::printf("%s: %d of %d matrices quantised to int8 (%d already were); %zu -> %zu bytes (%.2fx), %s\n", in.c_str(),
              matrices, total, total - matrices, in_bytes.size(), bytes.size(),
              double(bytes.size()) / double(in_bytes.size()), out.c_str());
  return 0;
}

}  // namespace attnseq::cli
