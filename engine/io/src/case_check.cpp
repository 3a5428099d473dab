// Running a case by its "op" and comparing what it computes with what the case expects.
#include <cmath>
#include <sstream>

#include "attn/case_io.h"
#include "case_ops.h"

namespace attn {
namespace {

// Compares one output and raises check->max_abs_error. Returns the first problem found, or an
// empty string when the output matches.
std::string CompareOutput(const std::string& name, const Tensor& actual, const Tensor& expected,
                          CaseCheck* check) {
  if (actual.dims != expected.dims) {
    return name + ": shape " + case_ops::DimsString(actual.dims) + " != expected " +
           case_ops::DimsString(expected.dims);
  }
  if (expected.dtype == DType::kInt64) {
    return actual.integers == expected.integers ? "" : name + ": int64 values differ";
  }
  if (actual.values.size() != expected.values.size()) {
    return name + ": dtype " + DTypeName(actual.dtype) + " != expected " +
           DTypeName(expected.dtype);
  }
  const Tolerance tol = ToleranceFor(expected.dtype);
  std::string problem;
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
    // Keep scanning after the first mismatch so max_abs_error covers the whole output.
    if (problem.empty()) {
      std::ostringstream s;
      s << name << "[" << i << "]: " << a << " vs expected " << e << " (rtol " << tol.rtol
        << ", atol " << tol.atol << ")";
      problem = s.str();
    }
  }
  return problem;
}

}  // namespace

Status RunCase(const Case& c, TensorMap* outputs, KernelId kernel, const CaseLimits& limits) {
  // A Case built in code (not parsed) may hold fewer elements than its dims promise, or dims whose
  // product overflows.
  for (const auto& [name, t] : c.inputs) {
    const std::string where = "inputs." + case_ops::Excerpt(name);
    ATTN_RETURN_IF_ERROR(case_ops::CheckElements(where, t.dims, limits));
    const size_t stored = t.dtype == DType::kInt64 ? t.integers.size() : t.values.size();
    if (static_cast<int64_t>(stored) != t.NumElements()) {
      return Status(StatusCode::kShapeMismatch,
                    where + ": holds " + std::to_string(stored) + " elements, dims " +
                        case_ops::DimsString(t.dims) + " say " + std::to_string(t.NumElements()));
    }
  }
  TensorMap result;
  if (c.op == "Attention") {
    ATTN_RETURN_IF_ERROR(case_ops::RunOnnxAttention(c, kernel, limits, &result));
  } else if (c.op == "MultiHeadAttention") {
    ATTN_RETURN_IF_ERROR(case_ops::RunTorchMha(c, kernel, limits, &result));
  } else {
    return Status(StatusCode::kUnknownOption,
                  "op: expected Attention or MultiHeadAttention, got " + case_ops::Excerpt(c.op));
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

CaseCheck CheckCase(const Case& c, KernelId kernel, const CaseLimits& limits) {
  CaseCheck check;
  check.name = c.name;
  if (c.outputs.empty()) {
    check.message = "the case lists no expected outputs";
    return check;
  }
  TensorMap actual;
  const Status status = RunCase(c, &actual, kernel, limits);
  if (!status.ok()) {
    check.message = status.ToString();
    return check;
  }
  check.passed = true;
  for (const auto& [name, expected] : c.outputs) {
    const auto it = actual.find(name);
    const std::string problem = it == actual.end()
                                    ? case_ops::Excerpt(name) + ": not produced by " + c.op
                                    : CompareOutput(name, it->second, expected, &check);
    if (problem.empty()) continue;
    if (check.passed) check.message = problem;  // the first problem explains the failure
    check.passed = false;
  }
  return check;
}

}  // namespace attn
