#include "js_convert.h"

#include "js_options.h"

#include <cctype>
#include <string>
#include <utility>

namespace attnjs {
namespace {

val ToFloat32Array(const attn::Matrix& m) {
  return val::global("Float32Array")
      .new_(emscripten::typed_memory_view(static_cast<size_t>(m.size()), m.data()));
}

// The engine's messages name C++ fields (num_heads, window_right); a JS caller wrote numHeads and
// windowRight. Every config key, input and parameter of the JS API whose C++ name differs.
constexpr std::pair<const char*, const char*> kJsNames[] = {
    {"num_kv_heads", "numKvHeads"},   {"num_heads", "numHeads"},
    {"value_head_dim", "valueHeadDim"}, {"head_dim", "headDim"},
    {"output_dim", "outputDim"},      {"window_left", "windowLeft"},
    {"window_right", "windowRight"},  {"position_base", "positionBase"},
    {"max_positions", "maxPositions"}, {"additive_dim", "additiveDim"},
    {"cosine_temperature", "cosineTemperature"}, {"relative_center", "relativeCenter"},
    {"relative_sharpness", "relativeSharpness"}, {"float_mask", "floatMask"},
    {"project_inputs", "projectInputs"}, {"project_output", "projectOutput"},
    {"use_bias", "useBias"},          {"d_output", "dOutput"},
    {"d_model", "dModel"},
};

bool IdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `message` with each whole-word C++ name replaced by its JS name ("num_heads: expected a divisor
// of d_model" -> "numHeads: expected a divisor of dModel"); values such as 'wasm_simd128' are no
// field names and stay.
std::string WithJsNames(std::string message) {
  for (const auto& [cpp, js] : kJsNames) {
    const size_t length = std::char_traits<char>::length(cpp);
    for (size_t at = message.find(cpp); at != std::string::npos; at = message.find(cpp, at)) {
      const bool whole = (at == 0 || !IdentifierChar(message[at - 1])) &&
                         (at + length == message.size() || !IdentifierChar(message[at + length]));
      if (whole) {
        message.replace(at, length, js);
        at += std::char_traits<char>::length(js);
      } else {
        at += length;
      }
    }
  }
  return message;
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
  out.set("message", WithJsNames(status.message()));
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

attn::Status CheckJsMatrix(const std::string& what, const val& m, JsMatrixArg* out) {
  *out = JsMatrixArg();
  if (IsAbsent(m)) return attn::Status::Ok();
  if (!IsPlainObject(m))
    return attn::Status(attn::StatusCode::kInvalidArgument, what + ": expected a matrix {rows, cols, data}, got " + DescribeJsValue(m));
  int rows = -1, cols = -1;
  ATTN_RETURN_IF_ERROR(ReadInt(m["rows"], what + ".rows", &rows));
  ATTN_RETURN_IF_ERROR(ReadInt(m["cols"], what + ".cols", &cols));
  if (rows < 0 || cols < 0)
    return attn::Status(attn::StatusCode::kShapeMismatch, what + ": expected {rows, cols, data} with rows, cols >= 0, got rows " +
                                                               std::to_string(rows) + ", cols " + std::to_string(cols));
  const int64_t values = int64_t{rows} * cols;
  if (values > kMaxJsMatrixValues)
    return attn::Status(attn::StatusCode::kResourceExhausted,
                        what + ": rows·cols = " + std::to_string(rows) + "·" + std::to_string(cols) + " = " + std::to_string(values) +
                            " values, over the limit of " + std::to_string(kMaxJsMatrixValues));
  const val data = m["data"];
  const bool array = val::global("Array").call<bool>("isArray", data);
  const bool typed = val::global("ArrayBuffer").call<bool>("isView", data) && !data.instanceof(val::global("DataView")) &&
                     !data.instanceof(val::global("BigInt64Array")) && !data.instanceof(val::global("BigUint64Array"));
  if (!array && !typed)
    return attn::Status(attn::StatusCode::kInvalidArgument,
                        what + ".data: expected a Float32Array or an array of numbers, got " + DescribeJsValue(data));
  const double length = data["length"].as<double>();
  if (length != static_cast<double>(values))
    return attn::Status(attn::StatusCode::kShapeMismatch, what + ": expected rows·cols = " + std::to_string(values) +
                                                               " values, got " + val::global("String")(data["length"]).as<std::string>());
  out->given = true;
  out->rows = rows;
  out->cols = cols;
  out->data = data;
  return attn::Status::Ok();
}

attn::Status CopyJsMatrix(const JsMatrixArg& arg, attn::Matrix* out) {
  out->resize(arg.rows, arg.cols);
  if (out->size() > 0) val(emscripten::typed_memory_view(static_cast<size_t>(out->size()), out->data())).call<void>("set", arg.data);
  return attn::Status::Ok();
}

attn::Status FromJsMatrix(const std::string& what, const val& m, attn::Matrix* out) {
  JsMatrixArg arg;
  ATTN_RETURN_IF_ERROR(CheckJsMatrix(what, m, &arg));
  return CopyJsMatrix(arg, out);
}

}  // namespace attnjs
