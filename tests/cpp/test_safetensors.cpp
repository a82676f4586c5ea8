// Tests for the safetensors container (src/model/safetensors.hpp): write/parse round trip, F16 and
// BF16 conversion on hand-built files, one SUBCASE per malformed-file check (the message must name
// the tensor and the numbers), and sweeps over truncated and byte-flipped files that must never crash.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/safetensors.hpp"

namespace st = attnseq::safetensors;
using Bytes = std::vector<std::uint8_t>;

namespace {

// 8-byte little-endian length + header (unpadded, exactly as given) + data bytes.
Bytes make_file(const std::string& header, const Bytes& data) {
  Bytes out(8);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes make_file(const std::string& header, std::size_t data_size) { return make_file(header, Bytes(data_size, 0)); }

// The message of the std::invalid_argument parse() throws, or "<no error>"; other exceptions escape.
std::string error_of(const Bytes& file, std::size_t size) {
  try {
    st::parse(file.data(), size);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no error>";
}
std::string error_of(const Bytes& file) { return error_of(file, file.size()); }

// Checks that the error names every given piece (tensor names, numbers).
void check_error(const Bytes& file, std::initializer_list<const char*> pieces) {
  const std::string msg = error_of(file);
  CAPTURE(msg);
  CHECK(msg.rfind("safetensors: ", 0) == 0);
  for (const std::string p : pieces) {
    CAPTURE(p);
    CHECK(msg.find(p) != std::string::npos);
  }
}

// One-tensor header: {"x":{"dtype":..,"shape":..,"data_offsets":..}}, fields given as JSON text.
std::string entry(const char* dtype, const char* shape, const char* offsets) {
  return std::string(R"({"x":{"dtype":)") + dtype + R"(,"shape":)" + shape + R"(,"data_offsets":)" + offsets + "}}";
}

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

std::vector<float> read_all(const st::File& f, const st::TensorInfo& t) {
  std::vector<float> out(t.numel());
  st::read_f32(f, t, out.data());
  return out;
}

// Parses and reads every tensor: success or std::invalid_argument, nothing else.
void parse_and_read(const Bytes& file, std::size_t size) {
  try {
    const st::File f = st::parse(file.data(), size);
    for (const auto& t : f.tensors) read_all(f, t);
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace

TEST_CASE("safetensors: write then parse round trip") {
  const std::vector<float> a = {1.0f,      -0.0f, 0.1f, 1e-45f, -3.4028235e38f, INFINITY,
                                -INFINITY, 7.0f,  8.5f, -9.25f, 1e-10f,         12.0f};
  std::vector<float> nan_payload(1);
  const std::uint32_t nan_bits = 0x7FC12345u;
  std::memcpy(nan_payload.data(), &nan_bits, 4);
  const float scalar = 42.5f;
  const std::vector<std::pair<std::string, std::string>> meta = {
      {"style", "luong"}, {"src_vocab", "[\"<pad>\", \"a\\\"b\", \"\xEC\xA0\x9C\"]"}, {"newline", "x\ny"}, {"", ""}};
  const std::vector<st::TensorOut> tensors = {
      {"encoder.embedding.weight", {3, 4}, a.data()},
      {"nan", {1}, nan_payload.data()},
      {"scalar", {}, &scalar},
      {"empty", {0, 5}, nullptr},
      {"odd \"name\" \\ \xC3\xA9", {2, 1, 1}, a.data() + 3},
  };
  const Bytes file = st::write(tensors, meta);

  std::uint64_t hlen = 0;
  for (int i = 7; i >= 0; --i) hlen = (hlen << 8) | file[i];
  CHECK(hlen % 8 == 0);
  CHECK((8 + hlen) % 8 == 0);
  CHECK(file.size() == 8 + hlen + 4 * (12 + 1 + 1 + 0 + 2));

  const st::File f = st::parse(file.data(), file.size());
  CHECK(f.data == file.data() + 8 + hlen);  // points into the buffer, no copy
  CHECK(f.data_size == file.size() - 8 - hlen);
  REQUIRE(f.tensors.size() == tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    CAPTURE(i);
    const st::TensorInfo& t = f.tensors[i];
    CHECK(t.name == tensors[i].name);  // header order = given order
    CHECK(t.shape == tensors[i].shape);
    CHECK(t.dtype == st::DType::F32);
    CHECK(f.find(t.name) == &t);
    const std::vector<float> got = read_all(f, t);
    REQUIRE(got.size() == t.numel());
    for (std::size_t k = 0; k < got.size(); ++k) CHECK(bits(got[k]) == bits(tensors[i].data[k]));
  }
  CHECK(f.tensors[2].numel() == 1);
  CHECK(f.tensors[3].numel() == 0);
  CHECK(f.tensors[1].begin == 48);  // contiguous in the given order
  CHECK(f.find("absent") == nullptr);
  CHECK(f.has_metadata);
  CHECK(f.metadata == meta);
  REQUIRE(f.meta("src_vocab") != nullptr);
  CHECK(*f.meta("src_vocab") == meta[1].second);
  CHECK(f.meta("absent") == nullptr);
}

TEST_CASE("safetensors: I8 tensors are written and read byte for byte, and only as int8") {
  const std::vector<std::int8_t> q = {-127, -1, 0, 1, 127, 5, -128};
  const std::vector<float> scale = {0.5f, 0.25f};
  const Bytes file = st::write(
      {{"w", {2, 3}, nullptr, q.data()}, {"w.scale", {2}, scale.data()}, {"odd", {1}, nullptr, q.data() + 6}}, {});
  const st::File f = st::parse(file.data(), file.size());
  REQUIRE(f.tensors.size() == 3);
  CHECK(f.tensors[0].dtype == st::DType::I8);
  CHECK(f.tensors[0].end - f.tensors[0].begin == 6);  // one byte per value
  CHECK(f.tensors[1].dtype == st::DType::F32);
  std::vector<std::int8_t> got(6);
  st::read_i8(f, f.tensors[0], got.data());
  CHECK(got == std::vector<std::int8_t>(q.begin(), q.begin() + 6));
  std::int8_t odd = 0;
  st::read_i8(f, f.tensors[2], &odd);
  CHECK(odd == -128);  // the container keeps any byte; the checkpoint loader decides what is valid
  CHECK(read_all(f, f.tensors[1]) == scale);
  // An int8 tensor read as floats would lose its scales; a float one read as int8 is no better.
  auto message = [](auto&& read) -> std::string {
    try {
      read();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "<no error>";
  };
  float sink[6];
  CHECK(message([&] { st::read_f32(f, f.tensors[0], sink); }) ==
        "safetensors: tensor 'w' is I8 where F32, F16 or BF16 is expected");
  CHECK(message([&] { st::read_i8(f, f.tensors[1], got.data()); }) ==
        "safetensors: tensor 'w.scale' is F32 where I8 is expected");
}

TEST_CASE("safetensors: metadata present, empty or absent") {
  const float v[2] = {1, 2};
  const Bytes none = st::write({{"w", {2}, v}}, {}, false);
  const st::File f = st::parse(none.data(), none.size());
  CHECK_FALSE(f.has_metadata);
  CHECK(std::string(none.begin(), none.end()).find("__metadata__") == std::string::npos);

  const Bytes empty = st::write({{"w", {2}, v}}, {});
  const st::File g = st::parse(empty.data(), empty.size());
  CHECK(g.has_metadata);
  CHECK(g.metadata.empty());

  const Bytes nothing = st::write({}, {}, false);  // "{}" padded to 8
  CHECK(nothing.size() == 16);
  CHECK(st::parse(nothing.data(), nothing.size()).tensors.empty());
}

TEST_CASE("safetensors: write refuses what no reader would accept") {
  const float v[4] = {};
  CHECK_THROWS_AS(st::write({{"a", {1}, v}, {"a", {1}, v}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(st::write({{"", {1}, v}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(st::write({{"__metadata__", {1}, v}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(st::write({{"a", {-1}, v}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(st::write({{"a", {1, 1, 1, 1, 1, 1, 1, 1, 1}, v}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(st::write({{"a", {2}, nullptr}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(st::write({{"a", {1}, v}}, {{"k", "1"}, {"k", "2"}}), std::invalid_argument);
  CHECK_THROWS_AS(st::write({{"a", {1}, v}}, {{"k", "1"}}, false), std::invalid_argument);
}

TEST_CASE("safetensors: F16 and BF16 conversion") {
  // Known values, stored little-endian after a 1-byte hole so every read is unaligned.
  const std::vector<std::uint16_t> half = {0x0000, 0x8000, 0x3C00, 0xC000, 0x7BFF, 0x0400, 0x0001,
                                           0x03FF, 0x3555, 0x7C00, 0xFC00, 0x7E00, 0x8001};
  const std::vector<float> half_want = {0.0f,
                                        -0.0f,
                                        1.0f,
                                        -2.0f,
                                        65504.0f,
                                        6.103515625e-05f,
                                        5.9604644775390625e-08f,
                                        6.0975551605224609375e-05f,
                                        0.333251953125f,
                                        INFINITY,
                                        -INFINITY,
                                        NAN,
                                        -5.9604644775390625e-08f};
  const std::vector<std::uint16_t> bf = {0x3F80, 0xC040, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x3EAB, 0x8000};
  const std::vector<float> bf_want = {1.0f, -3.0f, INFINITY, -INFINITY, NAN, 9.18354962e-41f, 0.333984375f, -0.0f};

  Bytes data(1, 0xAB);
  for (std::uint16_t h : half) data.push_back(h & 0xFF), data.push_back(h >> 8);
  const std::size_t bf_begin = data.size();
  for (std::uint16_t h : bf) data.push_back(h & 0xFF), data.push_back(h >> 8);
  const std::string header = R"({"h":{"dtype":"F16","shape":[13],"data_offsets":[1,27]},)"
                             R"("b":{"shape":[2,4],"data_offsets":[27,43],"dtype":"BF16"}})";
  REQUIRE(bf_begin == 27);
  const Bytes file = make_file(header + " ", data);  // odd header length: the data itself is unaligned
  const st::File f = st::parse(file.data(), file.size());
  REQUIRE(f.tensors.size() == 2);
  CHECK(f.tensors[0].dtype == st::DType::F16);
  CHECK(f.tensors[1].dtype == st::DType::BF16);
  CHECK(std::string(st::dtype_name(f.tensors[1].dtype)) == "BF16");
  CHECK(st::dtype_size(st::DType::F16) == 2);
  CHECK(st::dtype_size(st::DType::F32) == 4);

  const std::vector<float> h = read_all(f, f.tensors[0]);
  for (std::size_t i = 0; i < half.size(); ++i) {
    CAPTURE(i);
    if (std::isnan(half_want[i]))
      CHECK(std::isnan(h[i]));
    else
      CHECK(bits(h[i]) == bits(half_want[i]));
  }
  const std::vector<float> b = read_all(f, f.tensors[1]);
  for (std::size_t i = 0; i < bf.size(); ++i) {
    CAPTURE(i);
    CHECK(bits(b[i]) == (static_cast<std::uint32_t>(bf[i]) << 16));  // bf16 is exactly the top half
    if (std::isnan(bf_want[i]))
      CHECK(std::isnan(b[i]));
    else
      CHECK(b[i] == bf_want[i]);
  }
}

TEST_CASE("safetensors: every F16 bit pattern converts exactly") {
  Bytes data;
  for (std::uint32_t h = 0; h < 65536; ++h) {
    data.push_back(static_cast<std::uint8_t>(h & 0xFF));
    data.push_back(static_cast<std::uint8_t>(h >> 8));
  }
  const Bytes file = make_file(entry("\"F16\"", "[256,256]", "[0,131072]"), data);
  const st::File f = st::parse(file.data(), file.size());
  const std::vector<float> got = read_all(f, f.tensors[0]);
  int wrong = 0;
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const int exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    const float sign = (h & 0x8000) ? -1.0f : 1.0f;
    const float x = got[h];
    bool ok;
    if (exp == 31 && man != 0)
      ok = std::isnan(x) && (bits(x) & 0x7FFFFFu) == static_cast<std::uint32_t>(man) << 13;
    else if (exp == 31)
      ok = x == sign * INFINITY;
    else if (exp == 0)
      ok = x == sign * std::ldexp(static_cast<float>(man), -24) && std::signbit(x) == (sign < 0);
    else
      ok = x == sign * std::ldexp(static_cast<float>(1024 + man), exp - 25);
    wrong += !ok;
  }
  CHECK(wrong == 0);
}

TEST_CASE("safetensors: tensors-only files, holes and empty tensors are fine") {
  // A hole of 4 bytes before "b", an empty tensor sitting inside "a"'s bytes, trailing unused data.
  const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("e":{"dtype":"F32","shape":[3,0],"data_offsets":[4,4]},)"
                             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}}  )";
  const Bytes file = make_file(header, 20);
  const st::File f = st::parse(file.data(), file.size());
  CHECK_FALSE(f.has_metadata);
  REQUIRE(f.tensors.size() == 3);
  CHECK(f.tensors[1].numel() == 0);
  CHECK(f.find("b")->begin == 12);
  CHECK(f.data_size == 20);
}

TEST_CASE("safetensors: every malformed file is refused with a message naming the problem") {
  SUBCASE("file shorter than 8 bytes") {
    for (std::size_t n = 0; n < 8; ++n) {
      const Bytes file(n, 0);
      CHECK(error_of(file) ==
            "safetensors: file is " + std::to_string(n) + " bytes, shorter than the 8-byte header length");
    }
  }
  SUBCASE("header length 0") { check_error(Bytes(16, 0), {"header length is 0"}); }
  SUBCASE("header length over the 4 MiB limit") {
    Bytes file(16, ' ');
    const std::uint64_t n = 200u << 20;
    for (int i = 0; i < 8; ++i) file[i] = static_cast<std::uint8_t>(n >> (8 * i));
    check_error(file, {"header length 209715200 exceeds the limit of 4194304"});
  }
  SUBCASE("header length beyond the file") {
    Bytes file(100, ' ');
    for (int i = 0; i < 8; ++i) file[i] = 0;
    file[0] = 1234 & 0xFF, file[1] = 1234 >> 8;
    CHECK(error_of(file) == "safetensors: header length 1234 exceeds file size 100 - 8");
    Bytes huge(100, ' ');
    for (int i = 0; i < 8; ++i) huge[i] = 0xFF;  // 2^64 - 1: must not wrap around
    check_error(huge, {"header length 18446744073709551615"});
  }
  SUBCASE("header not valid JSON") {
    check_error(make_file(R"({"x":)", 0), {"header is not valid JSON", "end of input at byte 5 of the header"});
    check_error(make_file(std::string("{\"x\":{}}\0\0", 10), 0),
                {"not valid JSON", "at byte 8"});  // NUL padding is not JSON
  }
  SUBCASE("header not an object") { check_error(make_file("[1, 2]  ", 0), {"header is an array, not a JSON object"}); }
  SUBCASE("entry not an object") {
    check_error(make_file(R"({"x":[1]})", 0), {"tensor 'x'", "an array, not an object"});
  }
  SUBCASE("missing keys") {
    check_error(make_file(R"({"x":{"shape":[1],"data_offsets":[0,4]}})", 4), {"tensor 'x' has no 'dtype'"});
    check_error(make_file(R"({"x":{"dtype":"F32","data_offsets":[0,4]}})", 4), {"tensor 'x' has no 'shape'"});
    check_error(make_file(R"({"x":{"dtype":"F32","shape":[1]}})", 4), {"tensor 'x' has no 'data_offsets'"});
  }
  SUBCASE("extra key") {
    check_error(make_file(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"foo":1}})", 4),
                {"tensor 'x' has unexpected key 'foo'"});
  }
  SUBCASE("dtype not a string") {
    check_error(make_file(entry("5", "[1]", "[0,4]"), 4), {"dtype of tensor 'x' is a number"});
  }
  SUBCASE("unsupported dtype") {
    check_error(make_file(entry("\"I16\"", "[4]", "[0,8]"), 8),
                {"dtype I16 of tensor 'x' is not supported (F32, F16, BF16, I8, U8 are)"});
    check_error(make_file(entry("\"F64\"", "[1]", "[0,8]"), 8), {"dtype F64 of tensor 'x'"});
    check_error(make_file(entry("\"f32\"", "[1]", "[0,4]"), 4), {"dtype f32 of tensor 'x'"});  // case matters
  }
  SUBCASE("shape not an array") {
    check_error(make_file(entry("\"F32\"", "\"[1]\"", "[0,4]"), 4), {"shape of tensor 'x' is a string"});
  }
  SUBCASE("shape with a non-integer") {
    check_error(make_file(entry("\"F32\"", "[2.5]", "[0,10]"), 10), {"tensor 'x'", "dimension 0 = 2.5"});
    check_error(make_file(entry("\"F32\"", "[1,\"3\"]", "[0,12]"), 12), {"tensor 'x'", "dimension 1 = \"3\""});
    check_error(make_file(entry("\"F32\"", "[null]", "[0,4]"), 4), {"dimension 0 = null"});
  }
  SUBCASE("shape with a negative dimension") {
    check_error(make_file(entry("\"F32\"", "[3,-1]", "[0,4]"), 4), {"tensor 'x'", "dimension 1 = -1"});
  }
  SUBCASE("shape with a dimension above 2^40") {
    check_error(make_file(entry("\"F32\"", "[1099511627777]", "[0,4]"), 4), {"dimension 0 = 1099511627777", "2^40"});
  }
  SUBCASE("rank above kMaxRank") {
    check_error(make_file(entry("\"F32\"", "[1,1,1,1,1,1,1,1,1]", "[0,4]"), 4), {"tensor 'x' has rank 9, more than 8"});
  }
  SUBCASE("numel overflow") {
    check_error(make_file(entry("\"F32\"", "[1099511627776,1099511627776]", "[0,4]"), 4), {"tensor 'x'", "overflows"});
    check_error(make_file(entry("\"F32\"", "[4294967296,1073741824]", "[0,0]"), 0), {"overflows"});  // bytes = 2^64
  }
  SUBCASE("data_offsets not two non-negative integers") {
    for (const char* bad :
         {"[0]", "[0,4,8]", "[-4,0]", "[0.5,4]", "\"0,4\"", "[0,\"4\"]", "[0,1e300]", "[0,9007199254740992]", "{}"}) {
      CAPTURE(bad);
      check_error(make_file(entry("\"F32\"", "[1]", bad), 4), {"data_offsets of tensor 'x'", "two integers"});
    }
  }
  SUBCASE("begin > end") {
    check_error(make_file(entry("\"F32\"", "[1]", "[8,4]"), 8), {"tensor 'x'", "[8, 4]", "begin > end"});
  }
  SUBCASE("end beyond the data section") {
    CHECK(error_of(make_file(entry("\"F32\"", "[100]", "[0,400]"), 300)) ==
          "safetensors: tensor 'x' data_offsets [0, 400] exceed the data section of 300 bytes");
  }
  SUBCASE("byte length differs from shape") {
    CHECK(error_of(make_file(entry("\"F32\"", "[3,4]", "[0,44]"), 48)) ==
          "safetensors: tensor 'x' has shape [3, 4] F32 = 48 bytes but data_offsets span 44");
    check_error(make_file(entry("\"BF16\"", "[3]", "[0,12]"), 12), {"shape [3] BF16 = 6 bytes", "span 12"});
    check_error(make_file(entry("\"F16\"", "[]", "[0,4]"), 4), {"shape [] F16 = 2 bytes", "span 4"});
  }
  SUBCASE("overlapping tensors") {
    check_error(make_file(R"({"a":{"dtype":"F32","shape":[12],"data_offsets":[0,48]},)"
                          R"("b":{"dtype":"F32","shape":[12],"data_offsets":[40,88]}})",
                          88),
                {"tensors 'a' [0, 48] and 'b' [40, 88] overlap"});
    // Listed out of file order, and one inside another: still named in header order.
    check_error(make_file(R"({"late":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},)"
                          R"("early":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                          R"("wide":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                          16),
                {"'early' [0, 4] and 'wide' [0, 16] overlap"});
    check_error(make_file(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                          R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
                          R"("c":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})",
                          16),
                {"tensors 'a' [0, 16] and 'b' [4, 8] overlap"});
  }
  SUBCASE("__metadata__ not an object of strings") {
    check_error(make_file(R"({"__metadata__":["a"]})", 0), {"__metadata__ is an array, not an object"});
    check_error(make_file(R"({"__metadata__":{"ok":"1","n":1}})", 0), {"__metadata__ value of 'n' is a number"});
    check_error(make_file(R"({"__metadata__":{"o":{}}})", 0), {"'o' is an object"});
  }
  SUBCASE("duplicate tensor names") {
    check_error(make_file(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                          R"("x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                          8),
                {"duplicate key \"x\"", "at byte 54"});
    check_error(make_file(R"({"__metadata__":{},"__metadata__":{}})", 0), {"duplicate key \"__metadata__\""});
  }
  SUBCASE("empty tensor name") {
    check_error(make_file(R"({"":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4), {"empty name"});
  }
  SUBCASE("read_f32 refuses a TensorInfo that does not fit the file") {
    const float v[2] = {1, 2};
    const Bytes file = st::write({{"w", {2}, v}}, {});
    const st::File f = st::parse(file.data(), file.size());
    st::TensorInfo t = f.tensors[0];
    t.shape = {3};
    float out[3];
    CHECK_THROWS_WITH_AS(st::read_f32(f, t, out), doctest::Contains("'w'"), std::invalid_argument);
    t = f.tensors[0];
    t.begin += 4, t.end += 4;
    CHECK_THROWS_WITH_AS(st::read_f32(f, t, out), doctest::Contains("data section of 8 bytes"), std::invalid_argument);
  }
}

TEST_CASE("safetensors: every truncation of a valid file is refused") {
  const float v[6] = {1, 2, 3, 4, 5, 6};
  const Bytes file = st::write({{"a", {2, 3}, v}, {"b", {1}, v}}, {{"k", "v"}});
  REQUIRE_NOTHROW(st::parse(file.data(), file.size()));
  for (std::size_t n = 0; n < file.size(); ++n) {
    CAPTURE(n);
    const Bytes prefix(file.begin(),
                       file.begin() + static_cast<std::ptrdiff_t>(n));  // exact-size copy: ASan sees overreads
    CHECK(error_of(prefix) != "<no error>");
  }
}

TEST_CASE("safetensors: byte flips never crash") {
  const float v[6] = {1, 2, 3, 4, 5, 6};
  const Bytes file = st::write({{"a", {2, 3}, v}, {"b", {1}, v}}, {{"k", "v"}});
  for (std::size_t i = 0; i < file.size(); ++i) {
    for (int x : {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF}) {
      Bytes mutated = file;
      mutated[i] ^= static_cast<std::uint8_t>(x);
      parse_and_read(mutated, mutated.size());
    }
  }
}

#ifdef ATTNSEQ_TEST_DATA
TEST_CASE("safetensors: the PyTorch-written fixtures parse") {
  std::ifstream in(ATTNSEQ_TEST_DATA "/parity/gru_luong_dot.safetensors", std::ios::binary);
  REQUIRE(in.good());
  const Bytes file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const st::File f = st::parse(file.data(), file.size());
  REQUIRE(f.meta("style") != nullptr);
  CHECK(*f.meta("style") == "luong");
  const st::TensorInfo* out = f.find("decoder.out.weight");
  REQUIRE(out != nullptr);
  CHECK(out->shape == std::vector<std::int64_t>{11, 12});
  CHECK(read_all(f, *out).size() == 132);
}
#endif
