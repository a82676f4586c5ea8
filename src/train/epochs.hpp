// Training in epochs over a fixed data set (docs/training.md): every pair once per epoch in a seeded,
// length-bucketed order, each step by the Trainer (train/trainer.hpp); at each epoch's end the
// development figure (train/dev_eval.hpp: WER/PER for pronunciation, BLEU for translation) keeps the
// best weights, scales the rate down when not better, and stops the run after `patience` such epochs.
// The whole state saves to one blob from which a run continues bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "train/dev_eval.hpp"
#include "train/run_state.hpp"
#include "train/trainer.hpp"
#include "train/wer.hpp"

namespace attnseq::train {

struct EpochOptions {
  int epochs = 40;        // at most this many epochs
  int patience = 5;       // stop after this many epochs in a row without a better dev figure (0: never)
  double lr_decay = 0.5;  // the rate is multiplied by this after each epoch without a better dev figure
  int bucket = 50;        // batches per chunk sorted by length (1: no bucketing)
  int eval_beam = 1;      // beam of the development evaluation
  int eval_threads = 1;   // threads of the development evaluation
};

// The batches of one epoch, as indices into `pairs`: a seeded permutation of all pairs, cut into
// chunks of batch_size * bucket pairs, each chunk sorted by (source length, target length) (a stable
// sort, so ties keep the shuffled order) and cut into batches of batch_size, then the order of all the
// epoch's batches shuffled. Every pair appears exactly once; only the last batch may be short. A pure
// function of (pair lengths, batch_size, bucket, seed, epoch).
std::vector<std::vector<std::size_t>> epoch_batches(const std::vector<Pair>& pairs, int batch_size, int bucket,
                                                    std::uint64_t seed, int epoch);

// The outcome of one finished epoch.
struct EpochResult {
  int epoch = 0;          // 1-based: the epoch just finished
  double train_loss = 0;  // mean cross-entropy per target token over the epoch's steps
  DevCounts dev;          // the development evaluation of the weights at the end of the epoch
  bool improved = false;  // better than every earlier epoch: these weights are now the best
  double lr_scale = 1;    // the rate's factor from now on
  bool stop = false;      // the run is over (patience exhausted or the last epoch done)
};

class EpochTrainer {
 public:
  // `model` is trained in place (initialise it first); `options.batch_size`, `seed` (data order and
  // dropout), `threads`, `lr`, `warmup`, `clip`, `dropout`, `label_smoothing` apply; `steps` and
  // `final_lr` are set here (the rate is constant after warm-up, times lr_scale). Throws
  // std::invalid_argument for empty data or an option out of range, naming it.
  EpochTrainer(Model& model, std::vector<Pair> train, std::shared_ptr<const DevEvaluator> dev, TrainOptions options,
               EpochOptions epochs);
  // Judged by WER, then PER, against these items (wer_dev).
  EpochTrainer(Model& model, std::vector<Pair> train, std::vector<RefItem> dev, TrainOptions options,
               EpochOptions epochs);

  bool finished() const { return stopped_ || epoch_ >= eo_.epochs; }
  // One step on the next batch. After the epoch's last batch, also evaluates on the dev set and
  // decides (best, rate, stop); `ended` is then set. Throws std::logic_error when finished().
  struct Outcome {
    StepReport step;
    bool ended = false;
    EpochResult epoch;  // valid when `ended`
  };
  Outcome advance();

  // Where the run is.
  int epoch() const { return epoch_; }  // epochs finished
  int batch() const { return batch_; }  // batches of the current epoch done
  int batches_per_epoch() const { return int(order_.size()); }
  int steps_done() const { return trainer_.steps_done(); }
  int best_epoch() const { return best_epoch_; }           // 0: no epoch finished yet
  const DevCounts& best_dev() const { return best_dev_; }  // the best epoch's counts (empty before one ends)
  const DevEvaluator& dev() const { return *dev_; }
  int bad_epochs() const { return bad_epochs_; }
  double lr_scale() const { return trainer_.lr_scale(); }
  bool stopped_early() const { return stopped_; }
  std::size_t dev_words() const { return dev_->size(); }
  // The weights of the best epoch (empty before the first epoch ends).
  const std::vector<float>& best_params() const { return best_params_; }
  const EpochOptions& epoch_options() const { return eo_; }

  // Everything a run needs to continue: weights, best weights, Adam moments, step, epoch, position in
  // the epoch, the best dev counts, patience count, rate scale, plus a fingerprint of the data and the
  // options that fix the data order (checked on load). Loading throws std::invalid_argument naming
  // what does not match (another data set, batch size, seed, model size) and leaves this trainer as
  // it was.
  // With a run record (train/run_state.hpp) set, the state saves it and loading refuses a state whose
  // record differs or is missing, naming the entry.
  void set_record(RunRecord record) { record_ = std::move(record); }
  std::vector<std::uint8_t> save_state() const;
  // Makes each epoch train on resample(epoch) (0-based) instead of the pairs given, for the epoch under
  // way and every later one and on load_state (subword regularisation: sampled_pairs). It must be a pure
  // function of the epoch giving as many pairs; the data fingerprint stays the given pairs'.
  void set_resampler(std::function<std::vector<Pair>(int epoch)> resample);
  void load_state(const std::uint8_t* bytes, std::size_t size);

 private:
  void start_epoch();
  std::vector<Pair> resampled(int epoch) const;
  EpochResult end_epoch(double loss_sum, long tokens);
  Model& model_;
  std::vector<Pair> train_;                         // the current epoch's pairs
  std::uint64_t data_fingerprint_ = 0;              // of the pairs given and the dev set (save/load_state)
  std::function<std::vector<Pair>(int)> resample_;  // empty: every epoch trains on the pairs given
  std::shared_ptr<const DevEvaluator> dev_;
  TrainOptions to_;
  EpochOptions eo_;
  Trainer trainer_;
  std::vector<std::vector<std::size_t>> order_;  // the current epoch's batches
  int epoch_ = 0, batch_ = 0;
  double loss_sum_ = 0;  // the current epoch's loss so far (per-token mean * tokens, summed)
  long tokens_ = 0;
  int best_epoch_ = 0, bad_epochs_ = 0;
  DevCounts best_dev_;
  bool stopped_ = false;
  std::vector<float> best_params_;
  RunRecord record_;
};

}  // namespace attnseq::train
