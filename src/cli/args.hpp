// Number parsing shared by the CLI's subcommands: the whole string must be the number (no blanks,
// no trailing text), integers must lie in the range the flag allows (so nothing is cut to fewer
// bits on the way to an int), numbers must be finite floats, and the error names the flag and value.
// Also each subcommand's option table, which both its parser (parse_flags) and its --help read.
#pragma once
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel.hpp"  // kMaxThreads

namespace attnseq::cli {

// A command line the command cannot take as given: an unknown, repeated or missing option, a missing
// value, a stray argument, a value not of its option's form or range. main() exits 2 for it, as
// `npx attnseq` does; every other failure (a file, a checkpoint, the input text) exits 1.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// One option of a subcommand: the parser accepts exactly the flags in the command's table and takes
// an absent option's value from `def`, so `--help` prints the defaults the parser really uses.
struct Option {
  std::string flag;   // "--beam"
  std::string value;  // value name ("K"), empty for a switch
  std::string def;    // the value used when the option is absent; empty: none (or stated in `help`)
  std::string help;   // one line
};

// Options several commands take, worded once.
inline Option help_option() { return {"--help", "", "", "print this help"}; }
inline Option json_option(const std::string& help = "print one JSON object") { return {"--json", "", "", help}; }
// --threads N: `what` shares the work (default every core, at most kMaxThreads); `same` says what
// does not depend on the count.
inline Option threads_option(const std::string& what, const std::string& same = "") {
  return {
      "--threads", "N", "",
      what + " (default: every core, at most " + std::to_string(kMaxThreads) + (same.empty() ? "" : "; " + same) + ")"};
}

inline const Option* find_option(const std::vector<Option>& table, const std::string& flag) {
  for (const auto& o : table)
    if (o.flag == flag) return &o;
  return nullptr;
}

// The default the parser uses for `flag`; asking for a flag the table lacks is a programming error.
inline const std::string& default_of(const std::vector<Option>& table, const std::string& flag) {
  const Option* o = find_option(table, flag);
  if (!o) throw std::logic_error("no option " + flag + " in the table");
  return o->def;
}

// `attnseq COMMAND --help`: the synopsis, then one line per option with its default.
inline std::string help_text(const std::string& synopsis, const std::vector<Option>& table) {
  std::string out = "usage: " + synopsis + "\n\noptions:\n";
  for (const auto& o : table) {
    std::string left = "  " + o.flag + (o.value.empty() ? "" : " " + o.value);
    left += left.size() < 26 ? std::string(26 - left.size(), ' ') : "  ";
    out += left + o.help + (o.def.empty() ? "" : " (default " + o.def + ")") + "\n";
  }
  return out;
}

// A parsed command line: each flag without its "--" ("beam"), with its value or as a switch.
struct Flags {
  std::vector<std::pair<std::string, std::string>> kv;
  std::vector<std::string> bools;
  const std::string* get(const std::string& k) const {
    for (const auto& p : kv)
      if (p.first == k) return &p.second;
    return nullptr;
  }
  bool has(const std::string& k) const {
    for (const auto& b : bools)
      if (b == k) return true;
    return false;
  }
  std::vector<std::string> all(const std::string& k) const {  // every value of a repeatable flag, in order
    std::vector<std::string> v;
    for (const auto& p : kv)
      if (p.first == k) v.push_back(p.second);
    return v;
  }
};

// `table` lists the flags the command takes (a value name: the flag takes a value; none: a switch);
// anything else, and a flag given twice, is refused (but for those in `repeatable`, which collect every
// value: Flags::all). An argument that is not a flag is refused too, unless the command takes them
// (`positional` given: they are collected there, in order). --help stops the parse: the command prints
// its help and nothing else.
inline Flags parse_flags(const char* command, const std::vector<std::string>& a, const std::vector<Option>& table,
                         const std::vector<std::string>& repeatable = {},
                         std::vector<std::string>* positional = nullptr) {
  Flags f;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].rfind("--", 0) != 0) {
      if (!positional) throw UsageError("unexpected argument '" + a[i] + "'");
      positional->push_back(a[i]);
      continue;
    }
    const Option* o = find_option(table, a[i]);
    if (!o) throw UsageError("unknown option " + a[i] + " for '" + command + "'");
    const std::string k = a[i].substr(2);
    // A repeated option would silently lose one of its values.
    const bool repeats = std::find(repeatable.begin(), repeatable.end(), k) != repeatable.end();
    if (!repeats && (f.get(k) || f.has(k))) throw UsageError(a[i] + " is given twice");
    if (o->value.empty()) {
      f.bools.push_back(k);
      if (k == "help") return f;
      continue;
    }
    if (i + 1 >= a.size()) throw UsageError(a[i] + " needs a value");
    f.kv.push_back({k, a[++i]});
  }
  return f;
}

// `attnseq COMMAND --help`, printed: "usage: attnseq COMMAND SYNOPSIS", then the table.
inline void print_help(const std::string& command, const std::string& synopsis, const std::vector<Option>& table) {
  std::fputs(help_text("attnseq " + command + " " + synopsis, table).c_str(), stdout);
}

// parse_flags, and --help answered: the help is printed and nothing is returned (the command ends, 0).
inline std::optional<Flags> parse_or_help(const char* command, const std::string& synopsis,
                                          const std::vector<std::string>& a, const std::vector<Option>& table,
                                          const std::vector<std::string>& repeatable = {},
                                          std::vector<std::string>* positional = nullptr) {
  Flags f = parse_flags(command, a, table, repeatable, positional);
  if (!f.has("help")) return f;
  print_help(command, synopsis, table);
  return std::nullopt;
}

// An integer in [lo, hi], written in decimal with an optional sign.
inline std::int64_t parse_int_in(const std::string& flag, const std::string& v, std::int64_t lo, std::int64_t hi) {
  const std::size_t digits_from = !v.empty() && (v[0] == '-' || v[0] == '+') ? 1 : 0;
  if (v.size() <= digits_from || v.find_first_not_of("0123456789", digits_from) != std::string::npos)
    throw UsageError(flag + " expects an integer, got '" + v + "'");
  errno = 0;
  const long long x = std::strtoll(v.c_str(), nullptr, 10);
  // ERANGE: beyond 64 bits; the range error is the useful message there too.
  if (errno == ERANGE || x < lo || x > hi)
    throw UsageError(flag + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" +
                     v + "'");
  return x;
}

// A finite number that fits a float (every consumer stores a float). Underflow rounds toward 0.
inline double parse_number(const std::string& flag, const std::string& v) {
  const bool blank_start =
      v.empty() || v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r' || v[0] == '\f' || v[0] == '\v';
  char* end = nullptr;
  const double x = blank_start ? 0.0 : std::strtod(v.c_str(), &end);
  if (blank_start || end != v.c_str() + v.size()) throw UsageError(flag + " expects a number, got '" + v + "'");
  if (!std::isfinite(x) || std::fabs(x) > double(std::numeric_limits<float>::max()))
    throw UsageError(flag + " expects a finite number, got '" + v + "'");
  return x;
}

}  // namespace attnseq::cli
