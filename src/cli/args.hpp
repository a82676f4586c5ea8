// Number parsing shared by the CLI's subcommands: the whole string must be the number, and the
// error names the flag and the value.
#pragma once
#include <stdexcept>
#include <string>

namespace attnseq::cli {

inline long parse_int(const std::string& flag, const std::string& v) {
  std::size_t used = 0;
  long x = 0;
  try {
    x = std::stol(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty()) throw std::invalid_argument(flag + " expects an integer, got '" + v + "'");
  return x;
}

inline long parse_int_in(const std::string& flag, const std::string& v, long lo, long hi) {
  const long x = parse_int(flag, v);
  if (x < lo || x > hi)
    throw std::invalid_argument(flag + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "], got '" + v + "'");
  return x;
}

inline double parse_number(const std::string& flag, const std::string& v) {
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty()) throw std::invalid_argument(flag + " expects a number, got '" + v + "'");
  return x;
}

}  // namespace attnseq::cli
