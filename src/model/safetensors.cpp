// safetensors parse / read_f32 / write (see safetensors.hpp). Every size from the file is checked
// against the bytes actually present before it is used, and nothing is allocated from a claimed
// count, so a hostile file costs at most a constant factor of its own header size.
// Little-endian host assumed (x86, wasm): unaligned reads are memcpy.
#include "model/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "core/errors.hpp"
#include "model/config.hpp"
#include "model/json.hpp"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.cpp assumes a little-endian host"
#endif

namespace attnseq::safetensors {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
  }
  return "?";
}

std::size_t dtype_size(DType t) { return t == DType::F32 ? 4 : t == DType::I8 || t == DType::U8 ? 1 : 2; }

std::uint64_t TensorInfo::numel() const {
  std::uint64_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::uint64_t>(d);
  return n;
}

const TensorInfo* File::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const std::string* File::meta(std::string_view key) const {
  for (const auto& kv : metadata)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

namespace {

constexpr std::int64_t kMaxDim = std::int64_t(1) << 40;  // larger dimensions are refused as corrupt

// A file that cannot be read is a bad checkpoint; what write() is given is the caller's input.
[[noreturn]] void fail(const std::string& what) { throw BadCheckpoint("safetensors: " + what); }
[[noreturn]] void fail_write(const std::string& what) { throw BadInput("safetensors: write: " + what); }

// Text from the file for messages, cut (at a UTF-8 boundary) so a hostile 100 MB name stays readable.
std::string cut(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "... (" + std::to_string(s.size()) + " bytes)";
}

// A tensor name or metadata key for messages: 'name'.
std::string show(std::string_view s) { return "'" + cut(s, 120) + "'"; }

// A JSON value for messages, cut to a readable length.
std::string brief(const json::Value& v) {
  std::string s = json::dump(v);  // values from parse() are finite and depth-capped: dump cannot throw
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

const char* type_name(const json::Value& v) {
  switch (v.type) {
    case json::Value::Type::Null: return "null";
    case json::Value::Type::Bool: return "a boolean";
    case json::Value::Type::Number: return "a number";
    case json::Value::Type::String: return "a string";
    case json::Value::Type::Array: return "an array";
    case json::Value::Type::Object: return "an object";
  }
  return "?";
}

std::string shape_str(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string offsets_str(std::uint64_t b, std::uint64_t e) {
  return "[" + std::to_string(b) + ", " + std::to_string(e) + "]";
}

// An integral JSON number in [0, limit]. Doubles are exact below 2^53, and any integer text at or
// above 2^53 reads as a double >= 2^53, so limit <= 2^53 - 1 makes the conversion exact.
bool as_uint(const json::Value& v, double limit, std::uint64_t* out) {
  if (!v.is_number() || !(v.number >= 0) || v.number > limit || v.number != std::floor(v.number)) return false;
  *out = static_cast<std::uint64_t>(v.number);
  return true;
}

constexpr double kMaxOffset = kMaxExactInteger;

bool dtype_from(const std::string& s, DType* out) {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::I8, DType::U8})
    if (s == dtype_name(t)) return *out = t, true;
  return false;
}

// numel * dtype size, or fail if it does not fit in 64 bits.
std::uint64_t byte_length(const std::string& name, const std::vector<std::int64_t>& shape, DType dt) {
  std::uint64_t n = dtype_size(dt);
  for (std::int64_t d : shape) {
    const auto u = static_cast<std::uint64_t>(d);
    if (u != 0 && n > std::numeric_limits<std::uint64_t>::max() / u)
      fail("tensor " + show(name) + " shape " + shape_str(shape) + " " + dtype_name(dt) +
           " overflows 64-bit byte counts");
    n *= u;
  }
  return n;
}

TensorInfo parse_entry(const std::string& name, const json::Value& entry, std::size_t data_size) {
  if (name.empty()) fail("a tensor has an empty name");
  if (!entry.is_object()) fail("entry for tensor " + show(name) + " is " + type_name(entry) + ", not an object");
  const json::Value *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
  for (const auto& kv : entry.object) {
    if (kv.first == "dtype")
      dtype = &kv.second;
    else if (kv.first == "shape")
      shape = &kv.second;
    else if (kv.first == "data_offsets")
      offsets = &kv.second;
    else
      fail("tensor " + show(name) + " has unexpected key " + show(kv.first) + " (expected dtype, shape, data_offsets)");
  }
  if (!dtype) fail("tensor " + show(name) + " has no 'dtype'");
  if (!shape) fail("tensor " + show(name) + " has no 'shape'");
  if (!offsets) fail("tensor " + show(name) + " has no 'data_offsets'");

  TensorInfo t;
  t.name = name;
  if (!dtype->is_string()) fail("dtype of tensor " + show(name) + " is " + type_name(*dtype) + ", not a string");
  if (!dtype_from(dtype->string, &t.dtype))
    fail("dtype " + cut(dtype->string, 16) + " of tensor " + show(name) +
         " is not supported (F32, F16, BF16, I8, U8 are)");

  if (!shape->is_array()) fail("shape of tensor " + show(name) + " is " + type_name(*shape) + ", not an array");
  if (shape->array.size() > kMaxRank)
    fail("tensor " + show(name) + " has rank " + std::to_string(shape->array.size()) + ", more than " +
         std::to_string(kMaxRank));
  for (std::size_t i = 0; i < shape->array.size(); ++i) {
    std::uint64_t d = 0;
    if (!as_uint(shape->array[i], static_cast<double>(kMaxDim), &d))
      fail("shape of tensor " + show(name) + " has dimension " + std::to_string(i) + " = " + brief(shape->array[i]) +
           ", not an integer in [0, 2^40]");
    t.shape.push_back(static_cast<std::int64_t>(d));
  }
  const std::uint64_t nbytes = byte_length(name, t.shape, t.dtype);

  if (!offsets->is_array() || offsets->array.size() != 2 || !as_uint(offsets->array[0], kMaxOffset, &t.begin) ||
      !as_uint(offsets->array[1], kMaxOffset, &t.end))
    fail("data_offsets of tensor " + show(name) + " must be two integers in [0, 2^53), found " + brief(*offsets));
  if (t.begin > t.end)
    fail("data_offsets of tensor " + show(name) + " " + offsets_str(t.begin, t.end) + " have begin > end");
  if (t.end > data_size)
    fail("tensor " + show(name) + " data_offsets " + offsets_str(t.begin, t.end) + " exceed the data section of " +
         std::to_string(data_size) + " bytes");
  if (t.end - t.begin != nbytes)
    fail("tensor " + show(name) + " has shape " + shape_str(t.shape) + " " + dtype_name(t.dtype) + " = " +
         std::to_string(nbytes) + " bytes but data_offsets span " + std::to_string(t.end - t.begin));
  return t;
}

// Sort by begin, sweep keeping the furthest end seen: a non-empty tensor starting before that end
// overlaps the tensor owning it. Empty tensors occupy no bytes and cannot overlap anything.
void check_overlaps(const std::vector<TensorInfo>& ts) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (ts[i].end > ts[i].begin) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return ts[a].begin != ts[b].begin ? ts[a].begin < ts[b].begin : a < b;
  });
  const TensorInfo* furthest = nullptr;
  for (std::size_t i : idx) {
    const TensorInfo& t = ts[i];
    if (furthest && t.begin < furthest->end) {
      // Name them in header order so the message does not depend on the sort.
      const bool first = &t < furthest;
      const TensorInfo& a = first ? t : *furthest;
      const TensorInfo& b = first ? *furthest : t;
      fail("tensors " + show(a.name) + " " + offsets_str(a.begin, a.end) + " and " + show(b.name) + " " +
           offsets_str(b.begin, b.end) + " overlap");
    }
    if (!furthest || t.end > furthest->end) furthest = &t;
  }
}

