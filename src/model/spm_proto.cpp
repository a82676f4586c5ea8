// The protobuf wire format, as much as a ModelProto needs: varints (wire type 0), fixed64 (1),
// length-delimited bytes (2) and fixed32 (5). Every read checks the bytes left first; unknown fields
// are skipped by their wire type, so files from newer SentencePiece versions still load.
#include "model/spm_proto.hpp"

#include <cstring>
#include <utility>

#include "core/errors.hpp"

namespace attnseq {
namespace {

class Reader {
 public:
  Reader(std::string_view bytes, std::size_t base, std::string where)
      : b_(bytes), base_(base), where_(std::move(where)) {}
  bool done() const { return pos_ >= b_.size(); }
  std::size_t offset() const { return base_ + pos_; }

  [[noreturn]] void fail(const std::string& what) const {
    raise(ErrorKind::BadCheckpoint, where_ + ": " + what + " at byte " + std::to_string(offset()));
  }

  std::uint64_t varint(const char* field) {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) fail(std::string("truncated varint (") + field + ")");
      const auto c = static_cast<unsigned char>(b_[pos_++]);
      if (shift == 63 && c > 1) fail(std::string("varint over 64 bits (") + field + ")");
      v |= std::uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80)) return v;
    }
    fail(std::string("varint over 64 bits (") + field + ")");  // not reached: byte 10 is checked above
  }
  std::string_view bytes(const char* field, std::size_t* start) {
    const std::uint64_t n = varint(field);
    if (n > b_.size() - pos_)
      fail(std::string("length ") + std::to_string(n) + " of " + field + " past the end (" +
           std::to_string(b_.size() - pos_) + " bytes left)");
    *start = offset();
    const auto s = b_.substr(pos_, std::size_t(n));
    pos_ += std::size_t(n);
    return s;
  }
  float fixed32(const char* field) {
    if (b_.size() - pos_ < 4) fail(std::string("truncated fixed32 (") + field + ")");
    unsigned char c[4];
    std::memcpy(c, b_.data() + pos_, 4);
    pos_ += 4;
    const std::uint32_t u = std::uint32_t(c[0]) | std::uint32_t(c[1]) << 8 | std::uint32_t(c[2]) << 16 |
                            std::uint32_t(c[3]) << 24;  // little-endian on the wire, whatever the host
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  // A field's key: its number and wire type; 0 and numbers over 2^29 are not protobuf.
  std::pair<std::uint32_t, int> key() {
    const std::uint64_t k = varint("field key");
    if ((k >> 3) == 0 || (k >> 3) > 0x1fffffff) fail("bad field number " + std::to_string(k >> 3));
    return {std::uint32_t(k >> 3), int(k & 7)};
  }
  void skip(int wire, std::uint32_t number) {
    const std::string f = "field " + std::to_string(number);
    std::size_t start;
    switch (wire) {
      case 0: varint(f.c_str()); return;
      case 1:
        if (b_.size() - pos_ < 8) fail("truncated fixed64 (" + f + ")");
        pos_ += 8;
        return;
      case 2: bytes(f.c_str(), &start); return;
      case 5: fixed32(f.c_str()); return;
      default: fail("unsupported wire type " + std::to_string(wire) + " (" + f + ")");
    }
  }
  void expect(int wire, int want, const char* field) {
    if (wire != want)
      fail(std::string(field) + " has wire type " + std::to_string(wire) + ", not " + std::to_string(want));
  }

 private:
  std::string_view b_;
  std::size_t pos_ = 0, base_;
  std::string where_;
};

// Field readers that check the wire type first: the value of a varint field, a sub-message's reader.
std::uint64_t read_varint(Reader& r, int wire, const char* field) {
  r.expect(wire, 0, field);
  return r.varint(field);
}
bool read_bool(Reader& r, int wire, const char* field) { return read_varint(r, wire, field) != 0; }
int read_int32(Reader& r, int wire, const char* field) {
  return static_cast<int>(static_cast<std::int32_t>(read_varint(r, wire, field)));  // proto int32 wraps
}
std::string read_string(Reader& r, int wire, const char* field) {
  r.expect(wire, 2, field);
  std::size_t start;
  return std::string(r.bytes(field, &start));
}
Reader sub(Reader& r, int wire, const char* field, const std::string& where) {
  r.expect(wire, 2, field);
  std::size_t start;
  const auto s = r.bytes(field, &start);
  return Reader(s, start, where);
}

