// Checkpoints: safetensors files with PyTorch tensor names and the configuration in __metadata__
// (docs/checkpoint-format.md). Loading reads everything it can off the shapes, checks the metadata against them,
// validates every tensor, and refuses a bad file with a message naming the tensor and the numbers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "model/safetensors.hpp"

namespace attnseq {

Model load_checkpoint(const std::uint8_t* bytes, std::size_t size);
Model load_checkpoint_file(const std::string& path);
std::vector<std::uint8_t> save_checkpoint(const Model& model);
void save_checkpoint_file(const Model& model, const std::string& path);

// Reads a whole file; throws std::invalid_argument naming the path on failure.
std::vector<std::uint8_t> read_file_bytes(const std::string& path);
// Reads a checkpoint file as far as its own sizes say it goes (safetensors::declared_size), so that
// a device or a pipe that never ends (/dev/zero) is read only that far; refuses a header that
// declares more than the largest checkpoint there can be (kMaxCheckpointBytes) before reading on.
std::vector<std::uint8_t> read_checkpoint_bytes(const std::string& path);
// A side whose tokenizer is spm carries its SentencePiece .model file's bytes as a U8 tensor.
inline const std::string kSrcSpmTensor = "tokenizer.src", kTgtSpmTensor = "tokenizer.tgt";
constexpr std::uint64_t kMaxTokenizerBytes = 16u << 20;
// 8 + the header limit + every parameter as F32 with, at most, an F32 scale for each, + two tokenizers.
constexpr std::uint64_t kMaxCheckpointBytes =
    8 + safetensors::kMaxHeaderBytes + 8 * std::uint64_t(kMaxParams) + 2 * kMaxTokenizerBytes;

}  // namespace attnseq
