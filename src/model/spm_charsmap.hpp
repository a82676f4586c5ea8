// A normaliser's precompiled_charsmap (nmt_nfkc and the other built-in rules of SentencePiece): a
// little-endian uint32 byte count, a darts-clone double-array trie of that many bytes over the source
// strings, then the replacement strings, each ending in NUL, that the trie's values point into.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnseq {

class SpmCharsmap {
 public:
  // Refuses a blob whose header or sizes are wrong (BadCheckpoint, starting with `name`).
  SpmCharsmap(std::string_view blob, const std::string& name);
  // The replacement of the longest rule that is a prefix of s, and that rule's byte length; length 0
  // when none matches. A trie that points outside itself raises BadCheckpoint (never reads past it).
  std::pair<std::string_view, std::size_t> longest_prefix(std::string_view s) const;

 private:
  std::uint32_t unit(std::size_t pos) const;
  std::vector<std::uint32_t> units_;
  std::string normalized_;
  std::string name_;
};

}  // namespace attnseq
