#include "js_convert.h"

namespace attnjs {
namespace {

val ToFloat32Array(const attn::Matrix& m) {
  return val::global("Float32Array")
      .new_(emscripten::typed_memory_view(static_cast<size_t>(m.size()), m.data()));
}

}  // namespace

// {rows, cols, data: Float32Array}: a row-major matrix for JS.
val ToJsMatrix(const attn::Matrix& m) {
  val out = val::object();
  out.set("rows", static_cast<int>(m.rows()));
  out.set("cols", static_cast<int>(m.cols()));
  out.set("data", ToFloat32Array(m));
  return out;
}

val ToJsStrings(const std::vector<std::string>& strings) {
  val out = val::array();
  for (size_t i = 0; i < strings.size(); ++i) out.set(i, strings[i]);
  return out;
}

val ErrorObject(const attn::Status& status) {
  val out = val::object();
  out.set("ok", false);
  out.set("code", std::string(attn::StatusCodeName(status.code())));
  out.set("message", status.message());
  return out;
}

val ResultObject(const attn::AttentionResult& result) {
  val out = val::object();
  out.set("ok", true);
  val heads = val::array();
  for (size_t h = 0; h < result.heads.size(); ++h) {
    const attn::HeadIntermediates& head = result.heads[h];
    val o = val::object();
    o.set("q", ToJsMatrix(head.q));
    o.set("k", ToJsMatrix(head.k));
    o.set("v", ToJsMatrix(head.v));
    o.set("rawScores", ToJsMatrix(head.raw_scores));
    o.set("scaledScores", ToJsMatrix(head.scaled_scores));
    o.set("cappedScores", ToJsMatrix(head.capped_scores));
    o.set("scores", ToJsMatrix(head.scores));
    o.set("weights", ToJsMatrix(head.weights));
    o.set("output", ToJsMatrix(head.output));
    heads.set(h, o);
  }
  out.set("heads", heads);
  out.set("output", ToJsMatrix(result.output));
  return out;
}

attn::Status FromJsMatrix(const char* what, val m, attn::Matrix* out) {
  if (m.isUndefined() || m.isNull()) {
    out->resize(0, 0);
    return attn::Status::Ok();
  }
  const int rows = m["rows"].isNumber() ? m["rows"].as<int>() : -1;
  const int cols = m["cols"].isNumber() ? m["cols"].as<int>() : -1;
  if (rows < 0 || cols < 0 || m["data"].isUndefined())
    return attn::Status(attn::StatusCode::kShapeMismatch, std::string(what) + ": expected {rows, cols, data}");
  const std::vector<float> values = emscripten::convertJSArrayToNumberVector<float>(m["data"]);
  if (values.size() != static_cast<size_t>(rows) * static_cast<size_t>(cols))
    return attn::Status(attn::StatusCode::kShapeMismatch, std::string(what) + ": expected rows*cols = " +
                                                               std::to_string(rows * cols) + " values, got " +
                                                               std::to_string(values.size()));
  *out = rows * cols > 0 ? attn::Matrix(Eigen::Map<const attn::Matrix>(values.data(), rows, cols)) : attn::Matrix(rows, cols);
  return attn::Status::Ok();
}

}  // namespace attnjs
