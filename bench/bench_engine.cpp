// attnseq_bench: latency of encode and step for the reference model (GRU, luong, dot score, no input
// feeding, no bridge, 1 layer, unidirectional, E = H, V = 1000 both sides, T = 32, random weights),
// batch 1, one thread. It measures and prints; it never passes or fails on time (bench/README.md).
// The same source runs natively and under Node (wasm SIMD / wasm scalar); bench/run.sh builds all
// three, interleaves their runs and tabulates the RESULT lines printed here.
// Every measurement reports the median wall-clock µs and the median CPU µs (time the scheduler gave
// to other processes excluded). --what=kernels times the kernels at exactly the shapes one step /
// encode uses, so a slow step can be attributed to a kernel and a matrix size (µs, GFLOP/s, GB/s);
// --what=lab times candidate gemv layouts that the engine does not use, to size possible gains;
// --what=...,int8 measures the model against its int8 copy (Model::quantize) side by side.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <xsimd/xsimd.hpp>
#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#else
#include <time.h>
#endif

#include "kernels/kernels.hpp"
#include "model/checkpoint.hpp"
#include "model/config.hpp"
#include "model/model.hpp"
#include "nn/layers.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kT = 32;              // source length
constexpr int kVocab = 1000;        // both vocabularies
constexpr int kRestart = 64;        // steps between start() calls (start is not timed)
constexpr int kStepsPerRep = 192;   // steps averaged per repetition (3 segments of 64)
constexpr int kEncodesPerRep = 20;  // encodes averaged per repetition

const char* build_label() {
#if defined(__EMSCRIPTEN__) && defined(__wasm_simd128__)
  return "wasm-simd";
#elif defined(__EMSCRIPTEN__)
  return "wasm-scalar";
#else
  return "native";
#endif
}

// splitmix64: the same weights on every platform (std:: distributions are implementation-defined).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) * (1.f / 16777216.f); }
  int below(int n) { return int(next() % std::uint64_t(n)); }
};

struct Options {
  std::vector<int> H = {128, 256, 512};
  bool encode = true, step = true, beam = true, kernels = false, lab = false, int8 = false;
  double budget = 1.0;  // seconds of timed repetitions per measurement (at least min_reps)
  int min_reps = 9, max_reps = 201;
};

// CPU time of this program: it excludes the time the scheduler gives to other processes, which on a
// shared 2-core machine can double wall-clock medians. Native: this thread's CPU clock. Under Node
// (clock_gettime has no CPU clocks in Emscripten 3.1.6): process.cpuUsage(), µs resolution.
#if defined(__EMSCRIPTEN__)
EM_JS(double, js_cpu_us, (), {
  const u = process.cpuUsage();
  return u.user + u.system;
});
double cpu_seconds() { return js_cpu_us() * 1e-6; }
#else
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
#endif

// Accumulates wall-clock and CPU seconds over start/stop intervals.
struct Stopwatch {
  double wall = 0, cpu = 0;
  Clock::time_point w0;
  double c0 = 0;
  void start() {
    c0 = cpu_seconds();
    w0 = Clock::now();
  }
  void stop() {
    const auto w1 = Clock::now();
    cpu += cpu_seconds() - c0;
    wall += std::chrono::duration<double>(w1 - w0).count();
  }
};

