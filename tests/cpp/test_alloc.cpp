// "step allocates nothing", checked by counting every operator new in this test program: after
// start(), any number of steps (greedy rows, beam-sized batches, reorders, attention overrides)
// must not allocate; nor must a training forward/backward once its workspace has seen the shape.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "model/model.hpp"
#include "test_util.hpp"
#include "train/backprop.hpp"

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them): every form must pair with
// the deletes below, or AddressSanitizer reports a new/free mismatch.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++g_allocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

using namespace attnseq;

TEST_CASE("step allocates nothing, for every style and all three weight paths (packed, plain, int8)") {
  const ModelConfig cfgs[] = {
      test::small_config(Cell::GRU, Style::Luong, Score::Dot),
      test::small_config(Cell::LSTM, Style::Luong, Score::Additive, true, true, 2, true),
      test::small_config(Cell::GRU, Style::Bahdanau, Score::General),
      test::small_config(Cell::LSTM, Style::None, Score::Dot, false, false, 2),
  };
  for (const auto& cfg : cfgs)
    for (int path : {0, 1, 2}) {
      Model m(cfg);
      test::randomize(m, 9, 1.0f);
      m.prepare(path != 1, path != 1);
      if (path == 2) m.quantize();
      CHECK(m.uses_int8_weights() == (path == 2));
      // int8: a source shorter than the beam, so that a step multiplies more rows than encode did
      // (the activation scratch must have been sized by start()).
      const std::vector<std::int32_t> src =
          path == 2 ? std::vector<std::int32_t>{4, 5} : std::vector<std::int32_t>{4, 5, 6, 7, 8};
      const int T = int(src.size());
      Encoded enc;
      m.encode(src.data(), T, enc);
      DecoderState st;
      m.start(enc, st, 4);
      std::vector<float> ov(4 * T, 0.25f);
      std::int32_t prev[4] = {1, 9, 10, 11}, parents[4] = {0, 0, 1, 0};
      const long before = g_allocations.load();
      for (int k = 0; k < 30; ++k) {
        const int B = 1 + k % 4;
        m.step(enc, st, prev, B, k % 3 == 0 ? ov.data() : nullptr);
        m.reorder(st, parents, std::min(B, 2));
      }
      CHECK(g_allocations.load() == before);
    }
}

TEST_CASE("a training step's forward and backward allocate nothing once the workspace has seen the shape") {
  const ModelConfig cfgs[] = {
      test::small_config(Cell::GRU, Style::Luong, Score::General, true, true, 1, true),
      test::small_config(Cell::LSTM, Style::Bahdanau, Score::Additive, false, false, 2),
      test::small_config(Cell::GRU, Style::None, Score::Dot, false, false, 2),
  };
  const std::vector<std::vector<std::int32_t>> src = {{4, 5, 6, 7}, {8, 4}, {5, 6, 7}}, tgt = {{4, 5}, {6, 7, 4}, {5}};
  const std::vector<std::vector<std::int32_t>> src2 = {{4, 5}, {8}}, tgt2 = {{4}, {6, 7}};
  for (const auto& cfg : cfgs) {
    CAPTURE(std::string(to_string(cfg.style)));
    Model m(cfg);
    test::randomize(m, 9, 1.0f);
    const auto big = train::make_batch(src, tgt, cfg), small = train::make_batch(src2, tgt2, cfg);
    std::vector<float> grad(m.params().data.size(), 0.f);
    train::Workspace ws;
    const train::ForwardOptions drop{0.2f, 0.1f, 5};
    train::forward_backward(m, big, grad.data(), drop, &ws);  // sizes the workspace
    const long before = g_allocations.load();
    long a = before, b = 0, c = 0, d = 0;
    for (int k = 0; k < 5; ++k) {
      train::forward_backward(m, big, grad.data(), drop, &ws);
      b += g_allocations.load() - a, a = g_allocations.load();
      train::forward_backward(m, small, grad.data(), {}, &ws);  // a smaller shape fits in the same buffers
      c += g_allocations.load() - a, a = g_allocations.load();
      train::forward_backward(m, big, nullptr, {}, &ws);  // loss only
      d += g_allocations.load() - a, a = g_allocations.load();
    }
    CHECK(b == 0);  // the same shape with dropout and label smoothing
    CHECK(c == 0);  // a smaller shape
    CHECK(d == 0);  // the loss alone
  }
}
