// Conversions between engine values and JS values, shared by the engine's JS API and the page's
// hooks. Matrices are copied into fresh JS typed arrays: wasm memory growth would invalidate views.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.h"

// Returns {ok: false, code, message} from a function returning val when `expr` is not ok.
#define ATTN_JS_RETURN_IF_ERROR(expr)                        \
  do {                                                       \
    const ::attn::Status attn_js_status_ = (expr);           \
    if (!attn_js_status_.ok()) return ::attnjs::ErrorObject(attn_js_status_); \
  } while (0)

namespace attnjs {

using emscripten::val;

// {rows, cols, data: Float32Array}: a row-major matrix for JS (a copy).
val ToJsMatrix(const attn::Matrix& m);
val ToJsStrings(const std::vector<std::string>& strings);
// {ok: false, code: "shape_mismatch", message}
val ErrorObject(const attn::Status& status);
// {ok: true, heads: [{q, k, v, rawScores, scaledScores, cappedScores, scores, weights, output}], output}
val ResultObject(const attn::AttentionResult& result);

// The most values one matrix may carry across the boundary (2^24 float32, 64 MiB): a larger one is
// refused with kResourceExhausted before anything is copied.
constexpr int64_t kMaxJsMatrixValues = int64_t{1} << 24;

// A matrix argument checked but not yet copied: {rows, cols, data} (own keys) with integer rows and
// cols, rows·cols (in 64 bits) at most kMaxJsMatrixValues, and data a typed array or an array of
// exactly rows·cols values of type number (data[i] of another type is kInvalidArgument naming the
// index), an array copied into a Float32Array there. Other keys are ignored, so a result's
// matrices can be passed back. Nothing a caller passes runs its code after this check.
struct JsMatrixArg {
  bool given = false;  // false: undefined or null, an empty matrix
  int rows = 0, cols = 0;
  val data = val::undefined();
};
attn::Status CheckJsMatrix(const std::string& what, const val& m, JsMatrixArg* out);
// Copies a checked matrix's values (one typed-array copy).
attn::Status CopyJsMatrix(const JsMatrixArg& arg, attn::Matrix* out);

}  // namespace attnjs
