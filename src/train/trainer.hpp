// The trainer: mini-batches drawn from a seeded sampler, Adam with bias correction, global
// gradient-norm clipping, linear warm-up then linear decay of the learning rate, deterministic for a
// seed. The same code runs natively and in WebAssembly (exposed through Embind for the web page).
// Optimiser state saves to bytes so training resumes exactly. With threads > 1 a batch is cut into
// that many contiguous shards whose gradients are summed in shard order, weighted by their tokens.
// Batches come from the sampler (step()) or from the caller (step(src, tgt): the epoch trainer of
// train/epochs.hpp), through the same optimiser code.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "model/model.hpp"
#include "train/backprop.hpp"

namespace attnseq::train {

struct TrainOptions {
  int batch_size = 32;          // examples per step
  float lr = 3e-3f;             // peak Adam learning rate
  int warmup = 100;             // steps of linear warm-up from 0
  int steps = 3000;             // planned steps: after warm-up the rate decays linearly to lr * final_lr
  float final_lr = 0.1f;        // fraction of lr reached at `steps`
  float clip = 1.0f;            // global gradient-norm clip (0: none)
  float beta1 = 0.9f;           // Adam first-moment decay
  float beta2 = 0.999f;         // Adam second-moment decay
  float eps = 1e-8f;            // Adam epsilon
  std::uint64_t seed = 1;       // data order and initialisation
  float dropout = 0.f;          // see ForwardOptions (train/backprop.hpp); masks differ per step and shard
  float label_smoothing = 0.f;  // see ForwardOptions
  int threads = 1;              // threads sharing a step's batch (native only; wasm is single-threaded).
                                // Results are deterministic for a seed and a thread count.
  // Token-level distillation: the teachers' mean next-token distribution, teacher-forced on each
  // batch (no dropout), is a soft target mixed in by distill_weight (ForwardOptions::soft_weight).
  // Teachers hold f32 weights and the student's vocabularies; any architecture and size.
  std::vector<std::shared_ptr<const Model>> teachers;
  float distill_weight = 0.f;  // in [0, 1]; > 0 needs teachers, and teachers need it > 0
};

// Throws std::invalid_argument when a teacher cannot teach this student: int8 weights (training's
// forward reads f32), or other vocabularies, token by token; `name(i)` names teacher i in the message.
void check_teachers(const ModelConfig& student, const std::vector<std::shared_ptr<const Model>>& teachers,
                    const std::function<std::string(std::size_t)>& name);

// One training pair of ids (no BOS/EOS).
using Pair = std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>>;
using Sampler = std::function<Pair(Rng&)>;

struct StepReport {
  int step = 0;     // steps done so far
  double loss = 0;  // mean cross-entropy per target token of this batch
  double token_accuracy = 0;
  double grad_norm = 0;  // before clipping
  double lr = 0;
  int tokens = 0;  // target tokens in this batch
};

// A step whose loss or gradient is not finite (the run diverged, or its weights were corrupt): thrown
// before the step changes anything, naming the step.
struct NonFiniteStep : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// PyTorch-like initialisation: weights U(±1/sqrt(fan_in)), embeddings U(±0.5), from the seed.
void initialize(Model& model, std::uint64_t seed);

class Trainer {
 public:
  // An empty sampler is allowed when every batch comes through step(src, tgt).
  Trainer(Model& model, Sampler sampler, TrainOptions options);
  // One step on options().batch_size pairs drawn from the sampler. Throws NonFiniteStep (and changes
  // nothing) when the batch's loss or gradient is not finite.
  StepReport step();
  // One step on the caller's batch (1 to 4096 pairs of the same count; no BOS/EOS).
  StepReport step(const std::vector<std::vector<std::int32_t>>& src, const std::vector<std::vector<std::int32_t>>& tgt);
  int steps_done() const { return step_; }
  const TrainOptions& options() const { return opt_; }
  // Optimiser state (moments, step, data rng, rate scale) as a safetensors blob, and back.
  std::vector<std::uint8_t> save_state() const;
  // The same state for a caller that stores it beside other tensors: Adam's moments (adam.m, adam.v,
  // params-sized) and the counters as save_state()'s metadata (step, rng, lr_scale).
  struct StateParts {
    const std::vector<float>& m;
    const std::vector<float>& v;
    std::vector<std::pair<std::string, std::string>> counters;
  };
  StateParts state_parts() const;
  void load_state(const std::uint8_t* bytes, std::size_t size);
  // The schedule's rate at a step (warm-up, then linear decay), before lr_scale().
  double learning_rate(int step) const;
  // A factor on the schedule's rate, e.g. halved by the epoch trainer when the dev figure stops
  // improving; saved with the state. Must be finite and > 0.
  void set_lr_scale(double scale);
  double lr_scale() const { return lr_scale_; }

 private:
  LossStats sharded_forward_backward(const std::vector<std::vector<std::int32_t>>& src,
                                     const std::vector<std::vector<std::int32_t>>& tgt, std::size_t shards);
  ForwardOptions forward_options(std::size_t shard) const;
  Model& model_;
  Sampler sampler_;
  TrainOptions opt_;
  Rng rng_;
  int step_ = 0;
  double lr_scale_ = 1.0;
  std::vector<float> grad_, m_, v_;
  std::vector<std::vector<float>> shard_grad_;  // per extra thread: its shard's gradient
  std::vector<Workspace> workspace_;            // per shard: forward_backward's buffers, kept between steps
  // Distillation, per shard: each teacher's workspace, one teacher's distributions and their mean.
  std::vector<std::vector<Workspace>> teacher_ws_;
  std::vector<std::vector<float>> teacher_probs_, soft_;
  LossStats shard_forward_backward(const Batch& batch, float* grad, std::size_t shard);
};

// Teacher-forced loss and token accuracy over pairs (no gradient).
LossStats evaluate_loss(const Model& model, const std::vector<Pair>& pairs, int batch_size = 64);

}  // namespace attnseq::train