struct Samples {
  std::vector<double> wall_us, cpu_us;  // per operation, one entry per repetition
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs rep(sw) (which times its operations on sw and returns how many it covered) twice to warm up,
// then until the budget is spent; returns per-operation µs of every repetition.
Samples repeat(const Options& o, const std::function<int(Stopwatch&)>& rep) {
  Stopwatch warm;
  rep(warm);  // warm-up: caches, branch predictors, V8's tier-up to its optimising compiler
  rep(warm);
  Samples s;
  double spent = 0;
  while ((int(s.wall_us.size()) < o.min_reps || spent < o.budget) && int(s.wall_us.size()) < o.max_reps) {
    Stopwatch sw;
    const int ops = rep(sw);
    spent += sw.wall;
    s.wall_us.push_back(1e6 * sw.wall / ops);
    s.cpu_us.push_back(1e6 * sw.cpu / ops);
  }
  return s;
}

volatile float g_sink;  // keeps results observable

// us: median wall-clock µs per operation; min/max over repetitions; cpu_us: median CPU µs.
void report(int H, const char* what, int B, const Samples& s, double flops) {
  const auto& us = s.wall_us;
  const double med = median(us);
  const double lo = *std::min_element(us.begin(), us.end());
  const double hi = *std::max_element(us.begin(), us.end());
  std::printf("RESULT build=%s arch=%s H=%d what=%s B=%d us=%.2f min=%.2f max=%.2f cpu_us=%.2f reps=%zu gflops=%.2f\n",
              build_label(), attnseq::simd::arch_name(), H, what, B, med, lo, hi, median(s.cpu_us), us.size(),
              flops / (med * 1e3));
  std::fflush(stdout);
}

attnseq::ModelConfig reference_config(int H) {
  attnseq::ModelConfig c;
  c.cell = attnseq::Cell::GRU;
  c.style = attnseq::Style::Luong;
  c.score = attnseq::Score::Dot;
  c.input_feeding = false;
  c.bidirectional = false;
  c.bridge = false;
  c.layers = 1;
  c.src_vocab = c.tgt_vocab = kVocab;
  c.src_emb = c.tgt_emb = H;
  c.enc_hidden = c.dec_hidden = H;
  return c;
}

// Multiply-adds x2 of one decoder step (B rows) and one encode, as the engine computes them
// (the input projections are table lookups, so they are not counted).
double step_flops(int H, int B) {
  const double h = H;
  return 2.0 * B * (3 * h * h + kT * h + kT * h + h * 2 * h + double(kVocab) * h);
}
double encode_flops(int H) { return 2.0 * kT * 3.0 * H * H; }

void bench_model(const Options& o, int H) {
  attnseq::Model model(reference_config(H));
  Rng rng{0x5EED0000u + std::uint64_t(H)};
  for (float& w : model.params().data) w = rng.uniform(-0.1f, 0.1f);
  model.prepare();

  std::vector<std::int32_t> src(kT);
  for (auto& t : src) t = 4 + rng.below(kVocab - 4);
  // Fixed previous-token sequence (restart k uses the same 64 tokens): greedy-like inputs without
  // timing an argmax over the vocabulary.
  constexpr int kMaxB = 4;
  std::vector<std::int32_t> prev(std::size_t(kRestart) * kMaxB);
  for (auto& t : prev) t = 4 + rng.below(kVocab - 4);

  attnseq::Encoded enc;
  model.encode(src.data(), kT, enc);

  if (o.encode) {
    auto us = repeat(o, [&](Stopwatch& sw) {
      sw.start();
      for (int i = 0; i < kEncodesPerRep; ++i) model.encode(src.data(), kT, enc);
      sw.stop();
      g_sink = enc.memory[0];
      return kEncodesPerRep;
    });
    report(H, "encode", 1, us, encode_flops(H));
  }

  auto bench_step = [&](int B, const char* what) {
    attnseq::DecoderState st;
    const std::int32_t parents[kMaxB] = {0, 0, 0, 0};
    auto restart = [&] {
      model.start(enc, st, B);
      if (B > 1) model.reorder(st, parents, B);  // B copies of s_0
    };
    restart();
    int k = 0;  // steps since the last start()
    auto us = repeat(o, [&](Stopwatch& sw) {
      int done = 0;
      while (done < kStepsPerRep) {
        if (k == kRestart) {
          restart();
          k = 0;
        }
        const int n = std::min(kRestart - k, kStepsPerRep - done);
        sw.start();
        for (int i = 0; i < n; ++i) model.step(enc, st, &prev[std::size_t(k + i) * kMaxB], B);
        sw.stop();
        k += n;
        done += n;
      }
      g_sink = st.logits[0];
      return done;
    });
    report(H, what, B, us, step_flops(H, B));
  };
  if (o.step) bench_step(1, "step");
  if (o.beam) bench_step(4, "step");
}

// ---- int8 against f32, side by side ---------------------------------------------------------------
// The reference model and its int8 copy (Model::quantize) measured in alternating repetitions, so
// that the load of the moment weighs on both alike; prints a RESULT line for each (what=step-int8
// etc. for the int8 one), then an INT8 line with the ratio of the medians and the median of the
// per-repetition ratios, and the two checkpoints' sizes.
std::pair<Samples, Samples> repeat_pair(const Options& o, const std::function<int(Stopwatch&)>& a,
                                        const std::function<int(Stopwatch&)>& b) {
  Stopwatch warm;
  a(warm), b(warm), a(warm), b(warm);
  Samples sa, sb;
  double spent = 0;
  while ((int(sa.wall_us.size()) < o.min_reps || spent < 2 * o.budget) && int(sa.wall_us.size()) < o.max_reps) {
    for (int k = 0; k < 2; ++k) {
      Stopwatch sw;
      const int ops = (k == 0 ? a : b)(sw);
      spent += sw.wall;
      Samples& s = k == 0 ? sa : sb;
      s.wall_us.push_back(1e6 * sw.wall / ops);
      s.cpu_us.push_back(1e6 * sw.cpu / ops);
    }
  }
  return {sa, sb};
}

void report_pair(int H, const char* what, int B, const Samples& f32, const Samples& q8, double flops) {
  report(H, what, B, f32, flops);
  report(H, (std::string(what) + "-int8").c_str(), B, q8, flops);
  std::vector<double> wall, cpu;
  for (std::size_t i = 0; i < f32.wall_us.size(); ++i) {
    wall.push_back(q8.wall_us[i] / f32.wall_us[i]);
    cpu.push_back(f32.cpu_us[i] > 0 ? q8.cpu_us[i] / f32.cpu_us[i] : 0.0);
  }
  std::printf("INT8 build=%s arch=%s q8=%s H=%d what=%s B=%d ratio=%.3f cpu_ratio=%.3f paired=%.3f cpu_paired=%.3f\n",
              build_label(), attnseq::simd::arch_name(), attnseq::simd::q8_arch_name(), H, what, B,
              median(q8.wall_us) / median(f32.wall_us), median(q8.cpu_us) / median(f32.cpu_us), median(wall),
              median(cpu));
  std::fflush(stdout);
}

void bench_int8(const Options& o, int H) {
  attnseq::Model f32(reference_config(H));
  Rng rng{0x5EED0000u + std::uint64_t(H)};  // the same weights as bench_model
  for (float& w : f32.params().data) w = rng.uniform(-0.1f, 0.1f);
  f32.prepare();
  attnseq::Model q8(f32.config(), f32.params());
  q8.quantize();
  std::printf("FILESIZE H=%d f32=%zu int8=%zu ratio=%.3f\n", H, attnseq::save_checkpoint(f32).size(),
              attnseq::save_checkpoint(q8).size(),
              double(attnseq::save_checkpoint(q8).size()) / double(attnseq::save_checkpoint(f32).size()));
  std::vector<std::int32_t> src(kT);
  for (auto& t : src) t = 4 + rng.below(kVocab - 4);
  constexpr int kMaxB = 4;
  std::vector<std::int32_t> prev(std::size_t(kRestart) * kMaxB);
  for (auto& t : prev) t = 4 + rng.below(kVocab - 4);
  attnseq::Encoded enc_f, enc_q;
  f32.encode(src.data(), kT, enc_f);
  q8.encode(src.data(), kT, enc_q);
  if (o.encode) {
    auto enc = [&src](const attnseq::Model& model, attnseq::Encoded& encoded) {
      return [&src, m = &model, e = &encoded](Stopwatch& sw) {
        sw.start();
        for (int i = 0; i < kEncodesPerRep; ++i) m->encode(src.data(), kT, *e);
        sw.stop();
        g_sink = e->memory[0];
        return kEncodesPerRep;
      };
    };
    const auto r = repeat_pair(o, enc(f32, enc_f), enc(q8, enc_q));
    report_pair(H, "encode", 1, r.first, r.second, encode_flops(H));
  }
  auto steps = [&](int B) {
    struct Run {
      attnseq::DecoderState st;
      int k = kRestart;
    };
    auto rf = std::make_shared<Run>(), rq = std::make_shared<Run>();
    auto stepper = [&prev, B](const attnseq::Model& model, const attnseq::Encoded& encoded, std::shared_ptr<Run> run) {
      return [&prev, B, run, m = &model, e = &encoded](Stopwatch& sw) {
        const std::int32_t parents[kMaxB] = {0, 0, 0, 0};
        int done = 0;
        while (done < kStepsPerRep) {
          if (run->k == kRestart) {
            m->start(*e, run->st, B);
            if (B > 1) m->reorder(run->st, parents, B);
            run->k = 0;
          }
          const int n = std::min(kRestart - run->k, kStepsPerRep - done);
          sw.start();
          for (int i = 0; i < n; ++i) m->step(*e, run->st, &prev[std::size_t(run->k + i) * kMaxB], B);
          sw.stop();
          run->k += n;
          done += n;
        }
        g_sink = run->st.logits[0];
        return done;
      };
    };
    const auto r = repeat_pair(o, stepper(f32, enc_f, rf), stepper(q8, enc_q, rq));
    report_pair(H, "step", B, r.first, r.second, step_flops(H, B));
  };
  if (o.step) steps(1);
  if (o.beam) steps(4);
}

// ---- kernel micro-benchmark: the calls one step / one encode makes, at their shapes -------------
// bytes: weight bytes one call streams (its matrix), for the GB/s column; 0 if not meaningful.
void bench_kernel(const Options& o, int H, const char* name, const char* shape, double flops, double bytes, int calls,
                  const std::function<void()>& f) {
  Options k = o;
  k.budget = std::min(o.budget, 0.3);
  auto s = repeat(k, [&](Stopwatch& sw) {
    sw.start();
    for (int i = 0; i < calls; ++i) f();
    sw.stop();
    return calls;
  });
  // Kernels report CPU time: they are short enough that one preemption would dominate wall time.
  const double med = median(s.cpu_us);
  std::printf("KERNEL build=%s arch=%s H=%d kernel=%s shape=%s us=%.3f gflops=%.2f gbs=%.1f\n", build_label(),
              attnseq::simd::arch_name(), H, name, shape, med, flops > 0 ? flops / (med * 1e3) : 0.0,
              bytes > 0 ? bytes / (med * 1e3) : 0.0);
  std::fflush(stdout);
}

void bench_kernels(const Options& o, int H) {
  namespace K = attnseq::kernels;
  Rng rng{0xC0FFEEu + std::uint64_t(H)};
  auto rand_vec = [&](std::size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = rng.uniform(-0.1f, 0.1f);
    return v;
  };
  const std::size_t h = H, G = 3 * h, V = kVocab, T = kT;
  // Separate buffers per matrix, as in the model, so each call streams its own weights.
  auto w_hh = rand_vec(G * h), w_c = rand_vec(h * 2 * h), w_o = rand_vec(V * h), mem = rand_vec(T * h);
  auto x = rand_vec(2 * h), y = rand_vec(std::max(V, G)), g = rand_vec(G), s = rand_vec(T);
  auto table = rand_vec(V * G);
  char shape[64];
  auto sh = [&](std::size_t m, std::size_t n) {
    std::snprintf(shape, sizeof shape, "%zux%zu", m, n);
    return shape;
  };
  const int c = H >= 512 ? 50 : 200;
  const double F = 4.0;  // bytes per float
  // Plain read bandwidth over buffers as large as the step's matrices: the ceiling for batch 1.
  const std::size_t step_floats = G * h + h * 2 * h + V * h;
  auto big = rand_vec(step_floats);
  auto read_all = [](const float* p, std::size_t n) {
    using Vb = xsimd::batch<float>;
    constexpr std::size_t W = Vb::size;
    Vb a0(0.f), a1(0.f), a2(0.f), a3(0.f);
    std::size_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
      a0 += Vb::load_unaligned(p + i);
      a1 += Vb::load_unaligned(p + i + W);
      a2 += Vb::load_unaligned(p + i + 2 * W);
      a3 += Vb::load_unaligned(p + i + 3 * W);
    }
    g_sink = xsimd::reduce_add((a0 + a1) + (a2 + a3));
  };
  // The best our product does: the packed kernel on a matrix that stays in L1, 4 rows at once.
  {
    const std::size_t m1 = 64, n1 = 64;  // 16 KiB of weights: L1-resident
    auto w1 = rand_vec(m1 * n1), x1 = rand_vec(4 * n1), y1 = rand_vec(4 * m1);
    std::vector<float> p1(K::packed_size(m1, n1));
    K::pack(w1.data(), m1, n1, p1.data());
    bench_kernel(o, H, "gemm_packed_L1_B4", sh(m1, n1), 2.0 * 4 * m1 * n1, 0, 2000,
                 [&] { K::gemm_packed(x1.data(), n1, p1.data(), nullptr, y1.data(), m1, 4, m1, n1); });
  }
  {  // Training's three products at the G2P decoder's recurrent shape (B 64, 768 x 256), H-independent.
    const std::size_t b2 = 64, m2 = 768, n2 = 256;
    auto w2 = rand_vec(m2 * n2), x2 = rand_vec(b2 * n2), y2 = rand_vec(b2 * m2), dw2 = rand_vec(m2 * n2),
         dx2 = rand_vec(b2 * n2);
    std::vector<float> p2(K::packed_size(m2, n2));
    K::pack(w2.data(), m2, n2, p2.data());
    const double f2 = 2.0 * b2 * m2 * n2;
    bench_kernel(o, H, "train_forward_gemm_packed", "64x256_by_256x768", f2, 0, 5,
                 [&] { K::gemm_packed(x2.data(), n2, p2.data(), nullptr, y2.data(), m2, b2, m2, n2); });
    bench_kernel(o, H, "train_dW_gemm_acc", "768x64_by_64x256", f2, 0, 5,
                 [&] { K::gemm_acc(y2.data(), 1, m2, x2.data(), n2, dw2.data(), n2, m2, n2, b2); });
    bench_kernel(o, H, "train_dX_gemm_acc", "64x768_by_768x256", f2, 0, 5,
                 [&] { K::gemm_acc(y2.data(), m2, 1, w2.data(), n2, dx2.data(), n2, b2, n2, m2); });
  }
  bench_kernel(o, H, "read_Whh_bytes", sh(G, h), 0, F * G * h, c, [&] { read_all(big.data(), G * h); });
  bench_kernel(o, H, "read_step_bytes", sh(1, step_floats), 0, F * step_floats, c / 4 + 1,
               [&] { read_all(big.data(), step_floats); });
  bench_kernel(o, H, "gemv_Whh", sh(G, h), 2.0 * G * h, F * G * h, c,
               [&] { K::gemv(w_hh.data(), x.data(), y.data(), G, h, true); });
  bench_kernel(o, H, "gemv_combine", sh(h, 2 * h), 4.0 * h * h, F * 2 * h * h, c,
               [&] { K::gemv(w_c.data(), x.data(), y.data(), h, 2 * h, true); });
  bench_kernel(o, H, "gemv_out", sh(V, h), 2.0 * V * h, F * V * h, c,
               [&] { K::gemv(w_o.data(), x.data(), y.data(), V, h, true); });
  // The three matrices of a step back to back, as the step meets them (each evicts the others).
  bench_kernel(o, H, "gemv_step_chain", sh(1, step_floats), 2.0 * step_floats, F * step_floats, c / 4 + 1, [&] {
    K::gemv(w_hh.data(), x.data(), y.data(), G, h, true);
    K::gemv(w_c.data(), x.data(), y.data(), h, 2 * h, true);
    K::gemv(w_o.data(), x.data(), y.data(), V, h, true);
  });
  bench_kernel(o, H, "scores_gemm_nt", sh(T, h), 2.0 * T * h, 0, 4000,
               [&] { K::gemm_nt(x.data(), h, mem.data(), s.data(), T, 1, T, h, false); });
  bench_kernel(o, H, "softmax", sh(1, T), 0, 0, 4000, [&] { K::masked_softmax(s.data(), T, T); });
  bench_kernel(o, H, "context_gemv_t", sh(T, h), 2.0 * T * h, 0, 4000,
               [&] { K::gemv_t(mem.data(), s.data(), y.data(), T, h); });
  bench_kernel(o, H, "sigmoid", sh(1, 2 * h), 0, 0, 4000, [&] {
    std::memcpy(y.data(), x.data(), 2 * h * 4);
    K::sigmoid(y.data(), 2 * h);
  });
  bench_kernel(o, H, "tanh", sh(1, h), 0, 0, 4000, [&] {
    std::memcpy(y.data(), x.data(), h * 4);
    K::tanh(y.data(), h);
  });
  // A trained cell's gates see pre-activations well past |x| = 0.625, where tanh needs its exp:
  // the same row spread over [-4, 4].
  std::vector<float> wide(h);
  for (std::size_t i = 0; i < h; ++i) wide[i] = 40.f * x[i];  // x is uniform in [-0.1, 0.1]
  bench_kernel(o, H, "tanh_wide", sh(1, h), 0, 0, 4000, [&] {
    std::memcpy(y.data(), wide.data(), h * 4);
    K::tanh(y.data(), h);
  });
  bench_kernel(o, H, "argmax", sh(1, V), 0, 0, 4000, [&] { g_sink = float(K::argmax(table.data(), V)); });
  // What a dec.step() record adds over the raw step: the log-probability's logsumexp and the top 5.
  bench_kernel(o, H, "logsumexp", sh(1, V), 0, 0, 4000, [&] { g_sink = K::logsumexp(table.data(), V); });
  std::int32_t top_ids[5];
  float top_vals[5];
  bench_kernel(o, H, "topk5", sh(1, V), 0, 0, 4000, [&] {
    K::topk(table.data(), V, 5, top_ids, top_vals);
    g_sink = top_vals[4];
  });
  bench_kernel(o, H, "table_row_copy", sh(1, G), 0, 0, 4000,
               [&] { std::memcpy(g.data(), &table[(rng.next() % V) * G], G * 4); });
  // The whole GRU cell (gemv + elementwise) as the engine calls it, batch 1.
  attnseq::nn::RnnWeights rw;
  auto b_hh = rand_vec(G);
  rw.hh.w = w_hh.data();
  rw.hh.b = b_hh.data();
  rw.hidden = H;
  rw.in = H;
  auto gi = rand_vec(G), gh = rand_vec(G), hs = rand_vec(h);
  bench_kernel(o, H, "gru_cell_B1", sh(G, h), 2.0 * G * h, F * G * h, c, [&] {
    std::memcpy(gi.data(), g.data(), G * 4);
    attnseq::nn::gru_cell_forward(rw, gi.data(), gh.data(), hs.data(), 1);
  });
  // Beam: 4 rows through W_hh in one gemm_nt (the matrix is read once per 4-row block).
  auto x4 = rand_vec(4 * h), y4 = rand_vec(std::max(4 * G, V));
  bench_kernel(o, H, "gemm_nt_Whh_B4", sh(G, h), 8.0 * G * h, F * G * h, c,
               [&] { K::gemm_nt(x4.data(), h, w_hh.data(), y4.data(), G, 4, G, h, true); });
  // int8 (Model::quantize): the step's three products with int8 weights, each quantising its
  // activation row first as the model does; one row, then 4 rows (a beam) through W_hh.
  struct Q8 {
    std::vector<std::int8_t> packed;
    std::vector<float> scale;
  };
  auto q8_of = [](const std::vector<float>& w, std::size_t m, std::size_t n) {
    Q8 q;
    std::vector<std::int8_t> rows(m * n);
    q.scale.resize(m);
    attnseq::q8_quantize_rows(w.data(), m, n, rows.data(), q.scale.data());
    q.packed.resize(attnseq::q8_packed_size(m, n));
    attnseq::q8_pack(rows.data(), m, n, q.packed.data());
    return q;
  };
  const Q8 q_hh = q8_of(w_hh, G, h), q_c = q8_of(w_c, h, 2 * h), q_o = q8_of(w_o, V, h);
  std::vector<std::int16_t> xq(4 * (2 * h + 2));
  float xs[4];
  auto q8_product = [&](const Q8& q, std::size_t m, std::size_t n, std::size_t rows, const float* in) {
    const std::size_t ldq = n + 2;
    for (std::size_t r = 0; r < rows; ++r)
      xs[r] = K::quantize_i16(in + r * n, n, attnseq::q8_act_max(n), xq.data() + r * ldq);
    K::gemm_q8(xq.data(), ldq, xs, q.packed.data(), q.scale.data(), nullptr, y4.data(), m, rows, m, n);
  };
  bench_kernel(o, H, "q8_Whh", sh(G, h), 2.0 * G * h, double(G * h), c, [&] { q8_product(q_hh, G, h, 1, x.data()); });
  bench_kernel(o, H, "q8_combine", sh(h, 2 * h), 4.0 * h * h, 2.0 * h * h, c,
               [&] { q8_product(q_c, h, 2 * h, 1, x.data()); });
  bench_kernel(o, H, "q8_out", sh(V, h), 2.0 * V * h, double(V * h), c, [&] { q8_product(q_o, V, h, 1, x.data()); });
  bench_kernel(o, H, "q8_step_chain", sh(1, step_floats), 2.0 * step_floats, double(step_floats), c / 4 + 1, [&] {
    q8_product(q_hh, G, h, 1, x.data());
    q8_product(q_c, h, 2 * h, 1, x.data());
    q8_product(q_o, V, h, 1, x.data());
  });
  bench_kernel(o, H, "q8_Whh_B4", sh(G, h), 8.0 * G * h, double(G * h), c,
               [&] { q8_product(q_hh, G, h, 4, x4.data()); });
}

