// Tests for the JSON reader/writer (src/model/json.hpp): round trips of valid documents, one
// case per kind of invalid input (each must name its byte offset), the depth cap, and a small
// deterministic mutation fuzz that must only ever produce values or std::invalid_argument.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "model/json.hpp"

using attnseq::json::Value;
namespace json = attnseq::json;

namespace {

// Structural equality; numbers bit for bit so that -0 and 0 differ.
bool same(const Value& a, const Value& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case Value::Type::Null: return true;
    case Value::Type::Bool: return a.boolean == b.boolean;
    case Value::Type::Number: return std::memcmp(&a.number, &b.number, sizeof(double)) == 0;
    case Value::Type::String: return a.string == b.string;
    case Value::Type::Array:
      if (a.array.size() != b.array.size()) return false;
      for (std::size_t i = 0; i < a.array.size(); ++i)
        if (!same(a.array[i], b.array[i])) return false;
      return true;
    case Value::Type::Object:
      if (a.object.size() != b.object.size()) return false;
      for (std::size_t i = 0; i < a.object.size(); ++i)
        if (a.object[i].first != b.object[i].first || !same(a.object[i].second, b.object[i].second)) return false;
      return true;
  }
  return false;
}

// The message of the std::invalid_argument parse() throws, or "<no error>".
// Any other exception type escapes and fails the test.
std::string error_of(std::string_view text) {
  try {
    json::parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no error>";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

double parse_number(const char* text) {
  const Value v = json::parse(text);
  REQUIRE(v.is_number());
  return v.number;
}

}  // namespace

TEST_CASE("json: scalars") {
  CHECK(json::parse("null").is_null());
  CHECK(json::parse(" true ").boolean);
  CHECK(json::parse("true").is_bool());
  CHECK_FALSE(json::parse("\t\r\nfalse\n").boolean);
  CHECK(json::parse("\"\"").is_string());
  CHECK(json::parse("[]").is_array());
  CHECK(json::parse("{}").is_object());
  CHECK(json::parse("{}").find("a") == nullptr);
  CHECK(json::parse("[1]").find("a") == nullptr);
}

TEST_CASE("json: nested document round trip keeps order") {
  const char* text = R"( { "b" : [1, 2.5, -3e2, {"x": null}], "a": {"nested": [[], {}, [true, false]]},
                          "s": "tab\there", "z": -0 } )";
  const Value v = json::parse(text);
  REQUIRE(v.is_object());
  REQUIRE(v.object.size() == 4);
  CHECK(v.object[0].first == "b");  // insertion order, not sorted
  CHECK(v.object[1].first == "a");
  CHECK(v.find("b")->array[2].number == -300);
  CHECK(v.find("b")->array[3].find("x")->is_null());
  CHECK(v.find("s")->string == "tab\there");
  CHECK(std::signbit(v.find("z")->number));
  const std::string compact = json::dump(v);
  CHECK(compact == R"({"b":[1,2.5,-300,{"x":null}],"a":{"nested":[[],{},[true,false]]},"s":"tab\there","z":-0})");
  CHECK(same(json::parse(compact), v));
  CHECK(json::dump(json::parse(compact)) == compact);
}

