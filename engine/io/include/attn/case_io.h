// Conformance cases: one operator call with its inputs and expected outputs, stored as JSON
// (format: tests/data/onnx-attention/README.md). Reading, writing, running and checking them.
//
//   {"name": ..., "op": "Attention" | "MultiHeadAttention", "opset": 23,
//    "attributes": {"scale": 0.1, ...},
//    "inputs":  {"Q": T, ...},
//    "outputs": {"Y": T, ...}}
//   T = {"dims": [2, 3], "dtype": "float32" | "float16" | "bool" | "int64", "data": [...]}
//   with data flat in row-major order and non-finite floats as the strings "inf", "-inf", "nan".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attn/kernels.h"
#include "attn/status.h"

namespace attn {

enum class DType { kFloat32, kFloat16, kBool, kInt64 };

// "float32", "float16", "bool", "int64"
const char* DTypeName(DType dtype);

// A dense row-major tensor as stored in a case file.
struct Tensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> dims;      // shape; {} is a scalar (one element)
  std::vector<float> values;      // float32, float16 (widened exactly) and bool (0 or 1)
  std::vector<int64_t> integers;  // int64 elements; empty for every other dtype

  // Product of dims.
  int64_t NumElements() const;
};

// Rounds a float32 to the nearest float16 (ties to even) and widens it back: the value a
// float16 output holds. Overflow gives ±inf, NaN stays NaN.
float RoundToFloat16(float value);

struct Case {
  std::string name;
  std::string op = "Attention";  // absent "op" means ONNX Attention
  int64_t opset = 0;             // 0 when the file does not say
  std::map<std::string, double> attributes;
  std::map<std::string, Tensor> inputs;
  std::map<std::string, Tensor> outputs;  // expected; may be empty for `attnlab run`
};

using TensorMap = std::map<std::string, Tensor>;

// Parses a case from JSON text. Every structural problem (missing dims, data length that does not
// match dims, unknown dtype, non-numeric attribute...) is a kParseError naming the field.
Status ParseCase(std::string_view json_text, Case* out);

// Reads and parses `path`; a file that cannot be read is a kParseError naming the path.
Status ReadCaseFile(const std::string& path, Case* out);

// {"outputs": {"Y": T, ...}} on one line: float32 with 9 significant digits (exact round trip),
// float16 values rounded to float16 first.
std::string OutputsToJson(const TensorMap& outputs);

// Computes the operator the case names (Attention or MultiHeadAttention) on its inputs with the
// engine's `kernel`.
// `outputs` receives every output the operator produces, in the dtype the case's outputs (or,
// without them, its inputs) use. Bad input or an unknown op is a Status, never an abort.
Status RunCase(const Case& c, TensorMap* outputs, KernelId kernel = KernelId::kEigen);

// How far apart an output may be: |actual - expected| <= atol + rtol·|expected|.
struct Tolerance {
  double rtol;
  double atol;
};
// float32: rtol 1e-3, atol 1e-5. float16: rtol 1e-3, atol 1e-3 (about one float16 ulp at 1),
// applied after rounding the float32 result to float16. bool and int64: exact.
Tolerance ToleranceFor(DType dtype);

// The verdict on one case.
struct CaseCheck {
  std::string name;
  bool passed = false;
  double max_abs_error = 0;  // over every compared element of every output
  std::string worst_output;  // the output holding max_abs_error
  std::string message;       // why it failed (first problem found); empty when it passed
};

// Runs the case with `kernel` and compares every expected output with ToleranceFor(its dtype).
// ±inf must match exactly; NaN matches only NaN.
CaseCheck CheckCase(const Case& c, KernelId kernel = KernelId::kEigen);

}  // namespace attn