// ---- kernel lab: candidate gemv / gemm layouts, to size what src/kernels/simd_impl.inc could gain
// Not used by the engine. Each candidate computes y = W x (or C = X W^T for 4 rows) for the same
// matrix as kernels::gemv, after a one-time repacking of W (which the engine would do in prepare()).
namespace lab {
using A = xsimd::default_arch;
using Vb = xsimd::batch<float, A>;
constexpr std::size_t L = Vb::size;

// 8 rows per block, one vector of columns per iteration: x is loaded once per 8 rows.
void gemv_dot8(const float* W, const float* x, float* y, std::size_t M, std::size_t N) {
  std::size_t m = 0;
  for (; m + 8 <= M; m += 8) {
    const float* w = W + m * N;
    Vb a[8];
    for (auto& v : a) v = Vb(0.f);
    for (std::size_t i = 0; i + L <= N; i += L) {  // N % L == 0 in the lab
      const Vb xv = Vb::load_unaligned(x + i);
      for (int r = 0; r < 8; ++r) a[r] = xsimd::fma(Vb::load_unaligned(w + r * N + i), xv, a[r]);
    }
    for (int r = 0; r < 8; ++r) y[m + r] = xsimd::reduce_add(a[r]);
  }
  for (; m < M; ++m) y[m] = attnseq::kernels::dot(W + m * N, x, N);
}

// Panels of 4 rows interleaved by one vector of columns: the same arithmetic as the engine's Dot4,
// but one sequential stream of weights instead of four.
std::vector<float> pack4(const float* W, std::size_t M, std::size_t N) {
  std::vector<float> P(M * N);
  float* p = P.data();
  for (std::size_t m = 0; m < M; m += 4)
    for (std::size_t i = 0; i < N; i += L)
      for (std::size_t r = 0; r < 4; ++r)
        for (std::size_t l = 0; l < L; ++l) *p++ = W[(m + r) * N + i + l];
  return P;
}
void gemv_pack4(const float* P, const float* x, float* y, std::size_t M, std::size_t N) {
  for (std::size_t m = 0; m < M; m += 4) {  // M % 4 == 0 in the lab
    const float* p = P + m * N;
    Vb a0(0.f), a1(0.f), a2(0.f), a3(0.f), b0(0.f), b1(0.f), b2(0.f), b3(0.f);
    std::size_t i = 0;
    for (; i + 2 * L <= N; i += 2 * L, p += 8 * L) {
      const Vb x0 = Vb::load_unaligned(x + i), x1 = Vb::load_unaligned(x + i + L);
      a0 = xsimd::fma(Vb::load_unaligned(p), x0, a0);
      a1 = xsimd::fma(Vb::load_unaligned(p + L), x0, a1);
      a2 = xsimd::fma(Vb::load_unaligned(p + 2 * L), x0, a2);
      a3 = xsimd::fma(Vb::load_unaligned(p + 3 * L), x0, a3);
      b0 = xsimd::fma(Vb::load_unaligned(p + 4 * L), x1, b0);
      b1 = xsimd::fma(Vb::load_unaligned(p + 5 * L), x1, b1);
      b2 = xsimd::fma(Vb::load_unaligned(p + 6 * L), x1, b2);
      b3 = xsimd::fma(Vb::load_unaligned(p + 7 * L), x1, b3);
    }
    y[m] = xsimd::reduce_add(a0 + b0);
    y[m + 1] = xsimd::reduce_add(a1 + b1);
    y[m + 2] = xsimd::reduce_add(a2 + b2);
    y[m + 3] = xsimd::reduce_add(a3 + b3);
  }
}

// Column panels of P = 8 vectors (32 rows on 128-bit SIMD): y_panel += x[j] * Wt[j, panel].
// No horizontal reductions, one sequential stream, eight independent accumulators.
constexpr std::size_t kPanel = 8 * L;
std::vector<float> pack_t(const float* W, std::size_t M, std::size_t N) {
  std::vector<float> P(M * N);
  for (std::size_t m0 = 0; m0 < M; m0 += kPanel)
    for (std::size_t j = 0; j < N; ++j)
      for (std::size_t l = 0; l < kPanel; ++l) P[m0 * N + j * kPanel + l] = W[(m0 + l) * N + j];
  return P;
}
void gemv_panel(const float* P, const float* x, float* y, std::size_t M, std::size_t N) {
  for (std::size_t m0 = 0; m0 < M; m0 += kPanel) {  // M % kPanel == 0 in the lab
    const float* p = P + m0 * N;
    Vb a[8];
    for (auto& v : a) v = Vb(0.f);
    for (std::size_t j = 0; j < N; ++j, p += kPanel) {
      const Vb xs(x[j]);
      for (int q = 0; q < 8; ++q) a[q] = xsimd::fma(Vb::load_unaligned(p + q * L), xs, a[q]);
    }
    for (int q = 0; q < 8; ++q) a[q].store_unaligned(y + m0 + q * L);
  }
}

// C (4, M) = X (4, N) W^T: 4 weight rows x 4 batch rows per block, every weight load used 4 times.
void gemm4_4x4(const float* X, const float* W, float* C, std::size_t M, std::size_t N) {
  for (std::size_t m = 0; m < M; m += 4) {
    const float* w = W + m * N;
    Vb acc[4][4];
    for (auto& row : acc)
      for (auto& v : row) v = Vb(0.f);
    for (std::size_t i = 0; i + L <= N; i += L) {
      Vb wv[4], xv[4];
      for (int r = 0; r < 4; ++r) wv[r] = Vb::load_unaligned(w + r * N + i);
      for (int b = 0; b < 4; ++b) xv[b] = Vb::load_unaligned(X + b * N + i);
      for (int b = 0; b < 4; ++b)
        for (int r = 0; r < 4; ++r) acc[b][r] = xsimd::fma(wv[r], xv[b], acc[b][r]);
    }
    for (int b = 0; b < 4; ++b)
      for (int r = 0; r < 4; ++r) C[b * M + m + r] = xsimd::reduce_add(acc[b][r]);
  }
}

// C (4, M) = X (4, N) W^T on the pack4 layout, two batch rows at a time: 8 accumulators, so that
// wasm's 16 vector registers hold the whole tile (the 4x4 tile above spills under V8).
void gemm4_pack4x2(const float* X, const float* P, float* C, std::size_t M, std::size_t N) {
  for (std::size_t m = 0; m < M; m += 4) {
    for (std::size_t b = 0; b < 4; b += 2) {
      const float* p = P + m * N;
      const float* x0 = X + b * N;
      const float* x1 = x0 + N;
      Vb a0(0.f), a1(0.f), a2(0.f), a3(0.f), c0(0.f), c1(0.f), c2(0.f), c3(0.f);
      for (std::size_t i = 0; i + L <= N; i += L, p += 4 * L) {
        const Vb w0 = Vb::load_unaligned(p), w1 = Vb::load_unaligned(p + L);
        const Vb w2 = Vb::load_unaligned(p + 2 * L), w3 = Vb::load_unaligned(p + 3 * L);
        const Vb u = Vb::load_unaligned(x0 + i), v = Vb::load_unaligned(x1 + i);
        a0 = xsimd::fma(w0, u, a0);
        a1 = xsimd::fma(w1, u, a1);
        a2 = xsimd::fma(w2, u, a2);
        a3 = xsimd::fma(w3, u, a3);
        c0 = xsimd::fma(w0, v, c0);
        c1 = xsimd::fma(w1, v, c1);
        c2 = xsimd::fma(w2, v, c2);
        c3 = xsimd::fma(w3, v, c3);
      }
      float* r0 = C + b * M + m;
      float* r1 = r0 + M;
      r0[0] = xsimd::reduce_add(a0), r0[1] = xsimd::reduce_add(a1), r0[2] = xsimd::reduce_add(a2),
      r0[3] = xsimd::reduce_add(a3);
      r1[0] = xsimd::reduce_add(c0), r1[1] = xsimd::reduce_add(c1), r1[2] = xsimd::reduce_add(c2),
      r1[3] = xsimd::reduce_add(c3);
    }
  }
}
}  // namespace lab