TEST_CASE("json: string escapes and unicode") {
  CHECK(json::parse(R"("\" \\ \/ \b \f \n \r \t")").string == "\" \\ / \b \f \n \r \t");
  CHECK(json::parse(R"("\u0041\u00e9\u20AC")").string == "A\xC3\xA9\xE2\x82\xAC");
  CHECK(json::parse(R"("\ud83d\ude00")").string == "\xF0\x9F\x98\x80");  // U+1F600 via a surrogate pair
  CHECK(json::parse(R"("\uDBFF\uDFFF")").string == "\xF4\x8F\xBF\xBF");  // U+10FFFF, the last code point
  CHECK(json::parse("\"\xEC\xA0\x9C\xEC\x9D\xB8\xEC\x9D\xB4\"").string == "\xEC\xA0\x9C\xEC\x9D\xB8\xEC\x9D\xB4");
  CHECK(json::parse("\"\xF0\x9F\x98\x80 \x7F\"").string == "\xF0\x9F\x98\x80 \x7F");  // raw UTF-8, DEL allowed
  const Value nul = json::parse(R"("a\u0000b")");
  CHECK(nul.string == std::string("a\0b", 3));

  CHECK(json::quote("a\n") == "\"a\\n\"");
  CHECK(json::quote("q\"b\\") == "\"q\\\"b\\\\\"");
  CHECK(json::quote(std::string("\x01\x1f\0", 3)) == "\"\\u0001\\u001f\\u0000\"");
  CHECK(json::quote("\xC3\xA9") == "\"\xC3\xA9\"");  // valid UTF-8 is kept as is
  CHECK(json::quote("a\xFF"
                    "b\xE2\x82") == "\"a\\ufffdb\\ufffd\"");  // invalid bytes become U+FFFD
  for (const char* s : {"", "plain", "\x01\x02\x7f", "\xF0\x9F\x98\x80\xC3", "\xED\xA0\x80", "\"\\/"}) {
    CAPTURE(s);
    CHECK_NOTHROW(json::parse(json::quote(s)));
  }
  const std::string every_control = [] {
    std::string s;
    for (int c = 0; c < 0x20; ++c) s += static_cast<char>(c);
    return s;
  }();
  CHECK(json::parse(json::quote(every_control)).string == every_control);
}

TEST_CASE("json: numbers") {
  CHECK(parse_number("0") == 0);
  CHECK_FALSE(std::signbit(parse_number("0")));
  CHECK(std::signbit(parse_number("-0")));
  CHECK(std::signbit(parse_number("-0.0e5")));
  CHECK(parse_number("-123") == -123);
  CHECK(parse_number("1.5e3") == 1500);
  CHECK(parse_number("1E-2") == 0.01);
  CHECK(parse_number("2e+2") == 200);
  CHECK(parse_number("0.1") == 0.1);
  CHECK(parse_number("1.7976931348623157e308") == 1.7976931348623157e308);
  CHECK(parse_number("5e-324") == 5e-324);
  CHECK(parse_number("1e-400") == 0);  // underflow rounds to zero; only overflow is refused
  CHECK(parse_number("9007199254740993") == 9007199254740992.0);

  Value n;
  n.type = Value::Type::Number;
  const auto dumped = [&](double d) { return n.number = d, json::dump(n); };
  CHECK(dumped(3.0) == "3");
  CHECK(dumped(-42) == "-42");
  CHECK(dumped(0.0) == "0");
  CHECK(dumped(-0.0) == "-0");
  CHECK(dumped(0.1) == "0.1");
  CHECK(dumped(1.5) == "1.5");
  CHECK(dumped(123456789012345.0) == "123456789012345");
  CHECK(dumped(1e300) == "1e+300");
  CHECK(dumped(5e-324) == "5e-324");
  for (double d : {0.1, 1.0 / 3, -2.5e-8, 1e16, 9007199254740993.0, 1.7976931348623157e308, 5e-324,
                   2.2250738585072014e-308, 123.456, -0.0, 6.02214076e23, 1e21, 1e15 + 0.5}) {
    CAPTURE(d);
    CHECK(parse_number(dumped(d).c_str()) == d);
    CHECK(dumped(d).size() <= 24);  // shortest form, not %.17g everywhere
  }
  n.number = std::nan("");
  CHECK_THROWS_AS(json::dump(n), std::invalid_argument);
  n.number = HUGE_VAL;
  CHECK_THROWS_AS(json::dump(n), std::invalid_argument);
}

