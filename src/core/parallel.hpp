// The one way training, evaluation and batch translation share work across threads (native builds;
// the wasm module is single-threaded): a range check for a thread count, and run_on_threads, which
// runs job(k) for k = 0 .. n-1 on n threads (k = 0 on the caller), joins them all and rethrows the
// first failure in k order, so a failed shard never leaves a thread running.
#pragma once
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace attnseq {

constexpr int kMaxThreads = 256;

// Throws std::invalid_argument naming `what` when threads is outside [1, kMaxThreads].
inline void check_threads(int threads, const std::string& what) {
  if (threads < 1 || threads > kMaxThreads)
    throw std::invalid_argument(what + " is " + std::to_string(threads) + "; it must be in [1, " +
                                std::to_string(kMaxThreads) + "]");
}

// The threads a job may use: `threads` once checked (check_threads), and 1 in a WebAssembly build
// without pthreads, whose module is single-threaded.
inline int usable_threads(int threads, const std::string& what) {
  check_threads(threads, what);
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  threads = 1;
#endif
  return threads;
}

// Every core, at most kMaxThreads: what --threads defaults to (train: its figures repeat for a given
// count; eval and translate --batch-file: their output is the same for any count).
inline int default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return int(n < 1 ? 1u : (n > unsigned(kMaxThreads) ? unsigned(kMaxThreads) : n));
}

template <class Job>
void run_on_threads(std::size_t n, Job&& job) {
  std::vector<std::exception_ptr> errors(n);
  auto guarded = [&](std::size_t k) {
    try {
      job(k);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < n; ++k) pool.emplace_back(guarded, k);
  if (n > 0) guarded(0);
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace attnseq
