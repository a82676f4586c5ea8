// The decode options' table (decode/options.hpp) on the command line: `translate` takes the rows of
// scope kScopeOne, `eval` those of kScopeEval.
#pragma once
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "decode/options.hpp"

namespace attnseq::cli {

// The row as a help line: its flag, value name, default (none when 0 means "automatic") and help.
inline Option as_cli_option(const DecodeOptionSpec& s) {
  std::string help = s.help;
  if (*s.note) help += std::string(" (") + s.note + ")";
  return {s.flag, s.metavar, *s.note ? "" : default_text(s), help};
}

// Every row with a flag whose scope meets `scope` (decode/options.hpp, OptionScope), in the table's order.
inline std::vector<Option> decode_cli_options(unsigned scope) {
  std::vector<Option> out;
  for (const auto& s : decode_option_table())
    if (*s.flag && (s.scope & scope)) out.push_back(as_cli_option(s));
  return out;
}

// Sets s's member of o from the text given to its flag; throws UsageError naming the flag.
inline void set_from_flag(DecodeOptions& o, const DecodeOptionSpec& s, const std::string& v) {
  double x = 1;
  if (s.kind == OptionKind::Integer) {
    x = double(parse_int_in(s.flag, v, std::int64_t(s.min), std::int64_t(s.max)));
  } else if (s.kind == OptionKind::Number) {
    x = parse_number(s.flag, v);
    const std::string e = option_value_error(s, x, s.flag);
    if (!e.empty()) throw UsageError(e);
  }
  s.set(o, x);
}

}  // namespace attnseq::cli