TEST_CASE("json: every kind of invalid input names its byte offset") {
  struct Case {
    std::string text;
    const char* what;
    std::size_t at;
  };
  const Case cases[] = {
      {"", "unexpected end of input", 0},
      {"   ", "unexpected end of input", 3},
      {"[1,]", "unexpected ']'", 3},
      {"[1 2]", "expected ','", 3},
      {"[1,2", "unexpected end of input", 4},
      {"[", "unexpected end of input", 1},
      {"{\"a\" 1}", "expected ':'", 5},
      {"{\"a\":1,}", "expected a string key", 7},
      {"{1:2}", "expected a string key", 1},
      {"{\"a\":1", "unexpected end of input", 6},
      {"{\"a\":1 \"b\":2}", "expected ','", 7},
      {"{\"a\":1,\"b\":2,\"a\":3}", "duplicate key \"a\"", 13},
      {"{\"k\":{\"x\":1,\"x\":1}}", "duplicate key \"x\"", 12},
      {"01", "leading zero", 1},
      {"-", "unexpected end of input", 1},
      {"-a", "expected a digit", 1},
      {"1.", "unexpected end of input", 2},
      {"1.e5", "expected a digit after '.'", 2},
      {"1e", "unexpected end of input", 2},
      {"1e+x", "expected a digit in exponent", 3},
      {"+1", "unexpected '+'", 0},
      {".5", "unexpected '.'", 0},
      {"NaN", "unexpected 'N'", 0},
      {"-Infinity", "expected a digit", 1},
      {"1e400", "number out of range", 0},
      {"[0, -1e309]", "number out of range", 4},
      {"tru", "unexpected end of input", 3},
      {"trux", "invalid literal", 3},
      {"nul", "unexpected end of input", 3},
      {"falsy", "invalid literal", 4},
      {"1 2", "after the value", 2},
      {"[1]x", "unexpected 'x' after the value", 3},
      {std::string("[1]\0", 4), "unexpected 0x00 after the value", 3},
      {"/* c */ 1", "unexpected '/'", 0},
      {"'a'", "unexpected '''", 0},
      {"\"abc", "unexpected end of input", 4},
      {"\"a\x01\"", "control character 0x01", 2},
      {"\"a\tb\"", "control character 0x09", 2},
      {"\"\\x\"", "invalid escape", 1},
      {"\"\\", "unexpected end of input", 2},
      {"\"\\u12G4\"", "invalid hex digit 'G'", 5},
      {"\"\\u12", "unexpected end of input", 5},
      {"\"\\ud800\"", "lone high surrogate", 1},
      {"\"ab\\ud800\\u0041\"", "lone high surrogate", 3},
      {"\"\\ud800\\n\"", "lone high surrogate", 1},
      {"\"\\udc00\"", "lone low surrogate", 1},
      {"\"\xFF\"", "invalid UTF-8 byte 0xFF", 1},
      {"\"\xC0\xAF\"", "invalid UTF-8 byte 0xC0", 1},          // overlong '/'
      {"\"\xE0\x80\xAF\"", "invalid UTF-8 byte 0x80", 2},      // overlong 3-byte form
      {"\"\xED\xA0\x80\"", "invalid UTF-8 byte 0xA0", 2},      // encoded surrogate U+D800
      {"\"\xF4\x90\x80\x80\"", "invalid UTF-8 byte 0x90", 2},  // above U+10FFFF
      {"\"\xF5\x80\x80\x80\"", "invalid UTF-8 byte 0xF5", 1},
      {"\"\x80\"", "invalid UTF-8 byte 0x80", 1},       // stray continuation byte
      {"\"x\xE2\x82\"", "invalid UTF-8 byte '\"'", 4},  // truncated sequence, then the closing quote
      {"\"\xE2\x82", "unexpected end of input", 3},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string msg = error_of(c.text);
    CHECK(msg.rfind("JSON: ", 0) == 0);
    CHECK(msg.find(c.what) != std::string::npos);
    CHECK(ends_with(msg, " at byte " + std::to_string(c.at)));
    if (msg.find(c.what) == std::string::npos || !ends_with(msg, " at byte " + std::to_string(c.at)))
      MESSAGE("got: " << msg);
  }
}

