// Status: how the engine reports bad input. No exception crosses the API and nothing aborts;
// every function whose result depends on its input returns one of these.
#pragma once

#include <string>
#include <utility>

namespace attn {

enum class StatusCode {
  kOk = 0,
  kEmptyInput,     // a sequence, dimension or tensor has no elements
  kNonFinite,      // an input holds NaN or +-inf where a finite value is required
  kShapeMismatch,  // two inputs disagree on a dimension, or a dimension is not the one expected
  kOutOfRange,     // a scalar option (scale, temperature, window, heads...) is outside its domain
  kUnknownOption,  // an enum or named option the engine does not know
  kParseError,     // malformed text input (case files, state strings)
  kInvalidArgument,    // a value of the wrong type: a string where a number belongs, 2.5 where an integer does
  kResourceExhausted,  // the call would need more memory (or elements) than the documented limits allow
};

// Stable lower-case name of a code, e.g. "shape_mismatch"; used in messages, the CLI and JS.
const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "shape_mismatch: x: expected (n, 4), got (3, 5)"
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Propagates a non-ok Status to the caller.
#define ATTN_RETURN_IF_ERROR(expr)              \
  do {                                          \
    ::attn::Status attn_status_ = (expr);       \
    if (!attn_status_.ok()) return attn_status_; \
  } while (0)

}  // namespace attn