void bench_lab(const Options& o, int H) {
  Rng rng{0x1AB0000u + std::uint64_t(H)};
  auto rand_vec = [&](std::size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = rng.uniform(-0.1f, 0.1f);
    return v;
  };
  const std::size_t h = H, V = kVocab;
  const double F = 4.0;
  char shape[64];
  struct Mat {
    const char* name;
    std::size_t M, N;
  };
  const Mat mats[] = {{"Whh", 3 * h, h}, {"combine", h, 2 * h}, {"out", V, h}};
  for (const auto& mt : mats) {
    const std::size_t M = mt.M, N = mt.N;
    std::snprintf(shape, sizeof shape, "%zux%zu", M, N);
    auto W = rand_vec(M * N), x = rand_vec(N);
    std::vector<float> y0(M), y(M);
    auto P4 = lab::pack4(W.data(), M, N);
    const std::size_t Mp = (M + lab::kPanel - 1) / lab::kPanel * lab::kPanel;  // pad rows to the panel
    std::vector<float> Wpad(Mp * N, 0.f);
    std::copy(W.begin(), W.end(), Wpad.begin());
    auto PT = lab::pack_t(Wpad.data(), Mp, N);
    std::vector<float> yp(Mp);
    attnseq::kernels::gemv(W.data(), x.data(), y0.data(), M, N, false);
    auto check = [&](const float* got) {
      double e = 0;
      for (std::size_t m = 0; m < M; ++m) e = std::max(e, double(std::fabs(got[m] - y0[m])));
      return e;
    };
    const int c = M * N >= (1u << 19) ? 50 : 200;
    std::string n;
    n = std::string("engine_gemv_") + mt.name;
    bench_kernel(o, H, n.c_str(), shape, 2.0 * M * N, F * M * N, c,
                 [&] { attnseq::kernels::gemv(W.data(), x.data(), y.data(), M, N, false); });
    lab::gemv_dot8(W.data(), x.data(), y.data(), M, N);
    std::printf("# lab dot8 max|err| %.2g\n", check(y.data()));
    n = std::string("lab_dot8_") + mt.name;
    bench_kernel(o, H, n.c_str(), shape, 2.0 * M * N, F * M * N, c,
                 [&] { lab::gemv_dot8(W.data(), x.data(), y.data(), M, N); });
    lab::gemv_pack4(P4.data(), x.data(), y.data(), M, N);
    std::printf("# lab pack4 max|err| %.2g\n", check(y.data()));
    n = std::string("lab_pack4_") + mt.name;
    bench_kernel(o, H, n.c_str(), shape, 2.0 * M * N, F * M * N, c,
                 [&] { lab::gemv_pack4(P4.data(), x.data(), y.data(), M, N); });
    lab::gemv_panel(PT.data(), x.data(), yp.data(), Mp, N);
    std::printf("# lab panel max|err| %.2g\n", check(yp.data()));
    n = std::string("lab_panel_") + mt.name;
    bench_kernel(o, H, n.c_str(), shape, 2.0 * M * N, F * M * N, c,
                 [&] { lab::gemv_panel(PT.data(), x.data(), yp.data(), Mp, N); });
  }
  // Beam: 4 rows through W_hh.
  const std::size_t M = 3 * h, N = h;
  std::snprintf(shape, sizeof shape, "%zux%zu", M, N);
  auto W = rand_vec(M * N), X = rand_vec(4 * N);
  std::vector<float> C0(4 * M), C(4 * M);
  attnseq::kernels::gemm_nt(X.data(), N, W.data(), C0.data(), M, 4, M, N, false);
  lab::gemm4_4x4(X.data(), W.data(), C.data(), M, N);
  double e = 0;
  for (std::size_t i = 0; i < 4 * M; ++i) e = std::max(e, double(std::fabs(C[i] - C0[i])));
  std::printf("# lab 4x4 max|err| %.2g\n", e);
  auto P4 = lab::pack4(W.data(), M, N);
  lab::gemm4_pack4x2(X.data(), P4.data(), C.data(), M, N);
  e = 0;
  for (std::size_t i = 0; i < 4 * M; ++i) e = std::max(e, double(std::fabs(C[i] - C0[i])));
  std::printf("# lab pack4x2 max|err| %.2g\n", e);
  const int c = H >= 512 ? 50 : 200;
  bench_kernel(o, H, "engine_gemm_nt_B4_Whh", shape, 8.0 * M * N, F * M * N, c,
               [&] { attnseq::kernels::gemm_nt(X.data(), N, W.data(), C.data(), M, 4, M, N, false); });
  bench_kernel(o, H, "lab_4x4_B4_Whh", shape, 8.0 * M * N, F * M * N, c,
               [&] { lab::gemm4_4x4(X.data(), W.data(), C.data(), M, N); });
  bench_kernel(o, H, "lab_pack4x2_B4_Whh", shape, 8.0 * M * N, F * M * N, c,
               [&] { lab::gemm4_pack4x2(X.data(), P4.data(), C.data(), M, N); });
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  while (*s) {
    char* end;
    v.push_back(int(std::strtol(s, &end, 10)));
    s = *end ? end + 1 : end;
  }
  return v;
}

