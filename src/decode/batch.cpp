// Decoding many sources: decode_batch (greedy or beam over encoded sources, in one batch),
// translate_batch (ids in: grouped by length, encoded and decoded group by group on threads), and the
// one-source entry points over them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "decode/decode.hpp"
#include "decode/members.hpp"
#include "decode/options.hpp"
#include "kernels/kernels.hpp"

namespace attnseq {

std::vector<DecodeResult> decode_batch(const Ensemble& e, const Encoded* const* encs, int n,
                                       const DecodeOptions& options) {
  if (n < 1 || n > kMaxRows / std::max(1, options.beam))
    throw std::invalid_argument("decode_batch: " + std::to_string(n) + " sources at beam " +
                                std::to_string(options.beam) + "; at most " + std::to_string(kMaxRows) +
                                " decoder rows (sources x beam)");
  for (int i = 0; i < n; ++i) validate(options, e.config(), encs[std::size_t(i) * e.size()]->T);
  return options.beam > 1 ? beam_search(e, encs, n, options) : greedy_or_sample(e, encs, n, options);
}

DecodeResult greedy_or_sample(const Model& model, const Encoded& enc, const DecodeOptions& options) {
  const Encoded* e = &enc;
  return std::move(greedy_or_sample(model, &e, 1, options)[0]);
}

DecodeResult beam_search(const Model& model, const Encoded& enc, const DecodeOptions& options) {
  const Encoded* e = &enc;
  return std::move(beam_search(model, &e, 1, options)[0]);
}

DecodeResult decode(const Model& model, const Encoded& enc, const DecodeOptions& options) {
  validate(options, model.config(), enc.T);
  const Encoded* e = &enc;
  return std::move(decode_batch(model, &e, 1, options)[0]);
}

std::vector<DecodeResult> translate_batch(const Ensemble& e, const std::vector<std::vector<std::int32_t>>& sources,
                                          const DecodeOptions& options, int max_rows, int threads) {
  const Model& model = e.member(0);
  const std::size_t M = std::size_t(e.size());
  const std::size_t N = sources.size();
  if (max_rows < 1 || max_rows > kMaxRows)
    throw std::invalid_argument("translate_batch: max_rows is " + std::to_string(max_rows) + "; it must be in [1, " +
                                std::to_string(kMaxRows) + "]");
  threads = usable_threads(threads, "translate_batch: threads");
  for (std::size_t i = 0; i < N; ++i) {
    try {
      for (std::size_t m = 0; m < M; ++m) e.member(int(m)).check_source(sources[i].data(), int(sources[i].size()));
      validate(options, model.config(), int(sources[i].size()));
    } catch (const std::invalid_argument& e) {
      raise_with_context("source " + std::to_string(i) + ": ", e);
    }
  }
  // Groups of similar length waste little on padding: sources in order of length, cut into groups.
  std::vector<std::size_t> order(N);
  for (std::size_t i = 0; i < N; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return sources[a].size() < sources[b].size(); });
  // Sources per group: max_rows / beam, and fewer when that leaves a thread without a group.
  const std::size_t fill = (N + std::size_t(threads) - 1) / std::size_t(threads);
  const std::size_t per =
      std::max<std::size_t>(1, std::min(std::size_t(std::max(1, max_rows / std::max(1, options.beam))), fill));
  std::vector<DecodeResult> out(N);
  // Group g is sources order[g per .. (g + 1) per - 1]; thread t takes groups t, t + T, ... (each
  // source's result is the same whatever its group, and each is written to its own slot of out).
  const std::size_t groups = (N + per - 1) / per;
  const std::size_t T = std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads), groups));
  run_on_threads(T, [&](std::size_t t) {
    std::vector<std::vector<Encoded>> enc(M);
    std::vector<const std::int32_t*> ids;
    std::vector<int> lens;
    std::vector<const Encoded*> ptrs;
    for (std::size_t g = t; g < groups; g += T) {
      const std::size_t lo = g * per, hi = std::min(N, lo + per), n = hi - lo;
      ids.clear();
      lens.clear();
      for (std::size_t j = lo; j < hi; ++j) {
        ids.push_back(sources[order[j]].data());
        lens.push_back(int(sources[order[j]].size()));
      }
      for (std::size_t m = 0; m < M; ++m) e.member(int(m)).encode_batch(ids.data(), lens.data(), int(n), enc[m]);
      ptrs.clear();
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t m = 0; m < M; ++m) ptrs.push_back(&enc[m][j]);
      auto res = decode_batch(e, ptrs.data(), int(n), options);
      for (std::size_t j = 0; j < n; ++j) out[order[lo + j]] = std::move(res[j]);
    }
  });
  return out;
}

}  // namespace attnseq