std::uint16_t load_u16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

float bits_to_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// IEEE half -> float, exact (every half is a float): subnormals are renormalised, inf/NaN kept.
float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1Fu;
  std::uint32_t man = h & 0x3FFu;
  if (exp == 0x1F) return bits_to_float(sign | 0x7F800000u | (man << 13));       // inf, NaN (payload kept)
  if (exp != 0) return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));  // rebias 15 -> 127
  if (man == 0) return bits_to_float(sign);                                      // +-0
  // Subnormal man * 2^-24: shift the leading 1 up to the implicit-bit position.
  exp = 113;
  while (!(man & 0x400u)) man <<= 1, --exp;
  return bits_to_float(sign | (exp << 23) | ((man & 0x3FFu) << 13));
}

// bfloat16 is the top half of a float.
float bf16_to_f32(std::uint16_t h) { return bits_to_float(static_cast<std::uint32_t>(h) << 16); }

}  // namespace

File parse(const std::uint8_t* bytes, std::size_t size) {
  if (!bytes && size) fail("null buffer of " + std::to_string(size) + " bytes");
  if (size < 8) fail("file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n == 0) fail("header length is 0");
  if (n > kMaxHeaderBytes)
    fail("header length " + std::to_string(n) + " exceeds the limit of " + std::to_string(kMaxHeaderBytes) + " bytes");
  if (n > size - 8) fail("header length " + std::to_string(n) + " exceeds file size " + std::to_string(size) + " - 8");

  json::Value header;
  try {
    header = json::parse(std::string_view(reinterpret_cast<const char*>(bytes + 8), static_cast<std::size_t>(n)));
  } catch (const std::invalid_argument& e) {
    fail(std::string("header is not valid JSON: ") + e.what() + " of the header");
  }
  if (!header.is_object()) fail(std::string("header is ") + type_name(header) + ", not a JSON object");

  File f;
  f.data = bytes + 8 + n;
  f.data_size = size - 8 - static_cast<std::size_t>(n);
  for (const auto& [key, value] : header.object) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail(std::string("__metadata__ is ") + type_name(value) + ", not an object");
      for (const auto& [mk, mv] : value.object) {
        if (!mv.is_string()) fail("__metadata__ value of " + show(mk) + " is " + type_name(mv) + ", not a string");
        f.metadata.emplace_back(mk, mv.string);
      }
      f.has_metadata = true;
      continue;
    }
    f.tensors.push_back(parse_entry(key, value, f.data_size));
  }
  check_overlaps(f.tensors);
  return f;
}

