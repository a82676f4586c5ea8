// Tests for the command line's number parsing (src/cli/args.hpp): values at the edges of a flag's
// range come back unchanged, anything beyond it (including beyond 64 bits) is refused instead of
// wrapped, partial or blank-padded numbers are refused, and numbers must be finite floats.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "cli/args.hpp"
#include "test_util.hpp"

using attnseq::cli::parse_int_in;
using attnseq::cli::parse_number;
using attnseq::test::error_of;

TEST_CASE("cli parse_int_in: the range's edges pass, values beyond it are refused naming flag, range and value") {
  CHECK(parse_int_in("--beam", "1", 1, 64) == 1);
  CHECK(parse_int_in("--beam", "64", 1, 64) == 64);
  CHECK(parse_int_in("--beam", "+7", 1, 64) == 7);
  CHECK(parse_int_in("--x", "-5", -5, 5) == -5);
  const auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  CHECK(parse_int_in("--x", "9223372036854775807", lo, hi) == hi);
  CHECK(parse_int_in("--x", "-9223372036854775808", lo, hi) == lo);
  // 2^32 + 1 used to become 1 on its way to an int; now it is out of range.
  CHECK(error_of([] { parse_int_in("--beam", "4294967297", 1, 64); }) ==
        "--beam expects an integer in [1, 64], got '4294967297'");
  CHECK(error_of([] { parse_int_in("--beam", "65", 1, 64); }) == "--beam expects an integer in [1, 64], got '65'");
  CHECK(error_of([] { parse_int_in("--seed", "-1", 0, 100); }) == "--seed expects an integer in [0, 100], got '-1'");
  // Beyond 64 bits either way: still the range message, never a wrapped value.
  CHECK(error_of([&] { parse_int_in("--x", "9223372036854775808", lo, hi); }).find("expects an integer in [") !=
        std::string::npos);
  CHECK(error_of([&] { parse_int_in("--x", "-9223372036854775809", lo, hi); }).find("expects an integer in [") !=
        std::string::npos);
  CHECK(error_of([] { parse_int_in("--ids", "18446744073709551621", 0, 2147483647); }) ==
        "--ids expects an integer in [0, 2147483647], got '18446744073709551621'");
}

TEST_CASE("cli parse_int_in: only a whole decimal integer is one") {
  for (const char* bad : {"", " ", "+", "-", " 5", "5 ", "5x", "1.5", "1e3", "0x10", "--5", "5-", "\t5"})
    CHECK_MESSAGE(error_of([&] { parse_int_in("--n", bad, -100, 100); }) ==
                      std::string("--n expects an integer, got '") + bad + "'",
                  "input '", bad, "'");
}

TEST_CASE("cli parse_number: finite numbers that fit a float, the rest is refused naming flag and value") {
  CHECK(parse_number("--lr", "0.003") == 0.003);
  CHECK(parse_number("--lr", "-2.5e2") == -250.0);
  CHECK(parse_number("--lr", "3") == 3.0);
  CHECK(parse_number("--lr", "3.4e38") == 3.4e38);
  for (const char* bad : {"nan", "inf", "-inf", "infinity", "1e39", "-1e39", "1e400"})
    CHECK_MESSAGE(error_of([&] { parse_number("--clip", bad); }) ==
                      std::string("--clip expects a finite number, got '") + bad + "'",
                  "input '", bad, "'");
  for (const char* bad : {"", " 1", "1 ", "1x", "abc", "1,5", "--1"})
    CHECK_MESSAGE(
        error_of([&] { parse_number("--clip", bad); }) == std::string("--clip expects a number, got '") + bad + "'",
        "input '", bad, "'");
}
