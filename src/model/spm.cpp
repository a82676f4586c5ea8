// Encoding and decoding as SentencePiece 0.1.97 does (normalizer.cc, unigram_model.cc EncodeOptimized,
// bpe_model.cc, sentencepiece_processor.cc), rewritten; comments point at the spm rule each step keeps.
#include "model/spm.hpp"

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "core/errors.hpp"
#include "model/spm_utf8.hpp"

namespace attnseq {
namespace {

std::string byte_piece(int b) {
  char s[8];
  std::snprintf(s, sizeof s, "<0x%02X>", unsigned(b));
  return s;
}

}  // namespace

SpmTokenizer::SpmTokenizer(SpmModel model, const std::string& name, std::string bytes)
    : m_(std::move(model)), bytes_(std::move(bytes)) {
  const auto bad = [&](const std::string& what) { raise(ErrorKind::BadCheckpoint, name + ": " + what); };
  const auto& t = m_.trainer;
  if (t.model_type != SpmModelType::Unigram && t.model_type != SpmModelType::Bpe)
    bad(std::string("model_type ") + (t.model_type == SpmModelType::Word ? "WORD" : "CHAR") +
        " is not supported (only UNIGRAM and BPE)");
  if (!m_.normalizer.precompiled_charsmap.empty()) charsmap_.emplace(m_.normalizer.precompiled_charsmap, name);
  if (m_.has_denormalizer) bad("a denormalizer_spec with rules is not implemented yet");
  if (t.treat_whitespace_as_suffix) bad("treat_whitespace_as_suffix is not implemented yet");
  if (m_.pieces.size() > std::size_t(INT32_MAX)) bad("too many pieces");

  id_byte_.assign(m_.pieces.size(), -1);
  byte_id_.assign(256, -1);
  min_score_ = FLT_MAX;
  max_score_ = FLT_MIN;  // spm's starting value (the smallest positive float), kept for equal results
  for (std::size_t i = 0; i < m_.pieces.size(); ++i) {
    const auto& p = m_.pieces[i];
    const int id = int(i);
    const std::string at = "piece " + std::to_string(i);
    if (p.piece.empty()) bad(at + " is empty");
    const bool normal =
        p.type == SpmPieceType::Normal || p.type == SpmPieceType::UserDefined || p.type == SpmPieceType::Unused;
    if (!(normal ? pieces_ : reserved_).emplace(p.piece, id).second) bad(at + " '" + p.piece + "' is already defined");
    if (normal) trie_add(p.piece, id);
    if (p.type == SpmPieceType::Normal) {
      min_score_ = std::min(min_score_, p.score);
      max_score_ = std::max(max_score_, p.score);
    }
    if (p.type == SpmPieceType::Unknown) {
      if (unk_ >= 0) bad(at + " is a second unknown piece (the first is " + std::to_string(unk_) + ")");
      unk_ = id;
    }
    if (p.type == SpmPieceType::Byte) {
      if (!t.byte_fallback) bad(at + " '" + p.piece + "' is a byte piece although byte_fallback is false");
      unsigned v = 256;
      char end = 0;
      if (p.piece.size() != 6 || std::sscanf(p.piece.c_str(), "<0x%2X%c", &v, &end) != 2 || end != '>' ||
          byte_piece(int(v)) != p.piece)
        bad(at + " '" + p.piece + "' is not a byte piece <0xNN>");
      byte_id_[v] = id;
      id_byte_[i] = int(v);
    }
  }
  if (unk_ < 0) bad("no unknown piece (type UNKNOWN)");
  if (t.byte_fallback)
    for (int b = 0; b < 256; ++b)
      if (byte_id_[std::size_t(b)] < 0) bad("byte_fallback is true but byte piece " + byte_piece(b) + " is missing");
}

SpmTokenizer SpmTokenizer::from_bytes(std::string_view bytes, const std::string& name) {
  return SpmTokenizer(parse_spm_model(bytes, name), name, std::string(bytes));
}

std::vector<std::string> SpmTokenizer::piece_texts() const {
  std::vector<std::string> out;
  out.reserve(m_.pieces.size());
  for (const auto& p : m_.pieces) out.push_back(p.piece);
  return out;
}

int SpmTokenizer::piece_to_id(std::string_view piece) const {
  if (auto it = reserved_.find(piece); it != reserved_.end()) return it->second;
  if (auto it = pieces_.find(piece); it != pieces_.end()) return it->second;
  return unk_;
}

void SpmTokenizer::trie_add(std::string_view piece, int id) {
  std::uint64_t node = 0;
  for (char c : piece) {
    const auto [it, added] =
        trie_next_.emplace(node * 256 + static_cast<unsigned char>(c), static_cast<int>(trie_id_.size()));
    if (added) trie_id_.push_back(-1);
    node = std::uint64_t(it->second);
  }
  trie_id_[node] = id;
}

std::size_t SpmTokenizer::user_defined_at(std::string_view s) const {
  std::size_t longest = 0;
  for_each_prefix(s, [&](std::size_t len, int id) {
    if (type(id) == SpmPieceType::UserDefined) longest = len;
  });
  return longest;
}

// normalizer.cc Normalize: user-defined pieces kept whole, else the charsmap's longest rule, else one
// character (a malformed byte as U+FFFD, one byte each); leading, repeated and trailing spaces dropped
// (remove_extra_whitespaces), a space in front (add_dummy_prefix), spaces as U+2581 (escape_whitespaces).
std::string SpmTokenizer::normalize(std::string_view in) const {
  const auto& n = m_.normalizer;
  const auto prefix = [&](std::string_view s) -> std::pair<std::string_view, std::size_t> {
    if (const std::size_t u = user_defined_at(s)) return {s.substr(0, u), u};
    if (charsmap_) {
      const auto r = charsmap_->longest_prefix(s);
      if (r.second > 0) return r;
    }
    std::size_t len;
    if (!spm_utf8::valid_prefix(s, &len)) return {spm_utf8::kReplacement, 1};
    return {s.substr(0, len), len};
  };
  while (n.remove_extra_whitespaces && !in.empty()) {
    const auto p = prefix(in);
    if (p.first != " ") break;
    in.remove_prefix(p.second);
  }
  std::string out;
  if (in.empty()) return out;
  const std::string_view space = n.escape_whitespaces ? spm_utf8::kSpace : " ";
  if (n.add_dummy_prefix) out += space;
  bool prev_space = n.remove_extra_whitespaces;
  while (!in.empty()) {
    auto [sp, used] = prefix(in);
    while (prev_space && !sp.empty() && sp[0] == ' ') sp.remove_prefix(1);
    if (!sp.empty()) {
      for (char c : sp) {
        if (c == ' ')
          out += space;
        else
          out += c;
      }
      prev_space = sp.back() == ' ';
    }
    in.remove_prefix(used);
    if (!n.remove_extra_whitespaces) prev_space = false;
  }
  if (n.remove_extra_whitespaces)
    while (out.size() >= space.size() && std::string_view(out).substr(out.size() - space.size()) == space)
      out.resize(out.size() - space.size());
  return out;
}

std::vector<int> SpmTokenizer::encode(std::string_view text) const {
  const std::string norm = normalize(text);
  return ids_of(m_.trainer.model_type == SpmModelType::Bpe ? encode_bpe(norm) : encode_unigram(norm));
}

std::vector<int> SpmTokenizer::encode_sample(std::string_view text, double alpha, Rng& rng) const {
  if (m_.trainer.model_type == SpmModelType::Bpe)
    throw std::invalid_argument("sampling segmentations needs a unigram model; this one is BPE");
  if (!(alpha >= 0 && alpha <= 1e6))
    throw std::invalid_argument("the sampling alpha must be a number in [0, 1e6], not " + std::to_string(alpha));
  return ids_of(sample_unigram(normalize(text), alpha, rng));
}

// sentencepiece_processor.cc PopulateSentencePieceText: an unknown piece becomes its bytes' pieces
// with byte_fallback; without, a run of unknown pieces is one.
std::vector<int> SpmTokenizer::ids_of(const std::vector<Segment>& segs) const {
  std::vector<int> ids;
  bool prev_unk = false;
  for (const auto& [w, id] : segs) {
    const bool unk = type(id) == SpmPieceType::Unknown;
    if (unk && m_.trainer.byte_fallback) {
      for (char c : w) ids.push_back(byte_id_[static_cast<unsigned char>(c)]);
    } else if (!(unk && prev_unk)) {
      ids.push_back(id);
    }
    prev_unk = unk;
  }
  return ids;
}

}  // namespace attnseq
