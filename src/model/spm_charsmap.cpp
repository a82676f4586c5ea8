// The lookup is darts-clone's commonPrefixSearch (as spm's Normalizer::NormalizePrefix calls it),
// rewritten with every array index checked.
#include "model/spm_charsmap.hpp"

#include "core/errors.hpp"

namespace attnseq {
namespace {

std::uint32_t le32(const char* p) {
  const auto b = [&](int i) { return std::uint32_t(static_cast<unsigned char>(p[i])); };
  return b(0) | b(1) << 8 | b(2) << 16 | b(3) << 24;
}

// The fields of a darts-clone unit.
bool has_leaf(std::uint32_t u) { return ((u >> 8) & 1) == 1; }
std::uint32_t value(std::uint32_t u) { return u & ((1U << 31) - 1); }
std::uint32_t label(std::uint32_t u) { return u & ((1U << 31) | 0xFF); }
std::size_t offset(std::uint32_t u) { return std::size_t(u >> 10) << ((u & (1U << 9)) >> 6); }

}  // namespace

SpmCharsmap::SpmCharsmap(std::string_view blob, const std::string& name) : name_(name) {
  const auto bad = [&](const std::string& what) {
    raise(ErrorKind::BadCheckpoint, name + ": precompiled_charsmap: " + what);
  };
  if (blob.size() <= 4) bad("only " + std::to_string(blob.size()) + " bytes");
  const std::uint32_t trie = le32(blob.data());
  if (trie >= blob.size() - 4 + 1 || trie % 4 != 0 || trie == 0)
    bad("trie size " + std::to_string(trie) + " does not fit its " + std::to_string(blob.size()) + " bytes");
  units_.resize(trie / 4);
  for (std::size_t i = 0; i < units_.size(); ++i) units_[i] = le32(blob.data() + 4 + 4 * i);
  normalized_ = std::string(blob.substr(4 + trie));
}

std::uint32_t SpmCharsmap::unit(std::size_t pos) const {
  if (pos >= units_.size())
    raise(ErrorKind::BadCheckpoint, name_ + ": precompiled_charsmap: trie unit " + std::to_string(pos) + " past its " +
                                        std::to_string(units_.size()) + " units");
  return units_[pos];
}

std::pair<std::string_view, std::size_t> SpmCharsmap::longest_prefix(std::string_view s) const {
  std::size_t pos = offset(unit(0)), length = 0;
  std::uint32_t val = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    pos ^= c;
    const std::uint32_t u = unit(pos);
    if (label(u) != c) break;
    pos ^= offset(u);
    if (has_leaf(u)) {
      val = value(unit(pos));
      length = i + 1;
    }
  }
  if (length == 0) return {{}, 0};
  const std::size_t end = val < normalized_.size() ? normalized_.find('\0', val) : std::string::npos;
  if (end == std::string::npos)
    raise(ErrorKind::BadCheckpoint, name_ + ": precompiled_charsmap: replacement at " + std::to_string(val) +
                                        " is not a NUL-terminated string inside its " +
                                        std::to_string(normalized_.size()) + " bytes");
  return {std::string_view(normalized_).substr(val, end - val), length};
}

}  // namespace attnseq
