// Trainer implementation: Adam over the flat parameter buffer, clipping, schedule, state I/O.
#include "train/trainer.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"
#include "model/safetensors.hpp"
#include "train/run_state.hpp"

namespace attnseq::train {

void initialize(Model& model, std::uint64_t seed) {
  Rng rng(seed);
  auto& p = model.params();
  for (std::size_t i = 0; i < p.specs.size(); ++i) {
    const auto& s = p.specs[i];
    float k;
    if (s.name.find("embedding") != std::string::npos)
      k = 0.5f;
    else if (s.shape.size() == 2)
      k = 1.f / std::sqrt(float(s.shape[1]));
    else
      k = 1.f / std::sqrt(float(model.config().dec_hidden));
    float* w = p.data.data() + p.offsets[i];
    for (std::int64_t j = 0; j < s.numel(); ++j) w[j] = (2.f * rng.uniform() - 1.f) * k;
  }
  model.prepare();
}

Trainer::Trainer(Model& model, Sampler sampler, TrainOptions options)
    : model_(model), sampler_(std::move(sampler)), opt_(options), rng_(options.seed) {
  if (opt_.batch_size < 1 || opt_.batch_size > 4096)
    throw std::invalid_argument("batch_size is " + std::to_string(opt_.batch_size) + "; it must be in [1, 4096]");
  if (!(opt_.lr > 0.f) || !std::isfinite(opt_.lr)) throw std::invalid_argument("lr must be a finite number > 0");
  if (opt_.steps < 1) throw std::invalid_argument("steps must be >= 1");
  if (opt_.warmup < 0) throw std::invalid_argument("warmup must be >= 0");
  if (!(opt_.clip >= 0.f)) throw std::invalid_argument("clip must be >= 0");
  check_threads(opt_.threads, "threads");
  check(ForwardOptions{opt_.dropout, opt_.label_smoothing, 0});
  if (!(opt_.distill_weight >= 0.f && opt_.distill_weight <= 1.f))
    throw std::invalid_argument("distill_weight is " + std::to_string(opt_.distill_weight) + "; it must be in [0, 1]");
  if ((opt_.distill_weight > 0.f) != !opt_.teachers.empty())
    throw std::invalid_argument(opt_.teachers.empty()
                                    ? "distill_weight > 0 needs teachers"
                                    : "teachers were given with distill_weight 0 (they would teach nothing)");
  check_teachers(model.config(), opt_.teachers, [](std::size_t i) { return "teacher " + std::to_string(i + 1); });
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  if (opt_.threads != 1)
    throw std::invalid_argument("threads must be 1 in WebAssembly (the module is single-threaded)");
#endif
  const std::size_t n = model.params().data.size();
  grad_.assign(n, 0.f);
  shard_grad_.assign(std::size_t(std::min(opt_.threads, opt_.batch_size) - 1), std::vector<float>(n, 0.f));
  m_.assign(n, 0.f);
  v_.assign(n, 0.f);
  workspace_.resize(shard_grad_.size() + 1);
  if (!opt_.teachers.empty()) {
    teacher_ws_.resize(workspace_.size());
    for (auto& w : teacher_ws_) w.resize(opt_.teachers.size());
    teacher_probs_.resize(workspace_.size());
    soft_.resize(workspace_.size());
  }
}

void check_teachers(const ModelConfig& student, const std::vector<std::shared_ptr<const Model>>& teachers,
                    const std::function<std::string(std::size_t)>& name) {
  for (std::size_t i = 0; i < teachers.size(); ++i) {
    if (!teachers[i]) throw std::invalid_argument(name(i) + " is missing");
    const Model& t = *teachers[i];
    const ModelConfig& c = t.config();
    if (t.uses_int8_weights())
      throw std::invalid_argument(name(i) + " holds int8 weights; training's forward reads f32: give its f32 file");
    auto same = [&](const char* side, int tv, int sv, const std::vector<std::string>& tt,
                    const std::vector<std::string>& st) {
      if (tv != sv)
        throw std::invalid_argument(name(i) + "'s " + side + " vocabulary has " + std::to_string(tv) +
                                    " tokens; the student's has " + std::to_string(sv));
      for (std::size_t k = 0; k < std::min(tt.size(), st.size()); ++k)
        if (tt[k] != st[k])
          throw std::invalid_argument(name(i) + "'s " + side + " token " + std::to_string(k) + " is '" + tt[k] +
                                      "'; the student's is '" + st[k] + "' (the vocabularies must be the same)");
      if (tt.size() != st.size())
        throw std::invalid_argument(name(i) + "'s " + side + " vocabulary is listed differently from the student's");
    };
    same("source", c.src_vocab, student.src_vocab, c.src_tokens, student.src_tokens);
    same("target", c.tgt_vocab, student.tgt_vocab, c.tgt_tokens, student.tgt_tokens);
    if (c.pad != student.pad || c.bos != student.bos || c.eos != student.eos)
      throw std::invalid_argument(name(i) + "'s special ids (pad, bos, eos) differ from the student's");
  }
}

// One shard's forward and backward; with teachers, their mean distribution first (the soft targets).
LossStats Trainer::shard_forward_backward(const Batch& batch, float* grad, std::size_t shard) {
  ForwardOptions fo = forward_options(shard);
  if (!opt_.teachers.empty()) {
    const std::size_t V = std::size_t(model_.config().tgt_vocab), n = std::size_t(batch.Tt) * batch.B * V;
    auto& soft = soft_[shard];
    auto& probs = teacher_probs_[shard];
    soft.assign(n, 0.f);
    probs.assign(n, 0.f);
    const float inv = 1.f / float(opt_.teachers.size());
    for (std::size_t t = 0; t < opt_.teachers.size(); ++t) {
      ForwardOptions tf;
      tf.probs_out = opt_.teachers.size() == 1 ? soft.data() : probs.data();
      forward_backward(*opt_.teachers[t], batch, nullptr, tf, &teacher_ws_[shard][t]);
      if (opt_.teachers.size() > 1)
        for (std::size_t i = 0; i < n; ++i) soft[i] += probs[i] * inv;
    }
    fo.soft_targets = soft.data();
    fo.soft_weight = opt_.distill_weight;
  }
  return forward_backward(model_, batch, grad, fo, &workspace_[shard]);
}

double Trainer::learning_rate(int s) const {
  if (opt_.warmup > 0 && s < opt_.warmup) return opt_.lr * double(s + 1) / opt_.warmup;
  const double span = std::max(1, opt_.steps - opt_.warmup);
  const double f = std::min(1.0, double(s - opt_.warmup) / span);
  return opt_.lr * (1.0 - f * (1.0 - opt_.final_lr));
}

void Trainer::set_lr_scale(double scale) {
  if (!(scale > 0.0) || !std::isfinite(scale)) throw std::invalid_argument("lr scale must be a finite number > 0");
  lr_scale_ = scale;
}

StepReport Trainer::step() {
  if (!sampler_) throw std::logic_error("Trainer::step(): this trainer has no sampler; pass the batch");
  const auto drawn_from = rng_.state;
  std::vector<std::vector<std::int32_t>> src, tgt;
  for (int i = 0; i < opt_.batch_size; ++i) {
    Pair p = sampler_(rng_);
    src.push_back(std::move(p.first));
    tgt.push_back(std::move(p.second));
  }
  try {
    return step(src, tgt);
  } catch (const NonFiniteStep&) {
    rng_.state = drawn_from;  // a refused step leaves no trace, the data order included
    throw;
  }
}

StepReport Trainer::step(const std::vector<std::vector<std::int32_t>>& src,
                         const std::vector<std::vector<std::int32_t>>& tgt) {
  if (src.empty() || src.size() != tgt.size() || src.size() > 4096)
    throw std::invalid_argument("Trainer::step: " + std::to_string(src.size()) + " sources and " +
                                std::to_string(tgt.size()) + " targets; a batch holds 1 to 4096 pairs");
  std::fill(grad_.begin(), grad_.end(), 0.f);
  // A batch smaller than the thread count has one shard per example.
  const std::size_t shards = std::min(shard_grad_.size() + 1, src.size());
  const LossStats st = shards == 1 ? shard_forward_backward(make_batch(src, tgt, model_.config()), grad_.data(), 0)
                                   : sharded_forward_backward(src, tgt, shards);
  // Eight running sums, element i into sum i mod 8, added in a fixed order at the end: the same bits
  // on every machine and thread count, and a loop the compiler vectorises (one running sum was a
  // chain of dependent adds, 20 M long at a translation model's size).
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const std::size_t n8 = grad_.size() / 8 * 8;
  for (std::size_t i = 0; i < n8; i += 8)
    for (std::size_t j = 0; j < 8; ++j) part[j] += double(grad_[i + j]) * grad_[i + j];
  for (std::size_t i = n8; i < grad_.size(); ++i) part[i - n8] += double(grad_[i]) * grad_[i];
  const double norm2 = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  const double norm = std::sqrt(norm2);
  // A diverged step would write NaN into every weight and moment: refused before anything changes.
  if (!std::isfinite(st.loss_sum) || !std::isfinite(norm)) {
    char b[96];
    std::snprintf(b, sizeof b, "%s is %g", std::isfinite(st.loss_sum) ? "the gradient norm" : "the loss",
                  std::isfinite(st.loss_sum) ? norm : st.loss_sum);
    throw NonFiniteStep("step " + std::to_string(step_ + 1) + ": " + b + "; the step was not applied");
  }
  const float scale = (opt_.clip > 0.f && norm > opt_.clip) ? float(opt_.clip / norm) : 1.f;
  const double lr = learning_rate(step_) * lr_scale_;
  ++step_;
  const float b1 = opt_.beta1, b2 = opt_.beta2;
  const float c1 = 1.f - std::pow(b1, float(step_)), c2 = 1.f - std::pow(b2, float(step_));
  const float step_size = float(lr) / c1;
  float* p = model_.params().data.data();
  for (std::size_t i = 0; i < grad_.size(); ++i) {
    const float g = grad_[i] * scale;
    m_[i] = b1 * m_[i] + (1.f - b1) * g;
    v_[i] = b2 * v_[i] + (1.f - b2) * g * g;
    p[i] -= step_size * m_[i] / (std::sqrt(v_[i] / c2) + opt_.eps);
  }
  StepReport r;
  r.step = step_;
  r.loss = st.loss_sum / st.tokens;
  r.token_accuracy = double(st.correct) / st.tokens;
  r.grad_norm = norm;
  r.lr = lr;
  r.tokens = st.tokens;
  return r;
}

// Shard k of S holds examples [k B / S, (k + 1) B / S), padded to its own lengths. Each shard's
// forward_backward gives the gradient of its own mean loss; the batch's is the token-weighted sum,
// taken in shard order so that a thread count always gives the same bits.
LossStats Trainer::sharded_forward_backward(const std::vector<std::vector<std::int32_t>>& src,
                                            const std::vector<std::vector<std::int32_t>>& tgt, std::size_t S) {
  const std::size_t B = src.size(), n = grad_.size();
  std::vector<Batch> shards(S);
  for (std::size_t k = 0; k < S; ++k) {
    const std::size_t lo = k * B / S, hi = (k + 1) * B / S;
    shards[k] = make_batch({src.begin() + lo, src.begin() + hi}, {tgt.begin() + lo, tgt.begin() + hi}, model_.config());
  }
  std::vector<LossStats> stats(S);
  run_on_threads(S, [&](std::size_t k) {
    float* g = k == 0 ? grad_.data() : shard_grad_[k - 1].data();
    if (k > 0) std::fill(g, g + n, 0.f);
    stats[k] = shard_forward_backward(shards[k], g, k);
  });
  LossStats total;
  for (const auto& st : stats) total.loss_sum += st.loss_sum, total.tokens += st.tokens, total.correct += st.correct;
  const float w0 = float(stats[0].tokens) / float(total.tokens);
  for (std::size_t i = 0; i < n; ++i) grad_[i] *= w0;
  for (std::size_t k = 1; k < S; ++k) {
    const float w = float(stats[k].tokens) / float(total.tokens);
    const float* g = shard_grad_[k - 1].data();
    for (std::size_t i = 0; i < n; ++i) grad_[i] += w * g[i];
  }
  return total;
}

// Dropout masks of this step's shard k: a seed mixed from the run's seed, the step and the shard.
ForwardOptions Trainer::forward_options(std::size_t shard) const {
  Rng mix(opt_.seed ^ (0x9E3779B97F4A7C15ull * (std::uint64_t(step_) + 1)) ^ (0xD1B54A32D192ED03ull * (shard + 1)));
  return {opt_.dropout, opt_.label_smoothing, mix.next()};
}

Trainer::StateParts Trainer::state_parts() const {
  // %.17g: the scale reads back as the same double.
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.17g", lr_scale_);
  return {m_, v_, {{"step", std::to_string(step_)}, {"rng", std::to_string(rng_.state)}, {"lr_scale", scale}}};
}

std::vector<std::uint8_t> Trainer::save_state() const {
  const std::int64_t n = std::int64_t(m_.size());
  const StateParts s = state_parts();
  return safetensors::write({{"adam.m", {n}, s.m.data()}, {"adam.v", {n}, s.v.data()}}, s.counters);
}

void Trainer::load_state(const std::uint8_t* bytes, std::size_t size) {
  const auto f = safetensors::parse(bytes, size);
  const auto* m = f.find("adam.m");
  const auto* v = f.find("adam.v");
  const auto* s = f.meta("step");
  const auto* r = f.meta("rng");
  if (!m || !v || !s || !r) throw BadCheckpoint("trainer state: missing adam.m, adam.v, step or rng");
  if (m->numel() != m_.size() || v->numel() != v_.size())
    throw BadCheckpoint("trainer state: moments hold " + std::to_string(m->numel()) + " values; the model has " +
                        std::to_string(m_.size()) + " parameters");
  std::vector<float> mm(m_.size()), vv(v_.size());
  safetensors::read_f32(f, *m, mm.data());
  safetensors::read_f32(f, *v, vv.data());
  check_finite(mm, "adam.m");
  check_finite(vv, "adam.v", true);
  // Every field is named with its value when it does not parse.
  const auto bad = [](const char* key, const std::string& value, const char* want) {
    return BadCheckpoint(std::string("trainer state: '") + key + "' is \"" + value + "\", not " + want);
  };
  char* end = nullptr;
  errno = 0;
  const long long st = std::strtoll(s->c_str(), &end, 10);
  if (s->empty() || *end || errno || st < 0 || st > 2147483647LL)
    throw bad("step", *s, "an integer in [0, 2147483647]");
  errno = 0;
  const unsigned long long rs = std::strtoull(r->c_str(), &end, 10);
  if (r->empty() || *end || errno || (*r)[0] == '-') throw bad("rng", *r, "an unsigned 64-bit integer");
  // A state from before the scale existed has none: 1.
  const auto* ls = f.meta("lr_scale");
  const double scale = ls ? std::strtod(ls->c_str(), &end) : 1.0;
  if (ls && (ls->empty() || *end || !(scale > 0.0) || !std::isfinite(scale)))
    throw bad("lr_scale", *ls, "a finite number > 0");
  m_ = std::move(mm);
  v_ = std::move(vv);
  step_ = int(st);
  rng_.state = rs;
  lr_scale_ = scale;
}

LossStats evaluate_loss(const Model& model, const std::vector<Pair>& pairs, int batch_size) {
  LossStats total;
  Workspace ws;
  for (std::size_t i = 0; i < pairs.size(); i += batch_size) {
    std::vector<std::vector<std::int32_t>> src, tgt;
    for (std::size_t j = i; j < std::min(pairs.size(), i + batch_size); ++j) {
      src.push_back(pairs[j].first);
      tgt.push_back(pairs[j].second);
    }
    const auto st = forward_backward(model, make_batch(src, tgt, model.config()), nullptr, {}, &ws);
    total.loss_sum += st.loss_sum;
    total.tokens += st.tokens;
    total.correct += st.correct;
  }
  return total;
}

}  // namespace attnseq::train
