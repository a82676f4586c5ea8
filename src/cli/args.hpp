// Number parsing shared by the CLI's subcommands: the whole string must be the number (no blanks,
// no trailing text), integers must lie in the range the flag allows (so nothing is cut to fewer
// bits on the way to an int), numbers must be finite floats, and the error names the flag and value.
#pragma once
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace attnseq::cli {

// An integer in [lo, hi], written in decimal with an optional sign.
inline std::int64_t parse_int_in(const std::string& flag, const std::string& v, std::int64_t lo, std::int64_t hi) {
  const std::size_t digits_from = !v.empty() && (v[0] == '-' || v[0] == '+') ? 1 : 0;
  if (v.size() <= digits_from || v.find_first_not_of("0123456789", digits_from) != std::string::npos)
    throw std::invalid_argument(flag + " expects an integer, got '" + v + "'");
  errno = 0;
  const long long x = std::strtoll(v.c_str(), nullptr, 10);
  // ERANGE: beyond 64 bits; the range error is the useful message there too.
  if (errno == ERANGE || x < lo || x > hi)
    throw std::invalid_argument(flag + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "], got '" + v + "'");
  return x;
}

// A finite number that fits a float (every consumer stores a float). Underflow rounds toward 0.
inline double parse_number(const std::string& flag, const std::string& v) {
  const bool blank_start = v.empty() || v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r' ||
                           v[0] == '\f' || v[0] == '\v';
  char* end = nullptr;
  const double x = blank_start ? 0.0 : std::strtod(v.c_str(), &end);
  if (blank_start || end != v.c_str() + v.size()) throw std::invalid_argument(flag + " expects a number, got '" + v + "'");
  if (!std::isfinite(x) || std::fabs(x) > double(std::numeric_limits<float>::max()))
    throw std::invalid_argument(flag + " expects a finite number, got '" + v + "'");
  return x;
}

}  // namespace attnseq::cli
