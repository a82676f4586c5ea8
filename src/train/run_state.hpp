// What a saved training state must agree with to be continued (docs/training.md, "Files, saves, and
// exact resume"): the run record, a list of (flag, value) pairs written into the state's metadata and
// compared on --resume, so a state continues only the run it came from (the architecture, the data by
// its hash, the seed, the batch size, ...). Also the checks every loaded state passes (finite values,
// fields that parse), and the state file of the sampling trainer (`attnseq train --task/--data`),
// which holds its own weights so that it is the commit point of a save.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/config.hpp"
#include "model/model.hpp"
#include "model/safetensors.hpp"
#include "train/trainer.hpp"

namespace attnseq::train {

using RunRecord = std::vector<std::pair<std::string, std::string>>;

// The architecture flags' values of a configuration (--style ... --bridge), as the record holds them.
RunRecord architecture_record(const ModelConfig& c);
// The first way `other`'s architecture differs from `mine`'s: an architecture_record flag (its name,
// other's value, mine; "no" where other lacks the flag; --attn-dim counts for the additive score only),
// or else the first tensor whose name or shape differs (`tensor` set, the flag fields empty). None when
// the weights of one can stand for the other's (fine-tuning's --init, attnseq average).
struct ArchitectureDifference {
  std::string flag, theirs, mine, tensor;
};
std::optional<ArchitectureDifference> architecture_difference(const Model& mine, const Model& other);

// FNV-1a (64 bits) of bytes as "fnv1a:" and 16 hex digits: the identity of a data file.
std::string content_hash(std::string_view bytes);

// Appends the record to a state's metadata (keys "run:FLAG").
void add_record(std::vector<std::pair<std::string, std::string>>& meta, const RunRecord& record);
// Throws std::invalid_argument naming the first entry that differs ("--style: the state was saved with
// luong, this run asks for bahdanau"), or saying that the state has no record (an older attnseq's:
// refused, since nothing about it can be checked).
void check_record(const safetensors::File& state, const RunRecord& mine);

// Throws BadCheckpoint naming `what` and the first value that is not finite (or, nonnegative: below 0).
void check_finite(const std::vector<float>& values, const std::string& what, bool nonnegative = false);

// The sampling trainer's state file: the weights, the Trainer's own state and the record.
std::vector<std::uint8_t> save_run_state(const Trainer& trainer, const Model& model, const RunRecord& record);
// Checks everything before changing anything: the format, the record, the weights' count and values,
// then the Trainer's part (its loader's checks). Throws std::invalid_argument (BadCheckpoint for a
// malformed file) naming what is wrong; leaves trainer and model as they were.
void load_run_state(Trainer& trainer, Model& model, const RunRecord& record, const std::uint8_t* bytes,
                    std::size_t size);

}  // namespace attnseq::train