std::uint64_t declared_size(const std::uint8_t* bytes, std::size_t size) {
  if (!bytes || size < 8) return 0;
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n == 0 || n > kMaxHeaderBytes || n > size - 8) return 0;
  json::Value header;
  try {
    header = json::parse(std::string_view(reinterpret_cast<const char*>(bytes + 8), static_cast<std::size_t>(n)));
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (!header.is_object()) return 0;
  std::uint64_t end = 0;
  for (const auto& [key, value] : header.object) {
    if (key == "__metadata__" || !value.is_object()) continue;
    for (const auto& [k, v] : value.object) {
      std::uint64_t e = 0;
      if (k == "data_offsets" && v.is_array() && v.array.size() == 2 && as_uint(v.array[1], kMaxOffset, &e))
        end = std::max(end, e);
    }
  }
  return 8 + n + end;
}

namespace {
// The TensorInfo may not come from this File's parse(): re-check it against the data section.
const std::uint8_t* checked_data(const File& f, const TensorInfo& t) {
  const std::uint64_t n = t.numel();
  if (t.begin > t.end || t.end > f.data_size || (f.data == nullptr && t.end > 0) ||
      n > (t.end - t.begin) / dtype_size(t.dtype) || t.end - t.begin != n * dtype_size(t.dtype))
    fail("tensor " + show(t.name) + " " + offsets_str(t.begin, t.end) + " does not fit the data section of " +
         std::to_string(f.data_size) + " bytes");
  return f.data + t.begin;
}
}  // namespace

void read_i8(const File& f, const TensorInfo& t, std::int8_t* out) {
  if (t.dtype != DType::I8) fail("tensor " + show(t.name) + " is " + dtype_name(t.dtype) + " where I8 is expected");
  const std::uint8_t* p = checked_data(f, t);
  if (t.numel()) std::memcpy(out, p, t.numel());
}

std::string_view read_u8(const File& f, const TensorInfo& t) {
  if (t.dtype != DType::U8) fail("tensor " + show(t.name) + " is " + dtype_name(t.dtype) + " where U8 is expected");
  const std::uint8_t* p = checked_data(f, t);
  return {reinterpret_cast<const char*>(p), std::size_t(t.numel())};
}

