// The decode options' one table: each option's names (C++, JavaScript, command line), kind, range,
// default and help, which validate(), the wasm bindings, the command lines and the npm package's
// wrapper all read (the wrapper through the bindings' `decodeOptions`). Adding a decode option is a
// member of DecodeOptions (decode.hpp), a row here, and the code that uses it.
// `prefix` (token ids or text) is not a number and is read by each surface itself.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "decode/decode.hpp"

namespace attnseq {

enum class OptionKind { Integer, Number, Flag };

// Where an option applies (DecodeOptionSpec::scope, a sum of these).
enum OptionScope : unsigned {
  kScopeOne = 1,    // decoding one source: translate(), the command line's translate
  kScopeBatch = 2,  // decoding many at once: translateBatch(), translateStream(), a pool
  kScopeStep = 4,   // the step-by-step decoder (Session, decoder())
  kScopeEval = 8,   // scoring against references: eval --pron, eval --src/--tgt
};

struct DecodeOptionSpec {
  const char* key;      // C++ member and JSON name: "length_penalty"
  const char* js;       // the npm package's name: "lengthPenalty"
  const char* flag;     // the command lines': "--length-penalty"
  const char* metavar;  // the command lines' value name: "A" ("" for a switch)
  OptionKind kind;
  double min, max;   // the range, both ends included (a Flag: 0 and 1)
  const char* note;  // what the range leaves unsaid ("0 = automatic"), or ""
  const char* help;  // one line
  unsigned scope;    // OptionScope bits
  double (*get)(const DecodeOptions&);
  void (*set)(DecodeOptions&, double);
};

// Every decode option, in the order help lists them.
const std::vector<DecodeOptionSpec>& decode_option_table();
// The option of that JavaScript name or command-line flag; nullptr when there is none.
const DecodeOptionSpec* decode_option_by_js(const std::string& js);
const DecodeOptionSpec* decode_option_by_flag(const std::string& flag);
// o's value of the option as a person writes it ("5", "1.2", "true"), and the default's.
std::string value_text(const DecodeOptionSpec& s, const DecodeOptions& o);
std::string default_text(const DecodeOptionSpec& s);
// "" when x is a value of the option, else what is wrong, naming it as `label` ("beam is 0; it must be
// in [1, 64]", "option 'beam' must be an integer").
std::string option_value_error(const DecodeOptionSpec& s, double x, const std::string& label);

}  // namespace attnseq
