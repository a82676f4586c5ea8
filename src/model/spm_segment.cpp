// The two segmentations of normalised text (unigram Viterbi, BPE merges) and decoding, each keeping
// the exact rules of SentencePiece 0.1.97 where a tie or a float could otherwise give other ids.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

#include "core/errors.hpp"
#include "model/spm.hpp"
#include "model/spm_utf8.hpp"

namespace attnseq {

// The unigram lattice's edges from the character starting at `start` (what unigram_model.cc builds):
// f(length, id, score, false) for each piece there, shortest first (UNUSED ones skipped; user-defined
// ones scored length * max_score - 0.1, in spm's arithmetic: float(len) * max_score in float, then a
// double), then, if no piece covers the character alone, f(its length, unk, min_score - 10, true) for an
// unknown node. Returns the character's length in bytes.
template <class F>
std::size_t SpmTokenizer::for_each_edge(std::string_view s, std::size_t start, F&& f) const {
  const std::size_t mblen = spm_utf8::one_char_len(s.substr(start));
  bool single = false;
  for_each_prefix(s.substr(start), [&](std::size_t len, int id) {
    if (type(id) == SpmPieceType::Unused) return;
    f(len, id,
      type(id) == SpmPieceType::UserDefined ? double(float(len) * max_score_) - 0.1
                                            : double(m_.pieces[std::size_t(id)].score),
      false);
    if (len == mblen) single = true;
  });
  if (!single) f(mblen, unk_, double(min_score_ - 10.0f), true);
  return mblen;
}

// unigram_model.cc EncodeOptimized: best path ending at each byte over for_each_edge's edges, a later
// edge into a node winning only with a strictly higher score.
std::vector<SpmTokenizer::Segment> SpmTokenizer::encode_unigram(std::string_view s) const {
  struct Best {
    int id = -1;
    float score = 0;
    long start = -1;
  };
  const std::size_t size = s.size();
  std::vector<Best> best(size + 1);
  for (std::size_t start = 0; start < size;) {
    const float here = best[start].score;
    const std::size_t mblen = for_each_edge(s, start, [&](std::size_t len, int id, double score, bool unknown) {
      Best& t = best[start + len];
      if (unknown) {  // spm adds the unknown node's score in float
        const float cand = float(score) + here;
        if (t.start == -1 || cand > t.score) t = {id, cand, long(start)};
        return;
      }
      // A piece's candidate is a double, compared with the stored float and rounded to float when kept.
      const double cand = score + here;
      if (t.start == -1 || cand > double(t.score)) t = {id, float(cand), long(start)};
    });
    start += mblen;
  }
  std::vector<Segment> out;
  for (std::size_t end = size; end > 0;) {
    const Best& b = best[end];
    const auto start = std::size_t(b.start);
    out.emplace_back(s.substr(start, end - start), b.id);
    end = start;
  }
  return {out.rbegin(), out.rend()};
}

// unigram_model.cc SampleEncode (nbest_size -1, FFBS): the lattice encode_unigram searches
// (for_each_edge), each path weighted exp(alpha * its score). Forward: the log of
// the weights of every path from the start to each character boundary. Backward: from the end, an
// edge into the current node drawn with probability exp(alpha * score + fwd[start] - fwd[node]).
std::vector<SpmTokenizer::Segment> SpmTokenizer::sample_unigram(std::string_view s, double alpha, Rng& rng) const {
  struct Edge {
    std::size_t start;
    int id;
    double score;
  };
  const std::size_t size = s.size();
  std::vector<std::vector<Edge>> into(size + 1);
  for (std::size_t start = 0; start < size;) {
    const std::size_t mblen = for_each_edge(s, start, [&](std::size_t len, int id, double score, bool) {
      into[start + len].push_back({start, id, score});
    });
    start += mblen;
  }
  const double none = -std::numeric_limits<double>::infinity();
  std::vector<double> fwd(size + 1, none);
  fwd[0] = 0;
  const auto log_add = [](double a, double b) {
    if (a == -std::numeric_limits<double>::infinity()) return b;
    const double hi = std::max(a, b), lo = std::min(a, b);
    return hi + std::log1p(std::exp(lo - hi));
  };
  for (std::size_t end = 1; end <= size; ++end)
    for (const Edge& e : into[end])
      if (fwd[e.start] != none) fwd[end] = log_add(fwd[end], fwd[e.start] + alpha * e.score);
  std::vector<Segment> out;
  for (std::size_t node = size; node > 0;) {
    const auto& edges = into[node];
    // A uniform draw in [0, 1) from 53 random bits, then the edge whose cumulative weight passes it
    // (the last reachable edge if rounding leaves the sum short of the draw).
    const double u = double(rng.next() >> 11) * 0x1.0p-53;
    double acc = 0;
    const Edge* pick = nullptr;
    for (const Edge& e : edges) {
      if (fwd[e.start] == none) continue;
      pick = &e;
      acc += std::exp(fwd[e.start] + alpha * e.score - fwd[node]);
      if (u < acc) break;
    }
    out.emplace_back(s.substr(pick->start, node - pick->start), pick->id);
    node = pick->start;
  }
  return {out.rbegin(), out.rend()};
}

// bpe_model.cc: characters (user-defined pieces whole and frozen), then repeatedly the adjacent pair
// whose join is a piece with the highest score (leftmost on ties); UNUSED pieces split back into the
// pair they were joined from.
std::vector<SpmTokenizer::Segment> SpmTokenizer::encode_bpe(std::string_view s) const {
  struct Symbol {
    int prev, next;
    bool freeze;
    std::string_view piece;
  };
  struct Pair {
    int left, right;
    float score;
    std::size_t size;
  };
  const auto worse = [](const Pair& a, const Pair& b) {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  };
  std::priority_queue<Pair, std::vector<Pair>, decltype(worse)> agenda(worse);
  std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>> rev_merge;
  std::vector<Symbol> sym;
  const auto add_pair = [&](int l, int r) {
    if (l == -1 || r == -1 || sym[std::size_t(l)].freeze || sym[std::size_t(r)].freeze) return;
    const auto& a = sym[std::size_t(l)].piece;
    const std::string_view joined(a.data(), a.size() + sym[std::size_t(r)].piece.size());
    auto it = pieces_.find(joined);
    if (it == pieces_.end()) return;
    agenda.push({l, r, m_.pieces[std::size_t(it->second)].score, joined.size()});
    if (type(it->second) == SpmPieceType::Unused) rev_merge[joined] = {a, sym[std::size_t(r)].piece};
  };
  for (std::string_view rest = s; !rest.empty();) {
    const std::size_t u = user_defined_at(rest);
    const std::size_t len = u ? u : spm_utf8::one_char_len(rest);
    const int i = int(sym.size());
    sym.push_back({i - 1, rest.size() == len ? -1 : i + 1, u > 0, rest.substr(0, len)});
    rest.remove_prefix(len);
  }
  if (sym.empty()) return {};
  for (std::size_t i = 1; i < sym.size(); ++i) add_pair(int(i) - 1, int(i));
  while (!agenda.empty()) {
    const Pair top = agenda.top();
    agenda.pop();
    Symbol& l = sym[std::size_t(top.left)];
    Symbol& r = sym[std::size_t(top.right)];
    if (l.piece.empty() || r.piece.empty() || l.piece.size() + r.piece.size() != top.size) continue;
    l.piece = std::string_view(l.piece.data(), top.size);
    l.next = r.next;
    if (r.next >= 0) sym[std::size_t(r.next)].prev = top.left;
    r.piece = {};
    add_pair(l.prev, top.left);
    add_pair(top.left, l.next);
  }
  std::vector<Segment> out;
  std::function<void(std::string_view)> resegment = [&](std::string_view w) {
    const int id = piece_to_id(w);
    const auto p = rev_merge.find(w);
    if (type(id) != SpmPieceType::Unused || p == rev_merge.end()) {
      out.emplace_back(w, id);
      return;
    }
    resegment(p->second.first);
    resegment(p->second.second);
  };
  for (int i = 0; i != -1; i = sym[std::size_t(i)].next) resegment(sym[std::size_t(i)].piece);
  return out;
}

// sentencepiece_processor.cc Decode: control pieces vanish, <unk> is unk_surface, runs of byte pieces
// become their UTF-8 text (each malformed byte U+FFFD), U+2581 a space, and the first piece loses one
// leading U+2581 (every leading one while the text is empty, with remove_extra_whitespaces).
std::string SpmTokenizer::decode(const std::vector<int>& ids) const {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= size())
      raise(ErrorKind::BadInput, "id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                                     " is outside the vocabulary [0, " + std::to_string(size()) + ")");
  const auto& n = m_.normalizer;
  std::string text, bytes;
  const auto flush = [&] {
    for (std::size_t off = 0; off < bytes.size();) {
      std::size_t len;
      const bool ok = spm_utf8::valid_prefix(std::string_view(bytes).substr(off), &len);
      text += ok ? std::string_view(bytes).substr(off, len) : spm_utf8::kReplacement;
      off += len;
    }
    bytes.clear();
  };
  bool is_bos_ws = true, bos_ws_seen = false;
  for (int id : ids) {
    if (id_byte_[std::size_t(id)] >= 0) {
      bytes += char(id_byte_[std::size_t(id)]);
      continue;
    }
    flush();
    if (bos_ws_seen || !text.empty()) is_bos_ws = false;
    bos_ws_seen = false;
    const SpmPieceType t = type(id);
    if (t == SpmPieceType::Control) continue;
    if (t == SpmPieceType::Unknown) {
      text += m_.trainer.unk_surface;
      continue;
    }
    std::string_view piece = m_.pieces[std::size_t(id)].piece;
    if (is_bos_ws && (n.add_dummy_prefix || n.remove_extra_whitespaces) &&
        piece.substr(0, spm_utf8::kSpace.size()) == spm_utf8::kSpace) {
      piece.remove_prefix(spm_utf8::kSpace.size());
      bos_ws_seen = !n.remove_extra_whitespaces;
    }
    for (std::size_t p = 0; p < piece.size();) {
      if (piece.substr(p, spm_utf8::kSpace.size()) == spm_utf8::kSpace) {
        text += ' ';
        p += spm_utf8::kSpace.size();
      } else {
        text += piece[p++];
      }
    }
  }
  flush();
  return text;
}

}  // namespace attnseq
