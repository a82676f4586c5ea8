// Error kinds, carried as types from where an error is detected to where it is reported: the wasm
// bindings turn a kind into a status code by the table below (error_code). Every Error
// is a std::invalid_argument, so code that catches that still catches them, and a std::invalid_argument
// that is not an Error counts as BadInput (the kind of most errors, marked only where it helps).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace attnseq {

// The error kinds, in one table: each kind's name (its enum value and its class) and the code
// JavaScript sees (AttnseqError.code; wasm/errors.js's ERROR_CODES says what each code means, and
// tests/js/error-codes.test.mjs holds the two to each other). Adding a kind is one row here.
#define ATTNSEQ_ERROR_KINDS(X)                                                                                \
  X(BadInput, "BAD_INPUT")           /* an argument, option, token or text the caller gave is wrong */        \
  X(TooLong, "TOO_LONG")             /* over a documented length limit (src/model/config.hpp: source, ...) */ \
  X(BadCheckpoint, "BAD_CHECKPOINT") /* a checkpoint or trainer-state file is malformed */                    \
  X(NotLoaded, "NOT_LOADED")         /* a wasm handle used before it holds a model (wasm/bindings.cpp) */     \
  X(NotEncoded, "NOT_ENCODED")       /* a wasm handle used before it holds an encoded source */

enum class ErrorKind {
#define ATTNSEQ_KIND(name, code) name,
  ATTNSEQ_ERROR_KINDS(ATTNSEQ_KIND)
#undef ATTNSEQ_KIND
};

// Every kind, in the table's order.
inline constexpr ErrorKind kErrorKinds[] = {
#define ATTNSEQ_KIND(name, code) ErrorKind::name,
    ATTNSEQ_ERROR_KINDS(ATTNSEQ_KIND)
#undef ATTNSEQ_KIND
};

// The code JavaScript sees for a kind ("BAD_INPUT", ...).
inline const char* error_code(ErrorKind kind) {
  switch (kind) {
#define ATTNSEQ_KIND(name, code) \
  case ErrorKind::name: return code;
    ATTNSEQ_ERROR_KINDS(ATTNSEQ_KIND)
#undef ATTNSEQ_KIND
  }
  return "INTERNAL";
}

class Error : public std::invalid_argument {
 public:
  Error(ErrorKind kind, const std::string& message) : std::invalid_argument(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

// One class per kind, so that a catch or a test can name the kind; raise() keeps class and kind equal.
#define ATTNSEQ_KIND(name, code)                                       \
  struct name : Error {                                                \
    explicit name(const std::string& m) : Error(ErrorKind::name, m) {} \
  };
ATTNSEQ_ERROR_KINDS(ATTNSEQ_KIND)
#undef ATTNSEQ_KIND

[[noreturn]] inline void raise(ErrorKind kind, const std::string& message) {
  switch (kind) {
#define ATTNSEQ_KIND(name, code) \
  case ErrorKind::name: throw name(message);
    ATTNSEQ_ERROR_KINDS(ATTNSEQ_KIND)
#undef ATTNSEQ_KIND
  }
  throw BadInput(message);
}

// A number as a person writes it in a message: 0.003, 1e+15, -3e+38, -1e-30 (not -0.000000, not
// 39 digits): the shortest of 15 and 17 significant digits that reads back as x.
inline std::string number_text(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.15g", x);
  if (std::strtod(b, nullptr) != x) std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}
// A float with the fewest digits (6 to 9) that read back as it: 1e+16 and -3e+38, not 17 digits.
inline std::string number_text(float x) {
  char b[40];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(b, sizeof b, "%.*g", digits, double(x));
    if (std::strtof(b, nullptr) == x) break;
  }
  return b;
}

// The kind of a caught std::invalid_argument: an Error's own, BadInput for any other.
inline ErrorKind kind_of(const std::invalid_argument& e) {
  const auto* x = dynamic_cast<const Error*>(&e);
  return x ? x->kind() : ErrorKind::BadInput;
}

// The same error with context in front of its message ("tsv line 3: ", "FILE: "), of the same kind.
[[noreturn]] inline void raise_with_context(const std::string& context, const std::invalid_argument& e) {
  raise(kind_of(e), context + e.what());
}

// Runs f(); a BadInput it raises (any std::invalid_argument that is not another kind) is raised again
// as `kind` with the same message. What is bad input to a parser is a bad file to whoever read it.
template <class F>
decltype(auto) reraise_input_errors_as(ErrorKind kind, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const std::invalid_argument& e) {
    if (kind_of(e) != ErrorKind::BadInput) throw;
    raise(kind, e.what());
  }
}

}  // namespace attnseq
