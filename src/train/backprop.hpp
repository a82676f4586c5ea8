// Training forward and backward for a padded mini-batch with teacher forcing. The forward pass is
// inference's own (model/forward.hpp) on the plain weights, with a tape that keeps every activation;
// then back-propagation through time into a gradient buffer laid out like Params::data. Sources run
// longest first and targets longest first, so a row whose sequence has ended is dropped from the
// steps that follow (no work on padding). Loss: cross-entropy over the real target tokens (EOS
// included), mean per token.
// Legend: B batch, Ts source steps, Tt target steps, E, He, Ho, Hd, G, A, V as in nn/layers.hpp.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "model/model.hpp"

namespace attnseq::train {

struct Batch {
  int B = 0, Ts = 0, Tt = 0;
  std::vector<std::int32_t> src;      // (Ts, B) time-major, padded with pad
  std::vector<int> src_len;           // (B)
  std::vector<std::int32_t> tgt_in;   // (Tt, B): BOS y_1 .. y_n, padded with pad
  std::vector<std::int32_t> tgt_out;  // (Tt, B): y_1 .. y_n EOS, padded with -1 (ignored)
  int tokens = 0;                     // real target tokens (loss denominator)
};

// Sequences of ids (no BOS/EOS); every id must be in range, every sequence non-empty.
Batch make_batch(const std::vector<std::vector<std::int32_t>>& src, const std::vector<std::vector<std::int32_t>>& tgt,
                 const ModelConfig& c);

struct LossStats {
  double loss_sum = 0;  // sum over tokens of -log p(y)
  double objective_sum =
      0;            // sum over tokens of the trained objective (= loss_sum without label smoothing or soft targets)
  int tokens = 0;   // real target tokens
  int correct = 0;  // tokens whose argmax equals the reference
};

// Regularisation during training; the defaults are the plain model (inference semantics).
//  - dropout p: inverted dropout (kept values scaled by 1 / (1 - p)) on the source embeddings, the
//    target embeddings, the inputs of every stacked RNN layer above the first (encoder and decoder,
//    as PyTorch's nn.GRU(dropout=p)), and the decoder's output features (h~, or the top state without
//    attention) before the output layer; with input feeding the dropped h~ is what is fed, as in
//    OpenNMT-py. Masks come from `seed`, so a seed gives the same masks.
//  - label_smoothing e: the objective is (1 - e) (-log p_y) + e * mean over the vocabulary of -log p_v.
//  - soft targets q with weight a (token-level knowledge distillation, Kim & Rush 2016; Sun et al.
//    2019 with teachers' mean distributions): the objective is (1 - a) times the above plus
//    a * (-sum_v q_v log p_v), the cross-entropy against q. q holds V probabilities per target token:
//    the token at target position k (0 .. its length, EOS included) of example b is row k B + b of a
//    (Tt B, V) buffer; padded rows are not read.
//  - probs_out: the same (Tt B, V) layout, written with the model's softmax at every real target token
//    (a teacher's distributions, with no gradient and no dropout); padded rows are left as they are.
struct ForwardOptions {
  float dropout = 0.f;                  // in [0, 1)
  float label_smoothing = 0.f;          // in [0, 1)
  std::uint64_t seed = 0;               // dropout masks
  const float* soft_targets = nullptr;  // (Tt B, V) distributions, needed when soft_weight > 0
  float soft_weight = 0.f;              // in [0, 1]
  float* probs_out = nullptr;           // (Tt B, V), or nullptr
};
// Throws std::invalid_argument naming the field when a value is out of range (or soft_weight > 0
// without soft_targets).
void check(const ForwardOptions& o);

// Floating-point operations of the matrix products forward_backward runs on a batch: forward, and
// with `backward` also the two backward products of each (about twice the forward). Counted as
// executed, 2 per multiply-add: the input projections over every padded source position, the
// encoder's recurrence over each source's own positions, the decoder over each example's own target
// tokens (a finished row is dropped), attention over the padded source length. Elementwise work is
// not counted. The benchmark divides it by the time to report the achieved GFLOP/s.
double matmul_flops(const ModelConfig& c, const Batch& batch, bool backward = true);

// Every buffer forward_backward uses (activations kept for backward, gradients in flight, packed
// copies of the weights, the parameters' addresses), kept from call to call: once a workspace has
// seen the largest batch shape, a call with it allocates nothing. One workspace per concurrent call.
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Runs the batch; if grad is not null (params-sized), adds d(mean objective)/d(params) into it.
// Without a workspace the call makes (and frees) its own.
LossStats forward_backward(const Model& model, const Batch& batch, float* grad, const ForwardOptions& options = {},
                           Workspace* workspace = nullptr);

}  // namespace attnseq::train