SpmPiece read_piece(Reader r) {
  SpmPiece p;
  while (!r.done()) {
    const auto [num, wire] = r.key();
    if (num == 1) {
      p.piece = read_string(r, wire, "piece");
    } else if (num == 2) {
      r.expect(wire, 5, "score");
      p.score = r.fixed32("score");
    } else if (num == 3) {
      const auto t = read_varint(r, wire, "type");
      if (t < 1 || t > 6) r.fail("piece type " + std::to_string(t) + " is not one of 1-6");
      p.type = static_cast<SpmPieceType>(t);
    } else {
      r.skip(wire, num);
    }
  }
  return p;
}

void read_trainer(Reader r, SpmTrainerSpec& t) {
  while (!r.done()) {
    const auto [num, wire] = r.key();
    switch (num) {
      case 3: {
        const auto m = read_varint(r, wire, "model_type");
        if (m < 1 || m > 4) r.fail("model_type " + std::to_string(m) + " is not one of 1-4");
        t.model_type = static_cast<SpmModelType>(m);
        break;
      }
      case 24: t.treat_whitespace_as_suffix = read_bool(r, wire, "treat_whitespace_as_suffix"); break;
      case 35: t.byte_fallback = read_bool(r, wire, "byte_fallback"); break;
      case 40: t.unk_id = read_int32(r, wire, "unk_id"); break;
      case 41: t.bos_id = read_int32(r, wire, "bos_id"); break;
      case 42: t.eos_id = read_int32(r, wire, "eos_id"); break;
      case 43: t.pad_id = read_int32(r, wire, "pad_id"); break;
      case 44: t.unk_surface = read_string(r, wire, "unk_surface"); break;
      case 45: t.unk_piece = read_string(r, wire, "unk_piece"); break;
      case 46: t.bos_piece = read_string(r, wire, "bos_piece"); break;
      case 47: t.eos_piece = read_string(r, wire, "eos_piece"); break;
      case 48: t.pad_piece = read_string(r, wire, "pad_piece"); break;
      default: r.skip(wire, num);
    }
  }
}

// Returns whether the spec has rules (a charsmap): for a denormalizer, whether it would change text.
bool read_normalizer(Reader r, SpmNormalizerSpec& n) {
  while (!r.done()) {
    const auto [num, wire] = r.key();
    switch (num) {
      case 1: n.name = read_string(r, wire, "normalizer name"); break;
      case 2: n.precompiled_charsmap = read_string(r, wire, "precompiled_charsmap"); break;
      case 3: n.add_dummy_prefix = read_bool(r, wire, "add_dummy_prefix"); break;
      case 4: n.remove_extra_whitespaces = read_bool(r, wire, "remove_extra_whitespaces"); break;
      case 5: n.escape_whitespaces = read_bool(r, wire, "escape_whitespaces"); break;
      default: r.skip(wire, num);
    }
  }
  return !n.precompiled_charsmap.empty();
}

}  // namespace

SpmModel parse_spm_model(std::string_view bytes, const std::string& name) {
  SpmModel m;
  Reader r(bytes, 0, name);
  if (bytes.empty()) r.fail("empty file, not a SentencePiece model");
  while (!r.done()) {
    const auto [num, wire] = r.key();
    if (num == 1) {
      m.pieces.push_back(read_piece(sub(r, wire, "pieces", name + ": piece " + std::to_string(m.pieces.size()))));
    } else if (num == 2) {
      read_trainer(sub(r, wire, "trainer_spec", name + ": trainer_spec"), m.trainer);
    } else if (num == 3) {
      read_normalizer(sub(r, wire, "normalizer_spec", name + ": normalizer_spec"), m.normalizer);
    } else if (num == 5) {
      SpmNormalizerSpec d;
      m.has_denormalizer = read_normalizer(sub(r, wire, "denormalizer_spec", name + ": denormalizer_spec"), d);
    } else {
      r.skip(wire, num);
    }
  }
  if (m.pieces.empty()) r.fail("no pieces (not a SentencePiece model)");
  return m;
}

}  // namespace attnseq
