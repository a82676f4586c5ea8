// The safetensors container: 8-byte little-endian header length, JSON header, raw little-endian data.
// parse() validates the container completely (lengths, dtypes, shapes, offsets, overlaps) and points
// into the caller's buffer without copying; read_f32() converts one tensor to float, read_i8() copies
// an int8 one; write() emits F32 (and I8 for the tensors given as int8).
// What the tensors mean (names, shapes against each other) is the checkpoint loader's business.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnseq::safetensors {

// The dtypes attnseq reads; others are refused by name ("dtype I16 of tensor 'x' is not supported").
// I8 holds a quantised matrix, whose F32 scales are a tensor of their own (docs/checkpoint-format.md);
// U8 holds bytes that are not numbers (a tokenizer's .model file).
enum class DType { F32, F16, BF16, I8, U8 };
const char* dtype_name(DType);
std::size_t dtype_size(DType);

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte offsets into the data section
  std::uint64_t numel() const;       // product of shape (1 for a scalar)
};

struct File {
  std::vector<TensorInfo> tensors;  // in header order
  bool has_metadata = false;
  std::vector<std::pair<std::string, std::string>> metadata;  // __metadata__ (string -> string only)
  const std::uint8_t* data = nullptr;                         // start of the data section inside the caller's buffer
  std::size_t data_size = 0;
  const TensorInfo* find(std::string_view name) const;  // nullptr if absent
  const std::string* meta(std::string_view key) const;  // nullptr if absent
};

// Validates the container fully; no copies of tensor data (File::data points into `bytes`, which
// must outlive the File). Throws std::invalid_argument("safetensors: ...") naming the tensor and numbers.
File parse(const std::uint8_t* bytes, std::size_t size);

// The size a file says it has: 8 + the header length + the furthest data_offsets end of its tensors,
// from its first bytes (the length and the header; the data need not be there). 0 when those bytes
// are too short or do not parse: parse() then says why. A reader of a stream stops there.
std::uint64_t declared_size(const std::uint8_t* bytes, std::size_t size);

// Converts F32/F16/BF16 (little-endian) to float: t.numel() values into out. An I8 tensor is refused
// (its values mean nothing without its scales).
void read_f32(const File& f, const TensorInfo& t, float* out);
// Copies an I8 tensor: t.numel() values into out. Any other dtype is refused.
void read_i8(const File& f, const TensorInfo& t, std::int8_t* out);
// The bytes of a U8 tensor (a view into the file's buffer). Any other dtype is refused.
std::string_view read_u8(const File& f, const TensorInfo& t);

struct TensorOut {
  std::string name;
  std::vector<std::int64_t> shape;
  const float* data;                 // numel(shape) floats, written F32 (unless i8 is given)
  const std::int8_t* i8 = nullptr;   // numel(shape) int8, written I8 instead
  const std::uint8_t* u8 = nullptr;  // numel(shape) bytes, written U8 instead
};

// An F32 file (I8 and U8 for the tensors given as such): header padded with spaces to a multiple of 8 (so the data
// starts 8-byte aligned), tensors laid out contiguously in the given order. with_metadata=false writes no __metadata__
// key.
std::vector<std::uint8_t> write(const std::vector<TensorOut>& tensors,
                                const std::vector<std::pair<std::string, std::string>>& metadata,
                                bool with_metadata = true);

// Stricter than the format's 100 MB: a parsed JSON value costs ~96 bytes (a 10 MB header of
// zeros peaked at ~850 MB), so this bounds the parser's memory on a hostile header to a few hundred
// MB. Real headers are kilobytes; vocabularies sit inside one metadata string.
constexpr std::uint64_t kMaxHeaderBytes = 4u << 20;
constexpr std::size_t kMaxRank = 8;

}  // namespace attnseq::safetensors
