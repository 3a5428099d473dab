// Running a case by its "op" and comparing what it computes with what the case expects.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "attn/case_io.h"
#include "case_ops.h"

namespace attn {
namespace {

// Compares one output with what the case expects: its verdict, its largest error and its first
// problem.
OutputCheck CompareOutput(const std::string& name, const Tensor& actual, const Tensor& expected) {
  OutputCheck out;
  out.name = name;
  out.tolerance = ToleranceFor(expected.dtype);
  if (actual.dims != expected.dims) {
    out.message = name + ": shape " + case_ops::DimsString(actual.dims) + " != expected " +
                  case_ops::DimsString(expected.dims);
    return out;
  }
  if (expected.dtype == DType::kInt64) {
    out.passed = actual.integers == expected.integers;
    if (!out.passed) out.message = name + ": int64 values differ";
    return out;
  }
  if (actual.values.size() != expected.values.size()) {
    out.message = name + ": dtype " + DTypeName(actual.dtype) + " != expected " + DTypeName(expected.dtype);
    return out;
  }
  const Tolerance& tol = out.tolerance;
  for (size_t i = 0; i < expected.values.size(); ++i) {
    const double a = actual.values[i];
    const double e = expected.values[i];
    if (std::isnan(a) || std::isnan(e) || std::isinf(a) || std::isinf(e)) {
      // Non-finite values must agree exactly: NaN with NaN, inf with inf of the same sign.
      if ((std::isnan(a) && std::isnan(e)) || a == e) continue;
    } else {
      const double err = std::fabs(a - e);
      out.max_abs_error = std::max(out.max_abs_error, err);
      if (err <= tol.atol + tol.rtol * std::fabs(e)) continue;
    }
    // Keep scanning after the first mismatch so max_abs_error covers the whole output.
    if (out.message.empty()) {
      std::ostringstream s;
      s << name << "[" << i << "]: " << a << " vs expected " << e << " (rtol " << tol.rtol
        << ", atol " << tol.atol << ")";
      out.message = s.str();
    }
  }
  out.passed = out.message.empty();
  return out;
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
    OutputCheck out;
    if (it == actual.end()) {
      out.name = name;
      out.tolerance = ToleranceFor(expected.dtype);
      out.message = case_ops::Excerpt(name) + ": not produced by " + c.op;
    } else {
      out = CompareOutput(name, it->second, expected);
    }
    if (out.max_abs_error > check.max_abs_error) {
      check.max_abs_error = out.max_abs_error;
      check.worst_output = name;
    }
    if (!out.passed && check.passed) {
      check.passed = false;
      check.message = out.message;  // the first problem explains the failure
    }
    check.outputs.push_back(std::move(out));
  }
  return check;
}

}  // namespace attn
