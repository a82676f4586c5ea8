// Parallel text files and their conversion into ids (train/parallel_data.hpp).
#include "train/parallel_data.hpp"

#include "core/lines.hpp"

#include <stdexcept>

#include "model/vocab.hpp"
#include "train/run_state.hpp"
#include "train/tasks.hpp"

namespace attnseq::train {

std::vector<std::string> text_lines(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  for_each_line(text, [&](std::string_view view, std::size_t n) {
    const auto fail = [&](const std::string& why) {
      throw std::invalid_argument(name + ":" + std::to_string(n) + ": " + why);
    };
    std::string line(view);
    if (line.empty()) fail("empty line (every line is a sentence of the pair)");
    if (line.size() > kMaxTextBytes)
      fail("the line is " + std::to_string(line.size()) + " bytes; the maximum is " + std::to_string(kMaxTextBytes));
    if (const std::size_t bad = invalid_utf8_at(line); bad != std::string::npos)
      fail("invalid UTF-8 at byte " + std::to_string(bad));
    out.push_back(std::move(line));
  });
  return out;
}

ParallelText read_parallel(const std::string& src_path, const std::string& tgt_path) {
  ParallelText t;
  const std::string src = read_text_file(src_path), tgt = read_text_file(tgt_path);
  t.src = text_lines(src, src_path);
  t.tgt = text_lines(tgt, tgt_path);
  t.src_hash = content_hash(src);
  t.tgt_hash = content_hash(tgt);
  if (t.src.size() != t.tgt.size())
    throw std::invalid_argument("'" + src_path + "' has " + std::to_string(t.src.size()) + " lines and '" + tgt_path +
                                "' " + std::to_string(t.tgt.size()) + ": line i of one translates line i of the other");
  if (t.src.empty()) throw std::invalid_argument("'" + src_path + "' has no line");
  return t;
}

namespace {

Ids encode_line(const Vocab& v, const std::string& line, const std::string& name, std::size_t i, int max) {
  const auto fail = [&](const std::string& why) {
    throw std::invalid_argument(name + ":" + std::to_string(i + 1) + ": " + why);
  };
  Ids ids = v.encode(line);
  if (ids.empty()) fail("the line has no token");
  if (ids.size() > std::size_t(max))
    fail("the line has " + std::to_string(ids.size()) + " tokens; at most " + std::to_string(max) + " fit");
  return ids;
}

void need_text(const ModelConfig& c) {
  if (!c.has_text())
    throw std::invalid_argument("parallel text: the model has no vocabularies (ids only); give it tokenizers");
}

}  // namespace

std::vector<Pair> parallel_pairs(const ModelConfig& c, const ParallelText& t, const std::string& src_name,
                                 const std::string& tgt_name) {
  need_text(c);
  const Vocab sv = Vocab::source(c), tv = Vocab::target(c);
  std::vector<Pair> out;
  out.reserve(t.src.size());
  for (std::size_t i = 0; i < t.src.size(); ++i)
    out.push_back({encode_line(sv, t.src[i], src_name, i, kMaxSourceLength),
                   encode_line(tv, t.tgt[i], tgt_name, i, kMaxTargetLength - 1)});
  return out;
}

std::vector<Pair> sampled_pairs(const ModelConfig& c, const ParallelText& t, const std::vector<Pair>& best,
                                double alpha, std::uint64_t seed, int epoch) {
  need_text(c);
  if (!c.src_spm || !c.tgt_spm) throw std::invalid_argument("sampled segmentations need SentencePiece on both sides");
  const Vocab sv = Vocab::source(c), tv = Vocab::target(c);
  // One stream a side, seeded by (seed, epoch, side) through splitmix64, apart from the data order's.
  const auto stream = [&](std::uint64_t side) {
    Rng r(seed ^ 0x73616D706C656421ull);
    r.state += 0x9E3779B97F4A7C15ull * (2 * std::uint64_t(epoch) + side);
    return Rng(r.next());
  };
  Rng src_rng = stream(0), tgt_rng = stream(1);
  std::vector<Pair> out;
  out.reserve(t.src.size());
  if (best.size() != t.src.size()) throw std::invalid_argument("sampled_pairs: best has another line count");
  for (std::size_t i = 0; i < t.src.size(); ++i) {
    auto s = sv.encode_sample(t.src[i], alpha, src_rng);
    auto g = tv.encode_sample(t.tgt[i], alpha, tgt_rng);
    out.push_back({s.empty() || s.size() > std::size_t(kMaxSourceLength) ? best[i].first : std::move(s),
                   g.empty() || g.size() > std::size_t(kMaxTargetLength - 1) ? best[i].second : std::move(g)});
  }
  return out;
}

std::vector<TextRef> parallel_refs(const ModelConfig& c, const ParallelText& t, const std::string& src_name) {
  need_text(c);
  const Vocab sv = Vocab::source(c);
  std::vector<TextRef> out;
  out.reserve(t.src.size());
  for (std::size_t i = 0; i < t.src.size(); ++i)
    out.push_back({encode_line(sv, t.src[i], src_name, i, kMaxSourceLength), t.tgt[i]});
  return out;
}

}  // namespace attnseq::train
