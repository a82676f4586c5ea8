// Checkpoints: safetensors files with PyTorch tensor names and the configuration in __metadata__
// (docs/checkpoint-format.md). Loading reads everything it can off the shapes, checks the metadata against them,
// validates every tensor, and refuses a bad file with a message naming the tensor and the numbers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace attnseq {

Model load_checkpoint(const std::uint8_t* bytes, std::size_t size);
Model load_checkpoint_file(const std::string& path);
std::vector<std::uint8_t> save_checkpoint(const Model& model);
void save_checkpoint_file(const Model& model, const std::string& path);

// Reads a whole file; throws std::invalid_argument naming the path on failure.
std::vector<std::uint8_t> read_file_bytes(const std::string& path);

}  // namespace attnseq