void usage() {
  std::puts(
      "attnseq_bench [--H=128,256,512] [--what=encode,step,beam,kernels,lab,int8] [--budget=SECONDS] [--min-reps=N]\n"
      "  encode: model.encode of 32 tokens; step: model.step batch 1; beam: model.step with 4 rows;\n"
      "  int8: each of encode/step/beam named for the model and its int8 copy in alternating repetitions (INT8 "
      "lines);\n"
      "  kernels: each kernel at the shapes a step/encode uses; lab: candidate gemv layouts. Prints RESULT/KERNEL "
      "lines (median µs).");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--H=", 0) == 0) {
      o.H = parse_list(a.c_str() + 4);
    } else if (a.rfind("--what=", 0) == 0) {
      const std::string w = "," + a.substr(7) + ",";
      o.encode = w.find(",encode,") != std::string::npos;
      o.step = w.find(",step,") != std::string::npos;
      o.beam = w.find(",beam,") != std::string::npos;
      o.kernels = w.find(",kernels,") != std::string::npos;
      o.lab = w.find(",lab,") != std::string::npos;
      o.int8 = w.find(",int8,") != std::string::npos;
    } else if (a.rfind("--budget=", 0) == 0) {
      o.budget = std::atof(a.c_str() + 9);
    } else if (a.rfind("--min-reps=", 0) == 0) {
      o.min_reps = std::max(1, std::atoi(a.c_str() + 11));
    } else {
      usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  std::printf("# attnseq_bench build=%s arch=%s T=%d V=%d steps/rep=%d encodes/rep=%d restart=%d\n", build_label(),
              attnseq::simd::arch_name(), kT, kVocab, kStepsPerRep, kEncodesPerRep, kRestart);
  for (int H : o.H) {
    if (o.int8)
      bench_int8(o, H);
    else if (o.encode || o.step || o.beam)
      bench_model(o, H);
    if (o.kernels) bench_kernels(o, H);
    if (o.lab) bench_lab(o, H);
  }
  return 0;
}
