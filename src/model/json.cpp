// The JSON reader (recursive descent, depth-capped) and writer declared in json.hpp.
// Numbers go through strtod on a NUL-terminated copy of the token, after the JSON grammar has
// been checked by hand, so strtod never sees anything but a plain decimal number.
#include "model/json.hpp"

#include <algorithm>
#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace attnseq::json {

const Value* Value::find(std::string_view key) const {
  if (type != Type::Object) return nullptr;
  for (const auto& kv : object)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

namespace {

// strtod/snprintf follow the C locale's decimal point; JSON always uses '.'.
char locale_decimal_point() {
  const char* dp = std::localeconv()->decimal_point;
  return (dp && dp[0] && !dp[1]) ? dp[0] : '.';
}

// Byte text for messages: printable ASCII as 'c', anything else as 0xNN.
std::string describe_byte(unsigned char c) {
  char buf[16];
  if (c >= 0x20 && c < 0x7f)
    std::snprintf(buf, sizeof buf, "'%c'", c);
  else
    std::snprintf(buf, sizeof buf, "0x%02X", c);
  return buf;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Length of the well-formed UTF-8 sequence starting at s[i] (Unicode Table 3-7: no overlongs,
// no encoded surrogates, nothing above U+10FFFF), or 0 if it is malformed or truncated.
// On failure *bad is the offset (from i) of the first offending byte.
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::size_t* bad) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else
    return *bad = 0, 0;
  for (std::size_t k = 1; k < len; ++k) {
    if (i + k >= s.size()) return *bad = k, 0;
    const unsigned char lo_k = k == 1 ? lo : 0x80, hi_k = k == 1 ? hi : 0xBF;
    if (b(k) < lo_k || b(k) > hi_k) return *bad = k, 0;
  }
  return len;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Value document() {
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (pos_ < s_.size()) fail("unexpected " + describe_byte(byte()) + " after the value");
    return v;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const { fail_at(what, pos_); }
  [[noreturn]] static void fail_at(const std::string& what, std::size_t at) {
    throw std::invalid_argument("JSON: " + what + " at byte " + std::to_string(at));
  }
  unsigned char byte() const { return static_cast<unsigned char>(s_[pos_]); }
  bool at_end() const { return pos_ >= s_.size(); }
  unsigned char peek() {
    if (at_end()) fail("unexpected end of input");
    return byte();
  }
  void skip_ws() {
    while (!at_end() && (byte() == ' ' || byte() == '\t' || byte() == '\n' || byte() == '\r')) ++pos_;
  }
  void expect(char c, const char* context) {
    if (peek() != static_cast<unsigned char>(c))
      fail(std::string("expected '") + c + "' " + context + ", found " + describe_byte(byte()));
    ++pos_;
  }

  Value value(std::size_t depth) {
    const unsigned char c = peek();
    Value v;
    switch (c) {
      case '{': object(v, depth + 1); break;
      case '[': array(v, depth + 1); break;
      case '"':
        v.type = Value::Type::String;
        v.string = string();
        break;
      case 't':
        literal("true");
        v.type = Value::Type::Bool;
        v.boolean = true;
        break;
      case 'f':
        literal("false");
        v.type = Value::Type::Bool;
        break;
      case 'n': literal("null"); break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          v.type = Value::Type::Number;
          v.number = number();
        } else {
          fail("unexpected " + describe_byte(c));
        }
    }
    return v;
  }

  void literal(const char* word) {
    const std::size_t n = std::strlen(word);
    for (std::size_t k = 0; k < n; ++k, ++pos_)
      if (peek() != static_cast<unsigned char>(word[k]))
        fail(std::string("invalid literal (expected '") + word + "'), found " + describe_byte(byte()));
  }

  void enter(std::size_t depth) const {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
  }

  // Enters the container whose opening byte is at pos_; true when it closes at once ("[]", "{}").
  bool open_container(Value& v, Value::Type type, char close, std::size_t depth) {
    enter(depth);
    v.type = type;
    ++pos_;  // '[' or '{'
    skip_ws();
    if (peek() != close) return false;
    ++pos_;
    return true;
  }

  void array(Value& v, std::size_t depth) {
    if (open_container(v, Value::Type::Array, ']', depth)) return;
    for (;;) {
      skip_ws();
      v.array.push_back(value(depth));
      skip_ws();
      if (peek() == ']') return void(++pos_);
      expect(',', "or ']' in array");
    }
  }

  void object(Value& v, std::size_t depth) {
    if (open_container(v, Value::Type::Object, '}', depth)) return;
    std::vector<std::size_t> key_at;  // byte offset of each key, for the duplicate-key message
    for (;;) {
      skip_ws();
      if (peek() != '"') fail("expected a string key, found " + describe_byte(byte()));
      key_at.push_back(pos_);
      std::string key = string();
      skip_ws();
      expect(':', "after object key");
      skip_ws();
      v.object.emplace_back(std::move(key), value(depth));
      skip_ws();
      if (peek() == '}') break;
      expect(',', "or '}' in object");
    }
    ++pos_;
    check_duplicates(v, key_at);
  }

  // Sorting keeps this O(n log n) on hostile objects with many keys (a pairwise scan would not be).
  static void check_duplicates(const Value& v, const std::vector<std::size_t>& key_at) {
    const auto& o = v.object;
    if (o.size() < 2) return;
    std::vector<std::size_t> idx(o.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return o[a].first < o[b].first; });
    std::size_t first_dup = o.size();  // the earliest key (in text order) that repeats an earlier one
    for (std::size_t i = 1; i < idx.size(); ++i)
      if (o[idx[i]].first == o[idx[i - 1]].first) first_dup = std::min(first_dup, idx[i]);
    if (first_dup < o.size()) fail_at("duplicate key " + quote(o[first_dup].first), key_at[first_dup]);
  }

  std::uint32_t hex4() {
    std::uint32_t cp = 0;
    for (int k = 0; k < 4; ++k, ++pos_) {
      const unsigned char c = peek();
      cp <<= 4;
      if (c >= '0' && c <= '9')
        cp |= c - '0';
      else if (c >= 'a' && c <= 'f')
        cp |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        cp |= c - 'A' + 10;
      else
        fail("invalid hex digit " + describe_byte(c) + " in \\u escape");
    }
    return cp;
  }

  std::string string() {
    std::string out;
    ++pos_;  // opening quote
    for (;;) {
      const unsigned char c = peek();
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail("control character " + describe_byte(c) + " in string");
      if (c == '\\') {
        escape(out);
        continue;
      }
      std::size_t bad = 0;
      const std::size_t len = utf8_sequence(s_, pos_, &bad);
      if (len == 0) {
        if (pos_ + bad >= s_.size()) fail_at("unexpected end of input", s_.size());
        fail_at("invalid UTF-8 byte " + describe_byte(static_cast<unsigned char>(s_[pos_ + bad])) + " in string",
                pos_ + bad);
      }
      out.append(s_.data() + pos_, len);
      pos_ += len;
    }
  }

  void escape(std::string& out) {
    const std::size_t start = pos_;
    ++pos_;  // backslash
    const unsigned char c = peek();
    ++pos_;
    switch (c) {
      case '"': out += '"'; return;
      case '\\': out += '\\'; return;
      case '/': out += '/'; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case 'u': break;
      default: fail_at("invalid escape \\" + describe_byte(c), start);
    }
    std::uint32_t cp = hex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail_at("lone low surrogate in \\u escape", start);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      // A high surrogate is only valid immediately followed by an escaped low surrogate.
      if (pos_ + 1 >= s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
        fail_at("lone high surrogate in \\u escape", start);
      pos_ += 2;
      const std::uint32_t lo = hex4();
      if (lo < 0xDC00 || lo > 0xDFFF) fail_at("lone high surrogate in \\u escape", start);
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    append_utf8(out, cp);
  }

  bool digit() const { return !at_end() && byte() >= '0' && byte() <= '9'; }
  // The grammar needs a digit here; `where` names the part of the number that lacks one.
  void need_digit(const char* where) {
    if (!digit()) fail(std::string("expected a digit ") + where + ", found " + describe_byte(peek()));
  }

  double number() {
    const std::size_t start = pos_;
    if (byte() == '-') ++pos_;
    need_digit("in number");
    if (byte() == '0') {
      ++pos_;
      if (digit()) fail("leading zero in number");
    } else {
      while (digit()) ++pos_;
    }
    if (!at_end() && byte() == '.') {
      ++pos_;
      need_digit("after '.'");
      while (digit()) ++pos_;
    }
    if (!at_end() && (byte() == 'e' || byte() == 'E')) {
      ++pos_;
      if (!at_end() && (byte() == '+' || byte() == '-')) ++pos_;
      need_digit("in exponent");
      while (digit()) ++pos_;
    }
    // strtod needs a terminator, and the caller's text need not have one: copy the token.
    std::string token(s_.substr(start, pos_ - start));
    const char dp = locale_decimal_point();
    if (dp != '.') std::replace(token.begin(), token.end(), '.', dp);
    const double d = std::strtod(token.c_str(), nullptr);
    if (std::isinf(d)) fail_at("number out of range", start);  // underflow to 0 is fine
    return d;
  }
};

void dump_number(std::string& out, double d) {
  if (!std::isfinite(d)) throw std::invalid_argument("JSON: cannot serialise a non-finite number");
  if (d == 0) {
    out += std::signbit(d) ? "-0" : "0";
    return;
  }
  char buf[40];
  if (d == std::floor(d) && std::fabs(d) < 1e16) {  // exactly representable integer: print every digit
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(d));
    out += buf;
    return;
  }
  // Shortest round trip: the first precision whose text reads back to the same double (17 always does).
  const char dp = locale_decimal_point();
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string text(buf);
  if (dp != '.') std::replace(text.begin(), text.end(), dp, '.');
  out += text;
}

// Values built in code can nest arbitrarily; capping here keeps dump's recursion bounded and
// guarantees its output parses back.
void dump_into(std::string& out, const Value& v, std::size_t depth) {
  if ((v.is_array() || v.is_object()) && depth + 1 > kMaxDepth)
    throw std::invalid_argument("JSON: cannot serialise nesting deeper than " + std::to_string(kMaxDepth));
  switch (v.type) {
    case Value::Type::Null: out += "null"; break;
    case Value::Type::Bool: out += v.boolean ? "true" : "false"; break;
    case Value::Type::Number: dump_number(out, v.number); break;
    case Value::Type::String: out += quote(v.string); break;
    case Value::Type::Array:
      out += '[';
      for (std::size_t i = 0; i < v.array.size(); ++i) {
        if (i) out += ',';
        dump_into(out, v.array[i], depth + 1);
      }
      out += ']';
      break;
    case Value::Type::Object:
      out += '{';
      for (std::size_t i = 0; i < v.object.size(); ++i) {
        if (i) out += ',';
        out += quote(v.object[i].first);
        out += ':';
        dump_into(out, v.object[i].second, depth + 1);
      }
      out += '}';
      break;
  }
}

}  // namespace

Value parse(std::string_view text) { return Parser(text).document(); }

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);  // sized by the caller's own string, not by anything it claims
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        ++i;
        continue;
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '\b':
        out += "\\b";
        ++i;
        continue;
      case '\f':
        out += "\\f";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      default: break;
    }
    if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      ++i;
      continue;
    }
    std::size_t bad = 0;
    const std::size_t len = utf8_sequence(s, i, &bad);
    if (len == 0) {
      out += "\\ufffd";
      i += bad ? bad : 1;  // skip the malformed prefix, resynchronise on the offending byte
      continue;
    }
    out.append(s.data() + i, len);
    i += len;
  }
  out += '"';
  return out;
}

std::string dump(const Value& v) {
  std::string out;
  dump_into(out, v, 0);
  return out;
}

}  // namespace attnseq::json
