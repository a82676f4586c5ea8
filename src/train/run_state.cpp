// The run record and the sampling trainer's state file (src/train/run_state.hpp).
#include "train/run_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/errors.hpp"

namespace attnseq::train {
namespace {

constexpr char kRecordPrefix[] = "run:";
constexpr char kRunFormat[] = "attnseq train state 2";

std::string yes_no(bool b) { return b ? "yes" : "no"; }

}  // namespace

RunRecord architecture_record(const ModelConfig& c) {
  RunRecord r = {{"--style", to_string(c.style)},
                 {"--score", to_string(c.score)},
                 {"--cell", to_string(c.cell)},
                 {"--hidden", std::to_string(c.dec_hidden)},
                 {"--embedding", std::to_string(c.src_emb)},
                 {"--layers", std::to_string(c.layers)},
                 {"--attn-dim", std::to_string(c.attn_dim)},
                 {"--bidirectional", yes_no(c.bidirectional)},
                 {"--input-feeding", yes_no(c.input_feeding)},
                 {"--bridge", yes_no(c.bridge)}};
  // Recorded only when set, so that states saved before the option existed still resume.
  if (c.tie_embeddings) r.push_back({"--tie-embeddings", "yes"});
  if (c.attn_query_bias) r.push_back({"--attn-query-bias", "yes"});
  return r;
}

std::optional<ArchitectureDifference> architecture_difference(const Model& mine, const Model& other) {
  const bool additive = mine.config().score == Score::Additive;
  const RunRecord want = architecture_record(mine.config()), have = architecture_record(other.config());
  for (const auto& [flag, value] : want) {
    if (flag == "--attn-dim" && !additive) continue;
    std::string theirs = "no";
    for (const auto& [f2, v2] : have)
      if (f2 == flag) theirs = v2;
    if (theirs != value) return ArchitectureDifference{flag, theirs, value, ""};
  }
  const auto &ws = mine.params().specs, &hs = other.params().specs;
  for (std::size_t i = 0; i < std::max(ws.size(), hs.size()); ++i)
    if (i >= ws.size() || i >= hs.size() || ws[i].name != hs[i].name || ws[i].shape != hs[i].shape)
      return ArchitectureDifference{"", "", "", i < hs.size() ? hs[i].name : ws[i].name};
  return std::nullopt;
}

std::string content_hash(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char ch : bytes) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  char b[32];
  std::snprintf(b, sizeof b, "fnv1a:%016llx", static_cast<unsigned long long>(h));
  return b;
}

void add_record(std::vector<std::pair<std::string, std::string>>& meta, const RunRecord& record) {
  for (const auto& [k, v] : record) meta.push_back({kRecordPrefix + k, v});
}

void check_record(const safetensors::File& state, const RunRecord& mine) {
  bool any = false;
  for (const auto& [k, v] : state.metadata) any = any || k.rfind(kRecordPrefix, 0) == 0;
  if (!any)
    throw std::invalid_argument(
        "the state records no run configuration (it was saved by an older attnseq), so it cannot be checked "
        "against this run: train again without --resume");
  for (const auto& [k, v] : mine) {
    const std::string* saved = state.meta(kRecordPrefix + k);
    if (!saved) throw std::invalid_argument(k + ": the state does not record it, this run asks for " + v);
    if (*saved != v)
      throw std::invalid_argument(k + ": the state was saved with " + *saved + ", this run asks for " + v);
  }
  // And what the state's run had that this one lacks (teachers, say) makes it another run too.
  for (const auto& [k, v] : state.metadata) {
    if (k.rfind(kRecordPrefix, 0) != 0) continue;
    const std::string key = k.substr(std::string(kRecordPrefix).size());
    bool asked = false;
    for (const auto& m : mine) asked = asked || m.first == key;
    if (!asked) throw std::invalid_argument(key + ": the state was saved with " + v + ", this run does not give it");
  }
}

void check_finite(const std::vector<float>& values, const std::string& what, bool nonnegative) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]) || (nonnegative && values[i] < 0.f)) {
      char b[48];
      std::snprintf(b, sizeof b, "%g", double(values[i]));
      throw BadCheckpoint("trainer state: '" + what + "' holds " + b + " at index " + std::to_string(i) +
                          (nonnegative ? " (its values must be finite and >= 0)" : " (its values must be finite)"));
    }
}

std::vector<std::uint8_t> save_run_state(const Trainer& trainer, const Model& model, const RunRecord& record) {
  // The Trainer's moments and counters, carried over unchanged, beside the weights.
  const Trainer::StateParts tp = trainer.state_parts();
  const auto N = std::int64_t(model.params().data.size());
  std::vector<std::pair<std::string, std::string>> meta = {{"format", kRunFormat}};
  meta.insert(meta.end(), tp.counters.begin(), tp.counters.end());
  add_record(meta, record);
  return safetensors::write(
      {{"params", {N}, model.params().data.data()}, {"adam.m", {N}, tp.m.data()}, {"adam.v", {N}, tp.v.data()}}, meta);
}

void load_run_state(Trainer& trainer, Model& model, const RunRecord& record, const std::uint8_t* bytes,
                    std::size_t size) {
  const auto f = safetensors::parse(bytes, size);
  const std::string* format = f.meta("format");
  if (!format)
    throw std::invalid_argument(
        "the state holds no weights and records no run configuration (it was saved by an older attnseq): train "
        "again without --resume");
  if (*format != kRunFormat) throw BadCheckpoint("trainer state: format '" + *format + "' is not '" + kRunFormat + "'");
  check_record(f, record);
  const std::size_t n = model.params().data.size();
  const auto* p = f.find("params");
  if (!p) throw BadCheckpoint("trainer state: no tensor 'params'");
  if (p->numel() != n)
    throw BadCheckpoint("trainer state: 'params' holds " + std::to_string(p->numel()) + " values; the model has " +
                        std::to_string(n) + " parameters");
  std::vector<float> params(n);
  safetensors::read_f32(f, *p, params.data());
  check_finite(params, "params");
  trainer.load_state(bytes, size);  // the last check (it reads adam.m, adam.v and the counters); then no throw
  model.params().data = std::move(params);
  model.prepare();
}

}  // namespace attnseq::train
