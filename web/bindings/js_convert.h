// Conversions between engine values and JS values, shared by the engine's JS API and the page's
// hooks. Matrices are copied into fresh JS typed arrays: wasm memory growth would invalidate views.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "attn/attention.h"

namespace attnjs {

using emscripten::val;

// {rows, cols, data: Float32Array}: a row-major matrix for JS (a copy).
val ToJsMatrix(const attn::Matrix& m);
val ToJsStrings(const std::vector<std::string>& strings);
// {ok: false, code: "shape_mismatch", message}
val ErrorObject(const attn::Status& status);
// {ok: true, heads: [{q, k, v, rawScores, scaledScores, cappedScores, scores, weights, output}], output}
val ResultObject(const attn::AttentionResult& result);
// {rows, cols, data} (data: Float32Array or array) -> Matrix; kShapeMismatch naming `what`.
attn::Status FromJsMatrix(const char* what, val m, attn::Matrix* out);

}  // namespace attnjs
