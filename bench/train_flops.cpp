// The training step's achieved matrix-product rate beside the kernels' own: times forward_backward
// (one thread, a kept workspace) on batches drawn from a TSV task for the G2P-size or dates
// configuration, counts the products' FLOPs as executed (train::matmul_flops), and times the two
// training kernels alone on the model's largest shapes. It measures; it never fails on time.
//   attnseq_train_flops --data FILE.tsv --src-tokenizer char --tgt-tokenizer word --hidden 256
//     --embedding 64 --bidirectional --bridge --input-feeding --score general [--batch 64] [--seconds 3]
//   attnseq_train_flops --task dates --hidden 64 --embedding 32
//   attnseq_train_flops --task dates --dump-tsv N FILE   (N examples of the task as TSV, then exit:
//     the same data for trainers that read files, such as the PyTorch twin)
//   attnseq_train_flops --output-layer [--H 256,512] [--V 8000,10000] [--shapes step_B1,...] [--seconds 0.3]
//     the output layer's products alone at a real vocabulary (bench/output_layer.sh sets them beside
//     OpenBLAS's, bench/sgemm.py): see output_layer() below
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "model/model.hpp"
#include "nn/layers.hpp"
#include "train/backprop.hpp"
#include "train/evaluate.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"

using namespace attnseq;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Runs f until `budget` seconds have passed (after one warm-up call); returns seconds per call.
template <class F>
double time_per_call(F&& f, double budget) {
  f();
  const auto t0 = Clock::now();
  int n = 0;
  do {
    f();
    ++n;
  } while (seconds_since(t0) < budget);
  return seconds_since(t0) / n;
}

// ---- --output-layer: the output layer's products at a real vocabulary, one thread ----------------
// Each product as the engine calls it, at hidden size H and vocabulary V, named as bench/sgemm.py
// names the same product for numpy (M x K by K x N, 2 M N K FLOPs; int8 counts its multiply-adds alike):
//   step_B1, step_B4  Model::step's logits for 1 row, or 4 (a beam of 4 in one call): (B, H) by (H, V),
//                     kernels::gemm_packed over the (V, H) matrix packed as Model::prepare packs it, with
//                     its bias (an nn::Linear with a packed copy)
//   step_B1_int8, step_B4_int8  the same through the int8 copy (Model::quantize): nn::linear_q8, which
//                     quantises each row to int16 and then calls kernels::gemm_q8
//   train_fwd  forward_backward's logits for one chunk of 256 rows (src/train/backprop.cpp, kChunk):
//              (256, H) by (H, V), gemm_packed with the bias
//   train_dX   d features = d logits W: (256, V) by (V, H), gemm_packed over W^T packed (H, V)
//   train_dW   dW += d logits^T features: (V, 256) by (256, H), gemm_acc reading d logits transposed
// Not timed: what runs once per batch or per row around them (packing W^T, the softmax and loss).
constexpr std::size_t kTrainRows = 256;  // backprop.cpp's kChunk
const char* const kOutputShapes[] = {"step_B1",   "step_B4",  "step_B1_int8", "step_B4_int8",
                                     "train_fwd", "train_dX", "train_dW"};

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Timing {
  double us = 0, cpu_us = 0;  // per call: medians over repetitions, wall clock and this thread's CPU time
  int reps = 0, calls = 0;
};

// One call to warm up and to size a repetition (as many calls as take about 5 ms, at least one), then
// repetitions until `budget` seconds and at least 5; bench/sgemm.py times numpy the same way.
Timing time_median(const std::function<void()>& f, double budget) {
  const auto t = Clock::now();
  f();
  Timing r;
  r.calls = std::max(1, int(0.005 / std::max(seconds_since(t), 1e-9)));
  std::vector<double> wall, cpu;
  const auto t0 = Clock::now();
  while (wall.size() < 5 || seconds_since(t0) < budget) {
    const double c0 = thread_cpu_seconds();
    const auto w0 = Clock::now();
    for (int i = 0; i < r.calls; ++i) f();
    wall.push_back(seconds_since(w0) * 1e6 / r.calls);
    cpu.push_back((thread_cpu_seconds() - c0) * 1e6 / r.calls);
  }
  r.us = median(wall);
  r.cpu_us = median(cpu);
  r.reps = int(wall.size());
  return r;
}

