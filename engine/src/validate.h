// Input checks shared by the engine's entry points; each returns a Status that names the argument.
#pragma once

#include <string>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::validate {

// "(3, 5)"
std::string Shape(Eigen::Index rows, Eigen::Index cols);
// kEmptyInput if `m` has no rows or no columns.
Status NonEmpty(const char* name, const Matrix& m);
// kNonFinite naming the first bad element.
Status AllFinite(const char* name, const Matrix& m);
// kOutOfRange unless finite and > 0.
Status Positive(const char* name, float value);

}  // namespace attn::validate
