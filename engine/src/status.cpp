#include "attn/status.h"

namespace attn {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kEmptyInput: return "empty_input";
    case StatusCode::kNonFinite: return "non_finite";
    case StatusCode::kShapeMismatch: return "shape_mismatch";
    case StatusCode::kOutOfRange: return "out_of_range";
    case StatusCode::kUnknownOption: return "unknown_option";
    case StatusCode::kParseError: return "parse_error";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kResourceExhausted: return "resource_exhausted";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

}  // namespace attn
