// Input checks shared by the engine's entry points and the lessons; each returns a Status that names the argument,
// the expected and the given value or shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/matrix.h"
#include "attn/status.h"

namespace attn::validate {

// "(3, 5)"
std::string Shape(Eigen::Index rows, Eigen::Index cols);
// "0.5", "1e-08", "inf", "nan": a value as a message prints it (printf's %g; no iostreams, whose
// locale machinery would cost the page 60 KB of wasm).
std::string Number(double value);
// kEmptyInput if `m` has no rows or no columns.
Status NonEmpty(const std::string& name, const Matrix& m);
// True when no entry of `m` is ±inf or NaN: one branch-free pass the compiler vectorises (for hot
// paths that build AllFinite's message only when this fails).
bool NoInfOrNan(const Matrix& m);
// The same test on `count` floats from x.
bool NoInfOrNan(const float* x, std::size_t count);
// kNonFinite naming the first bad element.
Status AllFinite(const std::string& name, const Matrix& m);
// kNonFinite for NaN or +inf (−inf is allowed: it masks, as in ONNX float masks).
Status NoNanOrPositiveInf(const std::string& name, const Matrix& m);
// kOutOfRange unless finite and > 0.
Status Positive(const std::string& name, float value);
// kOutOfRange unless value >= minimum.
Status AtLeast(const std::string& name, long value, long minimum);
// kOutOfRange unless value <= maximum: "window_right: expected at most 16777216, got 2147483647".
Status AtMost(const std::string& name, long long value, long long maximum);
// kShapeMismatch unless `m` is (rows, cols); `expected` spells the shape with symbols, e.g. "(n, M)".
Status HasShape(const std::string& name, Eigen::Index m_rows, Eigen::Index m_cols, Eigen::Index rows,
                Eigen::Index cols, const std::string& expected = "");
// kUnknownOption unless 0 <= value < count.
Status KnownOption(const std::string& name, int value, int count);
// kUnknownOption unless `value` is one of its enum's values (0 .. Enum::kCount − 1).
template <typename Enum>
Status KnownEnum(const std::string& name, Enum value) {
  return KnownOption(name, static_cast<int>(value), static_cast<int>(Enum::kCount));
}

// The name of `known` closest to `name` by edit distance, ignoring ASCII case ("numHeds" gives
// "numHeads"): the "did you mean" of an unknown option. "" when none is within `max_distance`
// edits, or when `name` is longer than `max_length` bytes (a 50 MB key is never compared).
std::string_view NearestName(std::string_view name, const std::vector<std::string_view>& known,
                             size_t max_distance = SIZE_MAX, size_t max_length = 256);

}  // namespace attn::validate
