// A small, strict JSON (RFC 8259) reader and writer: enough for safetensors headers, checkpoint
// metadata (vocabularies) and test fixtures. Parsing is fuzz-safe: nesting is capped at kMaxDepth,
// every error is a std::invalid_argument("JSON: <what> at byte N"), and memory grows only with the
// text actually read. Interpreting the values (which keys, which types) is left to the callers.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnseq::json {

constexpr std::size_t kMaxDepth = 64;  // arrays/objects nested deeper than this are refused

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string string;  // UTF-8
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;  // insertion order kept; duplicate keys are a parse error
  const Value* find(std::string_view key) const;      // nullptr if not an object or key absent
  bool is_null() const { return type == Type::Null; }
  bool is_bool() const { return type == Type::Bool; }
  bool is_number() const { return type == Type::Number; }
  bool is_string() const { return type == Type::String; }
  bool is_array() const { return type == Type::Array; }
  bool is_object() const { return type == Type::Object; }
};

// The whole text must be one JSON value (surrounding whitespace is fine).
// Throws std::invalid_argument("JSON: <what> at byte N").
Value parse(std::string_view text);

// A JSON string literal with quotes and escapes ("\"a\\n\""). Bytes that are not valid UTF-8
// become U+FFFD, so the result always parses.
std::string quote(std::string_view s);

// Compact serialisation: no whitespace, object keys in stored order, numbers as the shortest text
// that reads back to the same double (integers without ".0", negative zero as "-0").
// Throws std::invalid_argument for NaN or infinity (JSON cannot express them) and for nesting
// deeper than kMaxDepth (parse would refuse the result).
std::string dump(const Value& v);

}  // namespace attnseq::json
