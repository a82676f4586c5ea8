// The epoch trainer (src/train/epochs.hpp): the data order, the end-of-epoch decisions and the state
// blob. Every decision depends only on the saved state, so a run continued from a blob repeats the
// uninterrupted run's steps exactly (same thread count assumed: it decides the float sums).
#include "train/epochs.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "model/safetensors.hpp"
#include "train/tasks.hpp"

namespace attnseq::train {
namespace {

// splitmix64's finaliser: mixes a seed and an epoch into unrelated generator seeds.
std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a + 0x9E3779B97F4A7C15ull * (b + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[uniform_index(rng, i)]);
}

std::string join_counts(const DevCounts& c) {
  std::string s;
  for (std::size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s;
}

std::string num(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

}  // namespace

std::vector<std::vector<std::size_t>> epoch_batches(const std::vector<Pair>& pairs, int batch_size, int bucket,
                                                    std::uint64_t seed, int epoch) {
  if (batch_size < 1) throw std::invalid_argument("epoch_batches: batch_size must be >= 1");
  if (bucket < 1) throw std::invalid_argument("epoch_batches: bucket must be >= 1");
  Rng rng(mix(seed, std::uint64_t(epoch)));
  std::vector<std::size_t> perm(pairs.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  shuffle(perm, rng);
  const std::size_t B = std::size_t(batch_size), chunk = B * std::size_t(bucket);
  std::vector<std::vector<std::size_t>> batches;
  for (std::size_t lo = 0; lo < perm.size(); lo += chunk) {
    const auto first = perm.begin() + std::ptrdiff_t(lo);
    const auto last = perm.begin() + std::ptrdiff_t(std::min(perm.size(), lo + chunk));
    if (bucket > 1)
      std::stable_sort(first, last, [&](std::size_t a, std::size_t b) {
        const auto& x = pairs[a];
        const auto& y = pairs[b];
        return x.first.size() != y.first.size() ? x.first.size() < y.first.size() : x.second.size() < y.second.size();
      });
    for (auto it = first; it < last; it += std::ptrdiff_t(std::min<std::size_t>(B, std::size_t(last - it))))
      batches.emplace_back(it, it + std::ptrdiff_t(std::min<std::size_t>(B, std::size_t(last - it))));
  }
  shuffle(batches, rng);
  return batches;
}

namespace {

TrainOptions epoch_train_options(TrainOptions o, const EpochOptions& e, std::size_t pairs) {
  if (pairs == 0) throw std::invalid_argument("epoch trainer: no training pairs");
  if (e.epochs < 1) throw std::invalid_argument("epochs must be >= 1");
  if (e.patience < 0) throw std::invalid_argument("patience must be >= 0");
  if (!(e.lr_decay > 0.0 && e.lr_decay <= 1.0)) throw std::invalid_argument("lr_decay must be in (0, 1]");
  if (e.bucket < 1) throw std::invalid_argument("bucket must be >= 1");
  if (e.eval_beam < 1 || e.eval_beam > kMaxBeam)
    throw std::invalid_argument("eval beam must be in [1, " + std::to_string(kMaxBeam) + "]");
  check_threads(e.eval_threads, "eval threads");
  // Warm-up, then the peak rate for good: the epoch trainer scales it down on a plateau.
  const long long per_epoch = (static_cast<long long>(pairs) + o.batch_size - 1) / std::max(1, o.batch_size);
  o.steps = int(std::min<long long>(INT_MAX, std::max<long long>(1, per_epoch * e.epochs)));
  o.final_lr = 1.0f;
  return o;
}

}  // namespace

EpochTrainer::EpochTrainer(Model& model, std::vector<Pair> train, std::shared_ptr<const DevEvaluator> dev,
                           TrainOptions options, EpochOptions epochs)
    : model_(model),
      train_(std::move(train)),
      dev_(std::move(dev)),
      to_(epoch_train_options(options, epochs, train_.size())),
      eo_(epochs),
      trainer_(model, Sampler{}, to_) {
  if (!dev_ || dev_->size() == 0)
    throw std::invalid_argument("epoch trainer: no development items (the dev set chooses the best epoch)");
  Fnv f;  // the data as given (a resampler changes the pairs an epoch trains on, not this)
  f.add(train_.size());
  for (const auto& p : train_) f.add(p.first), f.add(p.second);
  f.add(dev_->size());
  f.add(dev_->fingerprint());
  data_fingerprint_ = f.h;
  start_epoch();
}

void EpochTrainer::set_resampler(std::function<std::vector<Pair>(int)> resample) {
  if (batch_ != 0) throw std::logic_error("EpochTrainer::set_resampler: set it before the epoch's first step");
  resample_ = std::move(resample);
  start_epoch();
}

EpochTrainer::EpochTrainer(Model& model, std::vector<Pair> train, std::vector<RefItem> dev, TrainOptions options,
                           EpochOptions epochs)
    : EpochTrainer(model, std::move(train), wer_dev(std::move(dev)), options, epochs) {}

// The resampler's pairs for an epoch (set_resampler), checked.
std::vector<Pair> EpochTrainer::resampled(int epoch) const {
  auto p = resample_(epoch);
  if (p.size() != train_.size()) throw std::logic_error("EpochTrainer: the resampler changed the number of pairs");
  return p;
}

void EpochTrainer::start_epoch() {
  if (resample_) train_ = resampled(epoch_);
  order_ = epoch_batches(train_, to_.batch_size, eo_.bucket, to_.seed, epoch_);
}

EpochTrainer::Outcome EpochTrainer::advance() {
  if (finished()) throw std::logic_error("EpochTrainer::advance: the run is over");
  std::vector<Ids> src, tgt;
  for (std::size_t i : order_[std::size_t(batch_)]) {
    src.push_back(train_[i].first);
    tgt.push_back(train_[i].second);
  }
  Outcome out;
  out.step = trainer_.step(src, tgt);
  loss_sum_ += out.step.loss * out.step.tokens;
  tokens_ += out.step.tokens;
  if (++batch_ < int(order_.size())) return out;
  out.ended = true;
  out.epoch = end_epoch(loss_sum_, tokens_);
  return out;
}

EpochResult EpochTrainer::end_epoch(double loss_sum, long tokens) {
  EpochResult r;
  r.epoch = epoch_ + 1;
  r.train_loss = tokens ? loss_sum / double(tokens) : 0.0;
  model_.prepare();  // the inference tables follow the trained weights
  r.dev = dev_->evaluate(model_, eo_.eval_beam, eo_.eval_threads);
  r.improved = best_epoch_ == 0 || dev_->better(r.dev, best_dev_);
  if (r.improved) {
    best_epoch_ = r.epoch;
    best_dev_ = r.dev;
    best_params_ = model_.params().data;
    bad_epochs_ = 0;
  } else {
    ++bad_epochs_;
    trainer_.set_lr_scale(trainer_.lr_scale() * eo_.lr_decay);
    if (eo_.patience > 0 && bad_epochs_ >= eo_.patience) stopped_ = true;
  }
  r.lr_scale = trainer_.lr_scale();
  ++epoch_;
  batch_ = 0;
  loss_sum_ = 0;
  tokens_ = 0;
  r.stop = finished();
  if (!r.stop) start_epoch();
  return r;
}

std::vector<std::uint8_t> EpochTrainer::save_state() const {
  // The Trainer's moments and counters, carried over unchanged, beside the weights.
  const Trainer::StateParts tp = trainer_.state_parts();
  const auto N = std::int64_t(model_.params().data.size());
  std::vector<safetensors::TensorOut> tensors = {
      {"params", {N}, model_.params().data.data()}, {"adam.m", {N}, tp.m.data()}, {"adam.v", {N}, tp.v.data()}};
  if (!best_params_.empty()) tensors.push_back({"best_params", {N}, best_params_.data()});
  std::vector<std::pair<std::string, std::string>> meta = {{"format", "attnseq epoch trainer 2"}};
  meta.insert(meta.end(), tp.counters.begin(), tp.counters.end());  // step, rng, lr_scale
  meta.insert(meta.end(), {
                              {"epoch", std::to_string(epoch_)},
                              {"batch", std::to_string(batch_)},
                              {"epoch_loss_sum", num(loss_sum_)},
                              {"epoch_tokens", std::to_string(tokens_)},
                              {"best_epoch", std::to_string(best_epoch_)},
                              {"best_dev", join_counts(best_dev_)},
                              {"bad_epochs", std::to_string(bad_epochs_)},
                              {"stopped", stopped_ ? "1" : "0"},
                              // What fixes the data order and the data: a state only continues the run it came from.
                              {"seed", std::to_string(to_.seed)},
                              {"batch_size", std::to_string(to_.batch_size)},
                              {"bucket", std::to_string(eo_.bucket)},
                              {"train_pairs", std::to_string(train_.size())},
                              {"dev_words", std::to_string(dev_->size())},
                              {"data_hash", std::to_string(data_fingerprint_)},
                          });
  add_record(meta, record_);
  return safetensors::write(tensors, meta);
}

void EpochTrainer::load_state(const std::uint8_t* bytes, std::size_t size) {
  const auto f = safetensors::parse(bytes, size);
  const auto need = [&](const char* key) -> const std::string& {
    const auto* s = f.meta(key);
    if (!s)
      throw std::invalid_argument(std::string("epoch trainer state: no '") + key +
                                  "' (not a state saved by an epoch run)");
    return *s;
  };
  if (need("format") != "attnseq epoch trainer 2")
    throw std::invalid_argument("epoch trainer state: format '" + need("format") +
                                "' is not 'attnseq epoch trainer 2'" +
                                (need("format") == "attnseq epoch trainer 1"
                                     ? " (a state of an older attnseq, which kept WER counts only: start the run again)"
                                     : ""));
  const auto integer = [&](const char* key, long long lo, long long hi) {
    const std::string& s = need(key);
    char* end = nullptr;
    const long long x = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end || x < lo || x > hi)
      throw std::invalid_argument(std::string("epoch trainer state: '") + key + "' is \"" + s + "\"");
    return x;
  };
  const auto same = [&](const char* key, const std::string& what, const std::string& mine) {
    if (need(key) != mine)
      throw std::invalid_argument("the saved run has " + what + " " + need(key) + ", this one " + mine +
                                  ": a run continues only with the data, seed, batch and bucketing it started with");
  };
  if (!record_.empty()) check_record(f, record_);
  same("seed", "seed", std::to_string(to_.seed));
  same("batch_size", "batch size", std::to_string(to_.batch_size));
  same("bucket", "bucket", std::to_string(eo_.bucket));
  same("train_pairs", "training pairs:", std::to_string(train_.size()));
  same("dev_words", "development items:", std::to_string(dev_->size()));
  same("data_hash", "data fingerprint", std::to_string(data_fingerprint_));
  const std::size_t n = model_.params().data.size();
  const auto tensor = [&](const char* name, bool required) {
    const auto* t = f.find(name);
    if (!t) {
      if (required) throw std::invalid_argument(std::string("epoch trainer state: no tensor '") + name + "'");
      return std::vector<float>();
    }
    if (t->numel() != n)
      throw std::invalid_argument(std::string("epoch trainer state: '") + name + "' holds " +
                                  std::to_string(t->numel()) + " values; the model has " + std::to_string(n) +
                                  " parameters");
    std::vector<float> out(n);
    safetensors::read_f32(f, *t, out.data());
    check_finite(out, name);
    return out;
  };
  auto params = tensor("params", true), m = tensor("adam.m", true), v = tensor("adam.v", true);
  auto best = tensor("best_params", false);
  const int epoch = int(integer("epoch", 0, INT_MAX));
  const int batch = int(integer("batch", 0, INT_MAX));
  const long long best_epoch = integer("best_epoch", 0, INT_MAX);
  if (best_epoch > 0 && best.empty())
    throw std::invalid_argument("epoch trainer state: a best epoch but no best_params");
  DevCounts best_dev;
  if (best_epoch > 0) {
    const auto bad_counts = [&] {
      return std::invalid_argument("epoch trainer state: 'best_dev' is \"" + need("best_dev") + "\", not " +
                                   std::to_string(dev_->counts_size()) + " counts >= 0 of this run's dev figure");
    };
    const std::string& text = need("best_dev");
    std::size_t at = 0;
    while (at <= text.size()) {
      const std::size_t comma = std::min(text.find(',', at), text.size());
      const std::string item = text.substr(at, comma - at);
      char* e = nullptr;
      const long long x = std::strtoll(item.c_str(), &e, 10);
      if (item.empty() || *e || x < 0 || item[0] == '+' || item[0] == ' ') throw bad_counts();
      best_dev.push_back(x);
      at = comma + 1;
    }
    if (best_dev.size() != dev_->counts_size()) throw bad_counts();
    try {
      (void)dev_->better(best_dev, best_dev);  // the evaluator's own checks of its counts
    } catch (const std::invalid_argument&) {
      throw bad_counts();
    }
  }
  const int bad = int(integer("bad_epochs", 0, INT_MAX));
  const bool stopped = integer("stopped", 0, 1) == 1;
  const long tokens = long(integer("epoch_tokens", 0, LONG_MAX));
  char* end = nullptr;
  const double loss_sum = std::strtod(need("epoch_loss_sum").c_str(), &end);
  if (need("epoch_loss_sum").empty() || *end || !std::isfinite(loss_sum) || loss_sum < 0)
    throw std::invalid_argument("epoch trainer state: 'epoch_loss_sum' is \"" + need("epoch_loss_sum") +
                                "\", not a finite number >= 0");
  // The Trainer's part goes back through its own loader (which validates it).
  const auto N = std::int64_t(n);
  const auto tb = safetensors::write({{"adam.m", {N}, m.data()}, {"adam.v", {N}, v.data()}},
                                     {{"step", need("step")}, {"rng", need("rng")}, {"lr_scale", need("lr_scale")}});
  auto pairs = resample_ ? resampled(int(epoch)) : std::vector<Pair>{};
  const auto order = epoch_batches(resample_ ? pairs : train_, to_.batch_size, eo_.bucket, to_.seed, epoch);
  if (batch >= int(order.size()))
    throw std::invalid_argument("epoch trainer state: batch " + std::to_string(batch) + " of an epoch of " +
                                std::to_string(order.size()));
  trainer_.load_state(tb.data(), tb.size());  // the last check; nothing below can throw
  model_.params().data = std::move(params);
  model_.prepare();
  if (resample_) train_ = std::move(pairs);
  order_ = order;
  epoch_ = epoch;
  batch_ = batch;
  best_epoch_ = int(best_epoch);
  best_dev_ = std::move(best_dev);
  best_params_ = std::move(best);
  bad_epochs_ = bad;
  stopped_ = stopped;
  tokens_ = tokens;
  loss_sum_ = loss_sum;
}

}  // namespace attnseq::train