std::vector<std::size_t> size_list(const std::string& s, const char* what) {
  std::vector<std::size_t> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    const long v = std::strtol(item.c_str(), nullptr, 10);
    if (v < 1) {
      std::fprintf(stderr, "%s: '%s' is not a positive whole number (in '%s')\n", what, item.c_str(), s.c_str());
      std::exit(2);
    }
    out.push_back(std::size_t(v));
  }
  return out;
}

int output_layer(const std::string& hs, const std::string& vs, const std::string& shape_list, double budget) {
  std::vector<std::string> shapes;
  std::stringstream ss(shape_list);
  for (std::string item; std::getline(ss, item, ',');) {
    if (std::find(std::begin(kOutputShapes), std::end(kOutputShapes), item) == std::end(kOutputShapes)) {
      std::string known;
      for (const char* k : kOutputShapes) known += std::string(known.empty() ? "" : ",") + k;
      std::fprintf(stderr, "--shapes: unknown shape '%s' (known: %s)\n", item.c_str(), known.c_str());
      return 2;
    }
    shapes.push_back(item);
  }
  std::uint64_t state = 20261203;  // splitmix64: uniform [-0.1, 0.1), the benchmarks' weight range
  auto fill = [&](float* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      p[i] = 0.2f * float((z ^ (z >> 31)) >> 40) / float(1 << 24) - 0.1f;
    }
  };
  for (const std::size_t H : size_list(hs, "--H")) {
    for (const std::size_t V : size_list(vs, "--V")) {
      // The weights (V, H) and bias as the model holds them, their packed and int8 copies as
      // Model::prepare / Model::quantize make them (64-byte aligned), and W^T packed as backprop.cpp
      // packs it for d features (a plain vector there).
      std::vector<float> W(V * H), b(V), Wt(H * V);
      fill(W.data(), W.size());
      fill(b.data(), b.size());
      std::vector<float, Align64<float>> P(kernels::packed_size(V, H));
      kernels::pack(W.data(), V, H, P.data());
      for (std::size_t v = 0; v < V; ++v)
        for (std::size_t h = 0; h < H; ++h) Wt[h * V + v] = W[v * H + h];
      std::vector<float> Pt(kernels::packed_size(H, V));
      kernels::pack(Wt.data(), H, V, Pt.data());
      std::vector<std::int8_t> rows(V * H);
      std::vector<float> wscale(V);
      q8_quantize_rows(W.data(), V, H, rows.data(), wscale.data());
      std::vector<std::int8_t, Align64<std::int8_t>> Q(q8_packed_size(V, H));
      q8_pack(rows.data(), V, H, Q.data());
      const nn::Q8Weights q8{Q.data(), wscale.data()};
      // Activations: up to 256 feature rows (H) and their logits (V); d logits for the backward products.
      std::vector<float> X(kTrainRows * H), Y(kTrainRows * V), dY(kTrainRows * V), dX(kTrainRows * H), dW(V * H);
      fill(X.data(), X.size());
      fill(dY.data(), dY.size());
      fill(dW.data(), dW.size());
      for (const std::string& name : shapes) {
        std::size_t M = 0, K = 0, N = 0;
        const char *kernel = "gemm_packed", *arch = simd::arch_name();
        std::function<void()> f;
        if (name.rfind("step_B", 0) == 0) {
          const std::size_t B = name[6] == '1' ? 1 : 4;
          M = B, K = H, N = V;
          if (name.size() > 7) {  // _int8
            kernel = "linear_q8", arch = simd::q8_arch_name();
            f = [&, B] { nn::linear_q8(X.data(), H, q8, b.data(), Y.data(), V, B, V, H); };
          } else {
            f = [&, B] { kernels::gemm_packed(X.data(), H, P.data(), b.data(), Y.data(), V, B, V, H); };
          }
        } else if (name == "train_fwd") {
          M = kTrainRows, K = H, N = V;
          f = [&] { kernels::gemm_packed(X.data(), H, P.data(), b.data(), Y.data(), V, kTrainRows, V, H); };
        } else if (name == "train_dX") {
          M = kTrainRows, K = V, N = H;
          f = [&] { kernels::gemm_packed(dY.data(), V, Pt.data(), nullptr, dX.data(), H, kTrainRows, H, V); };
        } else {  // train_dW
          M = V, K = kTrainRows, N = H;
          kernel = "gemm_acc";
          f = [&] { kernels::gemm_acc(dY.data(), 1, V, X.data(), H, dW.data(), H, V, H, kTrainRows); };
        }
        const Timing t = time_median(f, budget);
        const double flop = 2.0 * double(M) * double(N) * double(K);
        std::printf(
            "RESULT what=output_layer engine=attnseq kernel=%s arch=%s shape=%s H=%zu V=%zu M=%zu K=%zu N=%zu "
            "us=%.2f cpu_us=%.2f gflops=%.2f cpu_gflops=%.2f reps=%d calls=%d\n",
            kernel, arch, name.c_str(), H, V, M, K, N, t.us, t.cpu_us, flop / (t.us * 1e3), flop / (t.cpu_us * 1e3),
            t.reps, t.calls);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data, task_name, src_tok = "char", tgt_tok = "char", score = "dot";
  int hidden = 64, emb = 0, batch = 64;
  bool bidir = false, bridge = false, feed = false;
  double budget = 3;  // seconds per measurement (--output-layer: per shape, 0.3 unless given)
  bool budget_set = false;
  long dump_n = 0;
  std::string dump_file;
  bool output_layer_mode = false;
  std::string out_hs = "256,512", out_vs = "8000,10000", out_shapes;
  for (const char* k : kOutputShapes) out_shapes += std::string(out_shapes.empty() ? "" : ",") + k;
  double out_budget = 0.3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--data")
      data = next();
    else if (a == "--task")
      task_name = next();
    else if (a == "--src-tokenizer")
      src_tok = next();
    else if (a == "--tgt-tokenizer")
      tgt_tok = next();
    else if (a == "--score")
      score = next();
    else if (a == "--hidden")
      hidden = std::stoi(next());
    else if (a == "--embedding")
      emb = std::stoi(next());
    else if (a == "--batch")
      batch = std::stoi(next());
    else if (a == "--seconds")
      budget = std::stod(next()), budget_set = true;
    else if (a == "--bidirectional")
      bidir = true;
    else if (a == "--bridge")
      bridge = true;
    else if (a == "--input-feeding")
      feed = true;
    else if (a == "--dump-tsv")
      dump_n = std::stol(next()), dump_file = next();
    else if (a == "--output-layer")
      output_layer_mode = true;
    else if (a == "--H")
      out_hs = next();
    else if (a == "--V")
      out_vs = next();
    else if (a == "--shapes")
      out_shapes = next();
    else {
      std::fprintf(stderr, "unknown option %s (see the header of bench/train_flops.cpp)\n", a.c_str());
      return 2;
    }
  }
  if (output_layer_mode) return output_layer(out_hs, out_vs, out_shapes, budget_set ? budget : out_budget);
  std::unique_ptr<train::Task> task;
  if (!data.empty()) {
    std::ifstream in(data, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot open %s\n", data.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    auto kind = [](const std::string& k) { return k == "word" ? TokenizerKind::Word : TokenizerKind::Char; };
    task = train::make_tsv_task(ss.str(), kind(src_tok), kind(tgt_tok));
  } else {
    task = train::make_task(task_name.empty() ? "dates" : task_name);
  }
  if (dump_n > 0) {
    std::ofstream out(dump_file, std::ios::binary);
    Rng r(20261201);
    const char* sep_src = task->src_tokenizer() == TokenizerKind::Word ? " " : "";
    const char* sep_tgt = task->tgt_tokenizer() == TokenizerKind::Word ? " " : "";
    for (long i = 0; i < dump_n; ++i) {
      const auto ex = task->sample(r);
      for (std::size_t k = 0; k < ex.src.size(); ++k) out << (k ? sep_src : "") << ex.src[k];
      out << '\t';
      for (std::size_t k = 0; k < ex.tgt.size(); ++k) out << (k ? sep_tgt : "") << ex.tgt[k];
      out << '\n';
    }
    return out ? 0 : 1;
  }
  ModelConfig c;
  c.style = Style::Luong;
  c.score = score == "general" ? Score::General : score == "additive" ? Score::Additive : Score::Dot;
  c.bidirectional = bidir;
  c.bridge = bridge;
  c.input_feeding = feed;
  c.enc_hidden = bidir ? (bridge ? hidden : hidden / 2) : hidden;
  c.dec_hidden = hidden;
  c.src_emb = c.tgt_emb = emb ? emb : hidden;
  c.attn_dim = hidden;
  c.src_tokens = task->src_vocab();
  c.tgt_tokens = task->tgt_vocab();
  c.src_vocab = int(c.src_tokens.size());
  c.tgt_vocab = int(c.tgt_tokens.size());
  c.src_tokenizer = task->src_tokenizer();
  c.tgt_tokenizer = task->tgt_tokenizer();
  Model model(c);
  train::initialize(model, 1);

  // Batches as the trainer draws them (uniformly from the data, padded to the longest).
  Rng rng(7);
  std::vector<train::Batch> batches;
  for (int k = 0; k < 16; ++k) {
    std::vector<std::vector<std::int32_t>> src, tgt;
    for (int i = 0; i < batch; ++i) {
      const auto ex = task->sample(rng);
      src.push_back(train::to_ids(ex.src, c.src_tokens, c.unk));
      tgt.push_back(train::to_ids(ex.tgt, c.tgt_tokens, c.unk));
    }
    batches.push_back(train::make_batch(src, tgt, c));
  }
  double flops = 0, tokens = 0;
  for (const auto& b : batches) flops += train::matmul_flops(c, b), tokens += b.tokens;
  std::vector<float> grad(model.params().data.size());
  train::Workspace ws;
  std::size_t next = 0;
  const double per_batch = time_per_call(
      [&] { train::forward_backward(model, batches[next++ % batches.size()], grad.data(), {}, &ws); }, budget);
  // time_per_call ran whole rounds over the same batches, so the mean FLOPs per batch apply.
  const double gflops = flops / batches.size() / per_batch / 1e9;
  std::printf(
      "RESULT what=train_step arch=%s params=%zu batch=%d fwd_bwd_ms=%.2f target_tok_s=%.0f gflop_per_batch=%.3f "
      "gflops=%.1f\n",
      simd::arch_name(), model.params().data.size(), batch, per_batch * 1e3, tokens / batches.size() / per_batch,
      flops / batches.size() / 1e9, gflops);

  // The two kernels alone on the decoder's recurrent shape: (B x H) by (H x 3H), and its backward.
  const std::size_t M = std::size_t(c.gates()) * c.dec_hidden, N = c.dec_hidden, B = batch;
  std::vector<float> W(M * N, 0.01f), X(B * N, 0.02f), Y(B * M), P(kernels::packed_size(M, N)), dW(M * N), dX(B * N);
  kernels::pack(W.data(), M, N, P.data());
  const double fwd =
      time_per_call([&] { kernels::gemm_packed(X.data(), N, P.data(), nullptr, Y.data(), M, B, M, N); }, 0.5);
  const double bwd_w =
      time_per_call([&] { kernels::gemm_acc(Y.data(), 1, M, X.data(), N, dW.data(), N, M, N, B); }, 0.5);
  const double bwd_x =
      time_per_call([&] { kernels::gemm_acc(Y.data(), M, 1, W.data(), N, dX.data(), N, B, N, M); }, 0.5);
  const double f = 2.0 * B * M * N / 1e9;
  std::printf(
      "RESULT what=kernels shape=%zux%zu_by_%zux%zu gemm_packed_gflops=%.1f gemm_acc_dW_gflops=%.1f "
      "gemm_acc_dX_gflops=%.1f\n",
      B, N, N, M, f / fwd, f / bwd_w, f / bwd_x);
  return 0;
}