void read_f32(const File& f, const TensorInfo& t, float* out) {
  if (t.dtype == DType::I8 || t.dtype == DType::U8)
    fail("tensor " + show(t.name) + " is " + dtype_name(t.dtype) + " where F32, F16 or BF16 is expected");
  const std::uint64_t n = t.numel();
  const std::uint8_t* p = checked_data(f, t);
  switch (t.dtype) {
    case DType::F32:
      if (n) std::memcpy(out, p, n * 4);
      break;
    case DType::F16:
      for (std::uint64_t i = 0; i < n; ++i) out[i] = f16_to_f32(load_u16(p + 2 * i));
      break;
    case DType::BF16:
      for (std::uint64_t i = 0; i < n; ++i) out[i] = bf16_to_f32(load_u16(p + 2 * i));
      break;
    case DType::I8:
    case DType::U8: break;  // refused above
  }
}

std::vector<std::uint8_t> write(const std::vector<TensorOut>& tensors,
                                const std::vector<std::pair<std::string, std::string>>& metadata, bool with_metadata) {
  if (!with_metadata && !metadata.empty())
    fail_write(std::to_string(metadata.size()) + " metadata entries given with with_metadata = false");
  // Duplicate keys would make a header that parse() (and every other reader) refuses.
  const auto check_unique = [](std::vector<std::string_view> names, const char* what) {
    std::sort(names.begin(), names.end());
    const auto dup = std::adjacent_find(names.begin(), names.end());
    if (dup != names.end()) fail_write("duplicate " + std::string(what) + " " + show(*dup));
  };
  std::vector<std::string_view> names, keys;
  for (const auto& t : tensors) names.push_back(t.name);
  for (const auto& kv : metadata) keys.push_back(kv.first);
  check_unique(names, "tensor name");
  check_unique(keys, "metadata key");

  std::string header = "{";
  if (with_metadata) {
    header += "\"__metadata__\":{";
    for (std::size_t i = 0; i < metadata.size(); ++i)
      header += (i ? "," : "") + json::quote(metadata[i].first) + ":" + json::quote(metadata[i].second);
    header += "}";
  }
  std::uint64_t offset = 0;
  std::vector<std::uint64_t> lengths;
  for (const auto& t : tensors) {
    if (t.name.empty()) fail_write("a tensor has an empty name");
    if (t.name == "__metadata__") fail_write("'__metadata__' is not a valid tensor name");
    if (t.shape.size() > kMaxRank)
      fail_write("tensor " + show(t.name) + " has rank " + std::to_string(t.shape.size()) + ", more than " +
                 std::to_string(kMaxRank));
    for (std::int64_t d : t.shape)
      if (d < 0 || d > kMaxDim)
        fail_write("tensor " + show(t.name) + " shape " + shape_str(t.shape) + " has a dimension outside [0, 2^40]");
    const DType dt = t.i8 ? DType::I8 : t.u8 ? DType::U8 : DType::F32;
    const std::uint64_t nbytes = byte_length(t.name, t.shape, dt);
    if (nbytes && !t.data && !t.i8 && !t.u8) fail_write("tensor " + show(t.name) + " has no data");
    if (nbytes > static_cast<std::uint64_t>(kMaxOffset) - offset)
      fail_write("tensor " + show(t.name) + " takes the data section past 2^53 bytes");
    if (header.size() > 1) header += ",";
    header += json::quote(t.name) + ":{\"dtype\":\"" + dtype_name(dt) + "\",\"shape\":[";
    for (std::size_t i = 0; i < t.shape.size(); ++i) header += (i ? "," : "") + std::to_string(t.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + nbytes) + "]}";
    offset += nbytes;
    lengths.push_back(nbytes);
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');  // the data section starts 8-byte aligned
  if (header.size() > kMaxHeaderBytes)
    fail_write("header of " + std::to_string(header.size()) + " bytes exceeds the limit of " +
               std::to_string(kMaxHeaderBytes));
  if (offset > std::numeric_limits<std::size_t>::max() - 8 - header.size())
    fail_write(std::to_string(offset) + " bytes of data do not fit in memory");

  std::vector<std::uint8_t> out(8 + header.size() + static_cast<std::size_t>(offset));
  const std::uint64_t hlen = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(hlen >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::uint8_t* p = out.data() + 8 + header.size();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const void* src = tensors[i].i8   ? static_cast<const void*>(tensors[i].i8)
                      : tensors[i].u8 ? static_cast<const void*>(tensors[i].u8)
                                      : static_cast<const void*>(tensors[i].data);
    if (lengths[i]) std::memcpy(p, src, static_cast<std::size_t>(lengths[i]));
    p += lengths[i];
  }
  return out;
}

}  // namespace attnseq::safetensors
