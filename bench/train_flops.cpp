// The training step's achieved matrix-product rate beside the kernels' own: times forward_backward
// (one thread, a kept workspace) on batches drawn from a TSV task for the G2P-size or dates
// configuration, counts the products' FLOPs as executed (train::matmul_flops), and times the two
// training kernels alone on the model's largest shapes. It measures; it never fails on time.
//   attnseq_train_flops --data FILE.tsv --src-tokenizer char --tgt-tokenizer word --hidden 256
//     --embedding 64 --bidirectional --bridge --input-feeding --score general [--batch 64] [--seconds 3]
//   attnseq_train_flops --task dates --hidden 64 --embedding 32
//   attnseq_train_flops --task dates --dump-tsv N FILE   (N examples of the task as TSV, then exit:
//     the same data for trainers that read files, such as the PyTorch twin)
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  std::string data, task_name, src_tok = "char", tgt_tok = "char", score = "dot";
  int hidden = 64, emb = 0, batch = 64;
  bool bidir = false, bridge = false, feed = false;
  double budget = 3;
  long dump_n = 0;
  std::string dump_file;
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
      budget = std::stod(next());
    else if (a == "--bidirectional")
      bidir = true;
    else if (a == "--bridge")
      bridge = true;
    else if (a == "--input-feeding")
      feed = true;
    else if (a == "--dump-tsv")
      dump_n = std::stol(next()), dump_file = next();
    else {
      std::fprintf(stderr, "unknown option %s (see the header of bench/train_flops.cpp)\n", a.c_str());
      return 2;
    }
  }
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