TEST_CASE("json: the text need not be NUL-terminated") {
  const char buf[] = {'[', '1', '2', '3', ']', '4', '5'};
  CHECK(json::parse(std::string_view(buf, 4 + 1)).array[0].number == 123);
  CHECK(json::parse(std::string_view(buf + 1, 2)).number == 12);  // "12" followed in memory by '3'
  CHECK(ends_with(error_of(std::string_view(buf, 3)), "at byte 3"));
}

TEST_CASE("json: nesting is capped at 64") {
  const auto nest = [](std::size_t depth, const char* open, const char* close) {
    std::string s;
    for (std::size_t i = 0; i < depth; ++i) s += open;
    s += "1";
    for (std::size_t i = 0; i < depth; ++i) s += close;
    return s;
  };
  CHECK_NOTHROW(json::parse(nest(64, "[", "]")));
  CHECK_NOTHROW(json::parse(nest(64, "{\"a\":", "}")));
  CHECK(error_of(nest(65, "[", "]")) == "JSON: nesting deeper than 64 at byte 64");
  CHECK(ends_with(error_of(nest(65, "{\"a\":", "}")), "at byte " + std::to_string(64 * 5)));
  // Bombs far deeper than any stack would survive without the cap.
  CHECK(error_of(nest(10000, "[", "]")) == "JSON: nesting deeper than 64 at byte 64");
  CHECK(error_of(nest(10000, "{\"a\":", "}")).find("nesting deeper than 64") != std::string::npos);
  CHECK(error_of(std::string(1000000, '[')).find("nesting deeper than 64") != std::string::npos);
  CHECK(error_of(nest(10000, "[1,", "]")).find("nesting deeper than 64") != std::string::npos);

  // dump refuses what parse would refuse, rather than recursing without bound.
  Value deep;
  Value* p = &deep;
  for (int i = 0; i < 65; ++i) {
    p->type = Value::Type::Array;
    p->array.emplace_back();
    p = &p->array.back();
  }
  CHECK_THROWS_AS(json::dump(deep), std::invalid_argument);
  CHECK_NOTHROW(json::dump(deep.array[0]));
}

TEST_CASE("json: every strict prefix of a document is refused") {
  const std::string doc = R"({"a":[1,-2.5e-3,true,false,null],"\u00e9\ud83d\ude00":"x\n\"y\"","o":{"k":[{}]},"n":0.5})";
  REQUIRE_NOTHROW(json::parse(doc));
  for (std::size_t n = 0; n < doc.size(); ++n) {
    CAPTURE(n);
    CHECK(error_of(doc.substr(0, n)) != "<no error>");
  }
}

TEST_CASE("json: mutation fuzz only yields values or std::invalid_argument") {
  const std::string seed = R"({"k":[1,2.5e3,-0,"s\u00e9\ud83d\ude00",true,null,{"x":[[]]}],"\u20ac":"\u00ff"})";
  const char alphabet[] = "{}[]\",:\\u0123456789eE+-.truefalsn \t\x01\x7f\x80\xbf\xc3\xed\xf0\xff";
  std::uint32_t state = 12345;
  const auto next = [&] { return state = state * 1664525u + 1013904223u, state >> 8; };
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s = seed;
    for (int m = 0, count = 1 + next() % 4; m < count; ++m) {
      const std::size_t at = next() % (s.size() + 1);
      const char c = alphabet[next() % (sizeof alphabet - 1)];
      switch (next() % 3) {
        case 0:
          if (at < s.size()) s[at] = c;
          break;
        case 1: s.insert(s.begin() + at, c); break;
        default:
          if (at < s.size()) s.erase(at, 1);
          break;
      }
    }
    try {
      const Value v = json::parse(s);
      ++parsed;
      CHECK(same(json::parse(json::dump(v)), v));  // whatever parses also survives a round trip
    } catch (const std::invalid_argument&) {
    }
  }
  CHECK(parsed > 0);
}
