// Conformance cases: one operator call with its inputs and expected outputs, stored as JSON
// (format: tests/data/onnx-attention/README.md). Reading, writing, running and checking them.
//
//   {"name": ..., "op": "Attention" | "MultiHeadAttention", "opset": 23,
//    "attributes": {"scale": 0.1, ...},
//    "inputs":  {"Q": T, ...},
//    "outputs": {"Y": T, ...}}
//   T = {"dims": [2, 3], "dtype": "float32" | "float16" | "bool" | "int64", "data": [...]}
//   with data flat in row-major order and non-finite floats as the strings "inf", "-inf", "nan".
//
// Case files come from anywhere: every function here takes a CaseLimits and refuses, with
// kResourceExhausted naming the limit, a case that would cost more, before allocating it.
// Unknown keys of a case or a tensor, and unknown attributes, inputs and outputs of an op, are
// refused (kUnknownOption), as ONNX Runtime refuses unknown attributes: a typo must not silently
// change the result.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attn/kernels.h"
#include "attn/status.h"

namespace attn {

// What one case may cost. Each limit is checked before the memory is allocated; a case over one is
// kResourceExhausted with a message naming it. The attnlab CLI sets the first two from
// --max-input-mb and --max-elements.
struct CaseLimits {
  // Bytes of case text: a file's size (only regular files are read). 64 MiB.
  int64_t max_input_bytes = int64_t{64} << 20;
  // Elements of any one tensor a case reads, produces or needs on the way: each input and output,
  // and the (heads, L, M) scores of one batch item, which the engine holds several copies of.
  // 2^24 = 16 777 216 (64 MiB of float32). Products of dims are checked for overflow first.
  int64_t max_elements = int64_t{1} << 24;
  // Nesting of brackets in the JSON text; a case needs 4 ({case {inputs {tensor [data]}}}).
  // Deeper text is a kParseError before nlohmann's parser sees it.
  int max_nesting_depth = 64;
};

enum class DType { kFloat32, kFloat16, kBool, kInt64 };

// "float32", "float16", "bool", "int64"
const char* DTypeName(DType dtype);

// A dense row-major tensor as stored in a case file.
struct Tensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> dims;      // shape; {} is a scalar (one element)
  std::vector<float> values;      // float32, float16 (widened exactly) and bool (0 or 1)
  std::vector<int64_t> integers;  // int64 elements; empty for every other dtype

  // Product of dims; INT64_MAX when it overflows (dims of a Case built in code are unchecked).
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
// match dims, unknown dtype, non-numeric attribute, nesting past limits.max_nesting_depth...) is a
// kParseError naming the field; text longer than limits.max_input_bytes or a tensor over
// limits.max_elements is kResourceExhausted. Messages quote at most a short excerpt of the
// offending value.
Status ParseCase(std::string_view json_text, Case* out, const CaseLimits& limits = CaseLimits());

// Reads and parses `path`. A file that cannot be opened, a directory, or anything but a regular
// file (a device such as /dev/zero, a pipe) is a kParseError naming the path; a file over
// limits.max_input_bytes is kResourceExhausted and is not read.
Status ReadCaseFile(const std::string& path, Case* out, const CaseLimits& limits = CaseLimits());

// {"outputs": {"Y": T, ...}} on one line: float32 with 9 significant digits (exact round trip),
// float16 values rounded to float16 first.
std::string OutputsToJson(const TensorMap& outputs);

// Computes the operator the case names (Attention or MultiHeadAttention) on its inputs with the
// engine's `kernel`.
// `outputs` receives the operator's outputs, in the dtype the case's outputs (or, without them,
// its inputs) use. The (L, M)-per-head outputs (Attention's qk_matmul_output, MultiHeadAttention's
// attn_output_weights) are computed only when the case asks for them: its "outputs" lists them,
// or the attribute qk_matmul_output_mode / need_weights (= 1) is given. Bad input, an unknown op,
// attribute, input or output name is a Status, never an abort; so is a case whose inputs,
// outputs or per-batch scores would exceed limits.max_elements (checked before allocating).
Status RunCase(const Case& c, TensorMap* outputs, KernelId kernel = KernelId::kEigen,
               const CaseLimits& limits = CaseLimits());

// How far apart an output may be: |actual - expected| <= atol + rtol·|expected|.
struct Tolerance {
  double rtol;
  double atol;
};
// float32: rtol 1e-3, atol 1e-5. float16: rtol 1e-3, atol 1e-3 (about one float16 ulp at 1),
// applied after rounding the float32 result to float16. bool and int64: exact.
Tolerance ToleranceFor(DType dtype);

// The verdict on one case.
// The verdict on one expected output of a case.
struct OutputCheck {
  std::string name;
  bool passed = false;
  double max_abs_error = 0;   // over its finite elements
  Tolerance tolerance{0, 0};  // what it was compared with: ToleranceFor(its expected dtype)
  std::string message;        // its first problem; empty when it passed
};

struct CaseCheck {
  std::string name;
  bool passed = false;
  double max_abs_error = 0;  // over every compared element of every output
  std::string worst_output;  // the output holding max_abs_error
  std::string message;       // why it failed (first problem found); empty when it passed
  // Each expected output, in the case's order; empty when the case could not run (then `message`
  // says why).
  std::vector<OutputCheck> outputs;
};

// Runs the case with `kernel` and compares every expected output with ToleranceFor(its dtype).
// ±inf must match exactly; NaN matches only NaN.
CaseCheck CheckCase(const Case& c, KernelId kernel = KernelId::kEigen,
                    const CaseLimits& limits = CaseLimits());

}  // namespace attn
