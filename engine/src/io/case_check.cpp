// Running a case by its "op" and comparing what it computes with what the case expects.
#include <cmath>
#include <sstream>

#include "attn/case_io.h"
#include "case_ops.h"

namespace attn {
namespace {

// Compares one output; raises check->max_abs_error and records the first problem as the message.
// Returns false when the output does not match.
bool CompareOutput(const std::string& name, const Tensor& actual, const Tensor& expected,
                   CaseCheck* check) {
  if (actual.dims != expected.dims) {
    check->message = name + ": shape " + case_ops::DimsString(actual.dims) + " != expected " +
                     case_ops::DimsString(expected.dims);
    return false;
  }
  if (expected.dtype == DType::kInt64) {
    if (actual.integers == expected.integers) return true;
    check->message = name + ": int64 values differ";
    return false;
  }
  if (actual.values.size() != expected.values.size()) {
    check->message =
        name + ": dtype " + DTypeName(actual.dtype) + " != expected " + DTypeName(expected.dtype);
    return false;
  }
  const Tolerance tol = ToleranceFor(expected.dtype);
  bool ok = true;
  for (size_t i = 0; i < expected.values.size(); ++i) {
    const double a = actual.values[i];
    const double e = expected.values[i];
    if (std::isnan(a) || std::isnan(e) || std::isinf(a) || std::isinf(e)) {
      // Non-finite values must agree exactly: NaN with NaN, inf with inf of the same sign.
      if ((std::isnan(a) && std::isnan(e)) || a == e) continue;
    } else {
      const double err = std::fabs(a - e);
      if (err > check->max_abs_error) {
        check->max_abs_error = err;
        check->worst_output = name;
      }
      if (err <= tol.atol + tol.rtol * std::fabs(e)) continue;
    }
    if (ok && check->message.empty()) {
      std::ostringstream s;
      s << name << "[" << i << "]: " << a << " vs expected " << e << " (rtol " << tol.rtol
        << ", atol " << tol.atol << ")";
      check->message = s.str();
    }
    ok = false;
  }
  return ok;
}

}  // namespace

Status RunCase(const Case& c, TensorMap* outputs) {
  TensorMap result;
  if (c.op == "Attention") {
    ATTN_RETURN_IF_ERROR(case_ops::RunOnnxAttention(c, &result));
  } else if (c.op == "MultiHeadAttention") {
    ATTN_RETURN_IF_ERROR(case_ops::RunTorchMha(c, &result));
  } else {
    return Status(StatusCode::kUnknownOption,
                  "op: expected \"Attention\" or \"MultiHeadAttention\", got \"" + c.op + "\"");
  }
  // The engine computes in float32; a float16 output holds what float16 can represent.
  for (auto& [name, tensor] : result) {
    if (tensor.dtype != DType::kFloat16) continue;
    for (float& x : tensor.values) x = RoundToFloat16(x);
  }
  *outputs = std::move(result);
  return Status::Ok();
}

Tolerance ToleranceFor(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return {1e-3, 1e-5};
    case DType::kFloat16: return {1e-3, 1e-3};
    case DType::kBool:
    case DType::kInt64: return {0, 0};
  }
  return {0, 0};
}

CaseCheck CheckCase(const Case& c) {
  CaseCheck check;
  check.name = c.name;
  if (c.outputs.empty()) {
    check.message = "the case lists no expected outputs";
    return check;
  }
  TensorMap actual;
  const Status status = RunCase(c, &actual);
  if (!status.ok()) {
    check.message = status.ToString();
    return check;
  }
  check.passed = true;
  for (const auto& [name, expected] : c.outputs) {
    const auto it = actual.find(name);
    if (it == actual.end()) {
      if (check.message.empty()) check.message = name + ": not produced by " + c.op;
      check.passed = false;
      continue;
    }
    if (!CompareOutput(name, it->second, expected, &check)) check.passed = false;
  }
  return check;
}

}  // namespace attn
