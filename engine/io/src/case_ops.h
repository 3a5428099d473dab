// Private to the case runner: the operator mappings and the tensor plumbing they share.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "attn/attention.h"
#include "attn/case_io.h"
#include "attn/matrix.h"

namespace attn::case_ops {

// ONNX Attention (opsets 23/24) on a case's inputs -> Y, present_key, present_value,
// qk_matmul_output (when asked for).
Status RunOnnxAttention(const Case& c, KernelId kernel, const CaseLimits& limits,
                        TensorMap* outputs);

// torch.nn.MultiheadAttention(batch_first=True) -> attn_output, attn_output_weights (when asked
// for).
Status RunTorchMha(const Case& c, KernelId kernel, const CaseLimits& limits, TensorMap* outputs);

// ---- What a case may name and cost ---------------------------------------------------------
// The attribute, input and output names an op knows.
struct OpNames {
  const char* op;
  std::vector<std::string_view> attributes, inputs, outputs;
};

// kUnknownOption unless `name` is one of `known`: "\"atribute\": unknown key of a case (did you mean
// attributes?)" for a near miss (edit distance 1 or 2), the list of known names otherwise. `kind`
// and `of` say what the name is ("attribute", "Attention").
Status CheckKnownName(const std::string& name, const std::vector<std::string_view>& known,
                      const char* kind, const char* of);

// kUnknownOption for the first attribute, input or expected output of `c` that `names` does not
// list, naming the nearest known one: "is_casual: unknown attribute of Attention (did you mean
// is_causal?)".
Status CheckNames(const Case& c, const OpNames& names);

// True when the case lists `output` among its expected outputs.
bool CaseAsksFor(const Case& c, const std::string& output);

// Product of `dims` in *count when it is at most `cap`; false (count untouched) when it is larger,
// overflow of int64 included. A zero dim anywhere makes the product 0.
bool CountElements(const std::vector<int64_t>& dims, int64_t cap, int64_t* count);

// kResourceExhausted unless a tensor of `dims` holds at most limits.max_elements; `what` names it.
Status CheckElements(const std::string& what, const std::vector<int64_t>& dims,
                     const CaseLimits& limits);

// `text` for a message: as it is when short, printable ASCII; otherwise quoted, with other bytes as
// \xNN, and cut after a few dozen bytes ("..." and the full length follow). A value taken from a
// case must never be echoed whole: it may be 50 MB.
std::string Excerpt(std::string_view text);

// ---- Tensor plumbing ----------------------------------------------------------------------
// kShapeMismatch with `what` as the message.
Status ShapeError(const std::string& what);

// Integer attribute `name` in [lo, hi], or `fallback` when absent; kOutOfRange otherwise.
Status IntAttribute(const Case& c, const std::string& name, int64_t fallback, int64_t lo,
                    int64_t hi, int64_t* out);

// Finite float attribute `name` > 0 (>= 0 when `allow_zero`), or `fallback` when absent.
Status FloatAttribute(const Case& c, const std::string& name, float fallback, bool allow_zero,
                      float* out);

// The input `name` of `c`, or nullptr when the case does not give it.
const Tensor* FindInput(const Case& c, const std::string& name);

// kShapeMismatch unless `t` is a float tensor (float32 or float16) of rank `rank`.
Status ExpectFloatTensor(const std::string& name, const Tensor& t, size_t rank);

// The (rows, cols) matrix at leading indices (i0, i1) of a rank-4 tensor (d0, d1, rows, cols).
Matrix Slice4d(const Tensor& t, int64_t i0, int64_t i1);

// The (rows, cols) matrix at leading index i0 of a rank-3 tensor (d0, rows, cols).
Matrix Slice3d(const Tensor& t, int64_t i0);

// Batch item b of a (batch, heads, rows, width) tensor with its heads side by side:
// -> (rows, heads · width), head h in columns [h·width, (h+1)·width).
Matrix HeadsAsColumns(const Tensor& t, int64_t b);

// Writes `m` into a rank-4 tensor at leading indices (i0, i1); shapes must already agree.
void Store4d(const Matrix& m, int64_t i0, int64_t i1, Tensor* t);

// Writes `m` into a rank-3 tensor at leading index i0; shapes must already agree.
void Store3d(const Matrix& m, int64_t i0, Tensor* t);

// The inverse of HeadsAsColumns: m (rows, heads · width) -> t[b] (heads, rows, width).
void StoreHeadsAsColumns(const Matrix& m, int64_t b, Tensor* t);

// A float tensor of the given dims and dtype, zero-filled.
Tensor ZeroTensor(std::vector<int64_t> dims, DType dtype);

// A mask's dims seen as 4-D (batch, heads, L, S'): ONNX and numpy prepend ones to a shorter mask.
using Dims4 = std::array<int64_t, 4>;
Dims4 LeftPadDims4(const std::vector<int64_t>& dims);

// kShapeMismatch unless a float or bool mask whose dims, seen as `dims4`, broadcast against
// (batch, heads, L, S): each leading dim 1 or equal, the last S (or shorter when
// `allow_short_last`, ONNX's padded masks).
Status CheckMask(const std::string& name, const Tensor& mask, const Dims4& dims4, int64_t batch,
                 int64_t heads, int64_t L, int64_t S, bool allow_short_last);

// The (L, S) slice at (batch b, head h) of a mask seen as `dims4`, broadcast over dims of size 1;
// columns past its last dim take `pad_value`. Bool masks give 0/1.
Matrix MaskSlice(const Tensor& mask, const Dims4& dims4, int64_t b, int64_t h, int64_t L, int64_t S,
                 float pad_value);

// Adds the (L, S) mask slices of batch item b to `in`: one entry for every head, or one per head
// when the mask has a head dim. A bool mask goes to in->bool_mask (short rows padded with false),
// a float one to in->float_mask (padded with -inf); the caller sets in->bool_mask_meaning.
void AppendMaskSlices(const Tensor& mask, const Dims4& dims4, int64_t b, int64_t heads, int64_t L,
                      int64_t S, AttentionInputs* in);

// "(2, 3, 4)"; past 8 dims "(1, 1, 1, 1, 1, 1, 1, 1, ... 1000 dims)".
std::string DimsString(const std::vector<int64_t>& dims);

}  // namespace attn::case_ops
